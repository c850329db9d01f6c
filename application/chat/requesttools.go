package chat

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/llm"
)

// Tool choices a request may make, as OpenAI names them.
const (
	ToolChoiceAuto     = "auto"
	ToolChoiceNone     = "none"
	ToolChoiceRequired = "required"
	ToolChoiceFunction = "function" // one named tool
)

// ToolChoice is OpenAI's tool_choice: Mode, and Name with ToolChoiceFunction.
type ToolChoice struct {
	Mode string
	Name string
}

// RequestTools are the function tools an OpenAI request sends for its turn
// (agent frameworks pass their tools that way) and its tool choice. They
// are client tools: a call ends the turn for the caller to answer.
type RequestTools struct {
	Tools  []bot.ClientTool
	Choice ToolChoice
	Field  string // the request's field for errors: "tools"
	// Format is the request's response format for this turn's answers,
	// and FormatField its field for errors ("response_format").
	Format      llm.ResponseFormat
	FormatField string
}

// maxRequestTools bounds the tools of one request, as OpenAI does.
const maxRequestTools = 128

var requestToolName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// check refuses tools OpenAI would refuse, naming the field to fix.
func (rt RequestTools) check() error {
	if len(rt.Tools) > maxRequestTools {
		return errs.Invalid(rt.Field, "at most %d tools", maxRequestTools)
	}
	seen := map[string]bool{}
	for i, t := range rt.Tools {
		at := rt.Field + "[" + strconv.Itoa(i) + "]"
		if !requestToolName.MatchString(t.Name) {
			return errs.Invalid(at+".name", "must be 1-64 letters, digits, _ or -; got %q", t.Name)
		}
		if t.Name == bot.KeywordMemoryTool || seen[t.Name] {
			return errs.Invalid(at+".name", "%q is used by another tool; tool names must be unique", t.Name)
		}
		seen[t.Name] = true
		if typ, _ := t.Parameters["type"].(string); t.Parameters != nil && typ != "object" {
			return errs.Invalid(at+".parameters", `must be a JSON Schema with "type": "object"`)
		}
		if _, err := parametersSchema(t.Parameters); t.Parameters != nil && err != nil {
			return errs.Invalid(at+".parameters", "is not a valid JSON Schema: %v", err)
		}
	}
	return nil
}

// merged returns cfg with the request's tools among its client tools; a
// request tool replaces the bot's client tool of the same name for this
// turn, since the caller runs it. cfg is shared and is not modified.
func (rt RequestTools) merged(cfg *bot.Config) *bot.Config {
	c := *cfg
	c.ClientTools = slices.DeleteFunc(slices.Clone(cfg.ClientTools), func(t bot.ClientTool) bool {
		return slices.ContainsFunc(rt.Tools, func(r bot.ClientTool) bool { return r.Name == t.Name })
	})
	c.ClientTools = append(c.ClientTools, rt.Tools...)
	return &c
}

// choiceOptions turns the tool choice into options of the agent's model
// calls. A forced choice applies to every call of the turn, so it is
// allowed only where the forced call ends the turn: on client tools.
func (rt RequestTools) choiceOptions(cfg *bot.Config, hasServerTools bool) ([]model.Option, error) {
	at := "tool_choice"
	switch rt.Choice.Mode {
	case "", ToolChoiceAuto:
		return nil, nil
	case ToolChoiceNone:
		if !cfg.HasTools() {
			return nil, nil // nothing to forbid; OpenAI refuses a choice without tools
		}
		return []model.Option{model.WithToolChoice(schema.ToolChoiceForbidden)}, nil
	case ToolChoiceRequired:
		if !hasServerTools && len(cfg.ClientTools) == 0 {
			return nil, errs.Invalid(at, `"required" needs tools to choose from; send tools with the request, or leave tool_choice out`)
		}
		if hasServerTools {
			return nil, errs.Invalid(at, `"required" needs every tool of the turn to be a client tool (this bot runs tools itself); send "auto" or name a client tool`)
		}
		return []model.Option{model.WithToolChoice(schema.ToolChoiceForced)}, nil
	case ToolChoiceFunction:
		if !slices.ContainsFunc(cfg.ClientTools, func(t bot.ClientTool) bool { return t.Name == rt.Choice.Name }) {
			return nil, errs.Invalid(at+".function.name", "%q is not one of the tools sent or the bot's client tools", rt.Choice.Name)
		}
		return []model.Option{model.WithToolChoice(schema.ToolChoiceForced, rt.Choice.Name)}, nil
	}
	return nil, errs.Invalid(at, `must be "auto", "none", "required" or {"type":"function","function":{"name"}}; got %q`, rt.Choice.Mode)
}

