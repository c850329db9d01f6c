package bot

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/variable"
)

// Limits and defaults of a bot configuration.
const (
	MaxPromptLen         = 32000
	DefaultHistoryRounds = 5
	MaxHistoryRounds     = 50
	DefaultMaxToolRounds = 5
	MaxToolRoundsLimit   = 20
	MaxClientTools       = 32
	MaxSuggestedQuestion = 10
	// KeywordMemoryTool is the tool bots with variables get; client tools
	// may not take its name.
	KeywordMemoryTool = "setKeywordMemory"
)

var toolNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,63}$`)

// Normalize fills defaults: history and tool rounds, response format.
func (c *Config) Normalize() {
	c.Name = strings.TrimSpace(c.Name)
	if c.HistoryRounds == 0 {
		c.HistoryRounds = DefaultHistoryRounds
	}
	if c.MaxToolRounds == 0 {
		c.MaxToolRounds = DefaultMaxToolRounds
	}
	if c.Model.ResponseFormat == "" {
		c.Model.ResponseFormat = "text"
	}
	c.Knowledge.normalize()
}

// Validate checks a configuration and names the first wrong field, e.g.
// "variables[2].keyword" or "model.temperature".
func (c *Config) Validate() error {
	checks := []func() error{c.validateText, c.validateModel, c.validateRounds, c.validateTools, c.validateOnboarding,
		c.Knowledge.validate, c.validateSubAgents, c.validateHandoffs, func() error { return variable.ValidateDefinitions("variables", c.Variables) }}
	for _, check := range checks {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

func (c *Config) validateText() error {
	if c.Name == "" {
		return errs.Invalid("name", "is required")
	}
	if utf8.RuneCountInString(c.Name) > 100 {
		return errs.Invalid("name", "must be at most 100 characters")
	}
	if utf8.RuneCountInString(c.Description) > 2000 {
		return errs.Invalid("description", "must be at most 2000 characters")
	}
	if utf8.RuneCountInString(c.Prompt) > MaxPromptLen {
		return errs.Invalid("prompt", "must be at most %d characters", MaxPromptLen)
	}
	return nil
}

func (c *Config) validateModel() error {
	m := c.Model
	if m.Temperature != nil && (*m.Temperature < 0 || *m.Temperature > 2) {
		return errs.Invalid("model.temperature", "must be between 0 and 2")
	}
	if m.TopP != nil && (*m.TopP <= 0 || *m.TopP > 1) {
		return errs.Invalid("model.top_p", "must be above 0 and at most 1")
	}
	if m.MaxTokens < 0 || m.MaxTokens > 1_000_000 {
		return errs.Invalid("model.max_tokens", "must be between 0 (model default) and 1000000")
	}
	if m.ResponseFormat != "text" && m.ResponseFormat != "json" {
		return errs.Invalid("model.response_format", "must be text or json, got %q", m.ResponseFormat)
	}
	return nil
}

func (c *Config) validateRounds() error {
	if c.HistoryRounds < 0 || c.HistoryRounds > MaxHistoryRounds {
		return errs.Invalid("history_rounds", "must be between 0 and %d", MaxHistoryRounds)
	}
	if c.MaxToolRounds < 1 || c.MaxToolRounds > MaxToolRoundsLimit {
		return errs.Invalid("max_tool_rounds", "must be between 1 and %d", MaxToolRoundsLimit)
	}
	return nil
}

func (c *Config) validateTools() error {
	if len(c.ClientTools) > MaxClientTools {
		return errs.Invalid("client_tools", "at most %d client tools", MaxClientTools)
	}
	seen := map[string]bool{}
	for i, t := range c.ClientTools {
		at := "client_tools[" + strconv.Itoa(i) + "]"
		if !toolNamePattern.MatchString(t.Name) {
			return errs.Invalid(at+".name", "must be 1-64 letters, digits, _ or -, not starting with a digit; got %q", t.Name)
		}
		if t.Name == KeywordMemoryTool || t.Name == KnowledgeTool || seen[t.Name] {
			return errs.Invalid(at+".name", "%q is already a tool of this bot", t.Name)
		}
		seen[t.Name] = true
		if t.Parameters != nil {
			if typ, _ := t.Parameters["type"].(string); typ != "object" {
				return errs.Invalid(at+".parameters", `must be a JSON Schema with "type": "object"`)
			}
		}
	}
	for i, p := range c.Plugins {
		if p.PluginID <= 0 || p.Tool == "" {
			return errs.Invalid("plugins["+strconv.Itoa(i)+"]", "needs plugin_id and tool")
		}
	}
	for i, w := range c.Workflows {
		if w.WorkflowID <= 0 {
			return errs.Invalid("workflows["+strconv.Itoa(i)+"].workflow_id", "is required")
		}
	}
	for i, t := range c.Tables {
		if t.TableID <= 0 {
			return errs.Invalid("tables["+strconv.Itoa(i)+"].table_id", "is required")
		}
	}
	return nil
}

func (c *Config) validateOnboarding() error {
	if utf8.RuneCountInString(c.Onboarding.Prologue) > 5000 {
		return errs.Invalid("onboarding.prologue", "must be at most 5000 characters")
	}
	if len(c.Onboarding.SuggestedQuestions) > MaxSuggestedQuestion {
		return errs.Invalid("onboarding.suggested_questions", "at most %d questions", MaxSuggestedQuestion)
	}
	for i, q := range c.Onboarding.SuggestedQuestions {
		if strings.TrimSpace(q) == "" || utf8.RuneCountInString(q) > 500 {
			return errs.Invalid("onboarding.suggested_questions["+strconv.Itoa(i)+"]", "must be 1-500 characters")
		}
	}
	return nil
}

// HasTools reports whether the bot gives the model any tool (on-demand
// knowledge is one).
func (c *Config) HasTools() bool {
	return len(c.Plugins)+len(c.Workflows)+len(c.Tables)+len(c.Variables)+len(c.ClientTools)+len(c.SubAgents)+len(c.Handoffs) > 0 || c.Knowledge.OnDemand()
}