// agentForRequest is agentFor with a request's tools and tool choice: the
// merged configuration is compiled once per distinct set of tools and kept
// in the same cache, so an agent framework that sends the same tools on
// every call reuses it.
func (s *Service) agentForRequest(ctx context.Context, b *bot.Bot, cfg *bot.Config, version int64, rt RequestTools) (*compiled, error) {
	c, err := s.agentWithTools(ctx, b, cfg, version, rt)
	if err != nil || !rt.Format.Set() {
		return c, err
	}
	return s.withFormat(ctx, c, rt)
}

// withFormat puts the request's response format on a copy of the agent's
// options: it applies to this turn's model calls only.
func (s *Service) withFormat(ctx context.Context, c *compiled, rt RequestTools) (*compiled, error) {
	m, err := s.d.Models.Get(ctx, c.modelID)
	if err != nil {
		return nil, err
	}
	opt, ok := s.d.ChatModels.FormatOption(*m, rt.Format)
	if !ok {
		return nil, errs.Invalid(rt.FormatField, "the bot's model %q (provider %s) cannot be asked for a response format; send the request without it", m.ID, m.Provider)
	}
	withFormat := *c
	withFormat.format = []model.Option{opt}
	return &withFormat, nil
}

// agentWithTools is agentFor with the request's tools and tool choice.
func (s *Service) agentWithTools(ctx context.Context, b *bot.Bot, cfg *bot.Config, version int64, rt RequestTools) (*compiled, error) {
	if len(rt.Tools) == 0 && (rt.Choice.Mode == "" || rt.Choice.Mode == ToolChoiceAuto) {
		return s.agentFor(ctx, b, cfg, version)
	}
	if err := rt.check(); err != nil {
		return nil, err
	}
	if err := s.checkToolTexts(rt); err != nil {
		return nil, err
	}
	merged := rt.merged(cfg)
	c, err := s.compiledFor(ctx, b, merged, version, rt)
	if err != nil {
		return nil, err
	}
	opts, err := rt.choiceOptions(merged, c.sourced || len(merged.Variables) > 0 || merged.Knowledge.OnDemand())
	if err != nil || len(opts) == 0 {
		return c, err
	}
	withChoice := *c // the cached agent is shared: the options go on a copy
	withChoice.agentOptions = opts
	return &withChoice, nil
}

// compiledFor builds (or finds) the agent of a merged configuration.
func (s *Service) compiledFor(ctx context.Context, b *bot.Bot, merged *bot.Config, version int64, rt RequestTools) (*compiled, error) {
	m, err := s.d.Models.Get(ctx, merged.Model.ModelID)
	if err != nil {
		return nil, fmt.Errorf("model of bot %d: %w", b.ID, err)
	}
	if !m.Enabled {
		return nil, errs.Invalid("model", "the model %q of bot %d is disabled", m.ID, b.ID)
	}
	if !m.IsChat() {
		return nil, errs.Invalid("model.model_id", "the model %q of bot %d is of kind %q, not a chat model", m.ID, b.ID, m.KindOrChat())
	}
	if merged.HasTools() && !m.Capabilities.Tools {
		return nil, errs.Invalid(rt.Field, "the model %q of bot %d does not support tools", m.ID, b.ID)
	}
	key := agentKey(b, version, m) + ":tools:" + toolsDigest(rt.Tools)
	if c, ok := s.agents.get(key); ok {
		return c, nil
	}
	c, err := s.build(ctx, b, merged, m)
	if err != nil {
		return nil, err
	}
	s.agents.put(key, c)
	return c, nil
}

// toolsDigest names a set of request tools in a cache key.
func toolsDigest(tools []bot.ClientTool) string {
	b, _ := json.Marshal(tools)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// withInstructions adds a request's instructions after the bot's prompt:
// the bot stays what it is, the caller says what this turn is for.
func withInstructions(prompt, instructions string) string {
	if instructions == "" {
		return prompt
	}
	return prompt + "\n\n" + instructions
}
