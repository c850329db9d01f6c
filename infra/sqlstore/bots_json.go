package sqlstore

import (
	"encoding/json"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/knowledge"
	"github.com/pergola-ai/pergola/domain/variable"
)

// configDoc is a bot configuration as stored in bots.draft and
// bot_versions.config. Its JSON names are the storage format: renaming a
// field of bot.Config must not change them, so the domain struct is never
// serialized directly.
type configDoc struct {
	Name          string          `json:"name"`
	Description   string          `json:"description,omitempty"`
	IconURL       string          `json:"icon_url,omitempty"`
	Prompt        string          `json:"prompt,omitempty"`
	Model         modelDoc        `json:"model"`
	Plugins       []pluginDoc     `json:"plugins,omitempty"`
	Workflows     []workflowDoc   `json:"workflows,omitempty"`
	Tables        []tableDoc      `json:"tables,omitempty"`
	Variables     []variableDoc   `json:"variables,omitempty"`
	ClientTools   []clientToolDoc `json:"client_tools,omitempty"`
	Onboarding    onboardingDoc   `json:"onboarding"`
	SuggestReply  suggestReplyDoc `json:"suggest_reply"`
	HistoryRounds int             `json:"history_rounds"`
	MaxToolRounds int             `json:"max_tool_rounds"`
	AppID         int64           `json:"app_id,omitempty"`
	Knowledge     *knowledgeDoc   `json:"knowledge,omitempty"`
	SubAgents     []subAgentDoc   `json:"sub_agents,omitempty"`
	Handoffs      []handoffDoc    `json:"handoffs,omitempty"`
}

// handoffDoc is a bot the conversation may be handed to.
type handoffDoc struct {
	BotID       int64  `json:"bot_id"`
	Description string `json:"description,omitempty"`
	Name        string `json:"name,omitempty"`
}

// knowledgeDoc is a bot's knowledge settings; absent when it binds none.
type knowledgeDoc struct {
	KnowledgeIDs  []int64 `json:"knowledge_ids"`
	AutoCall      bool    `json:"auto_call,omitempty"`
	Strategy      int     `json:"search_strategy,omitempty"`
	TopK          int     `json:"top_k,omitempty"`
	MinScore      float64 `json:"min_score,omitempty"`
	RerankModel   string  `json:"rerank_model,omitempty"`
	Rewrite       bool    `json:"use_rewrite,omitempty"`
	ShowSource    bool    `json:"show_source,omitempty"`
	NoRecallReply string  `json:"no_recall_reply,omitempty"`
}

type modelDoc struct {
	ModelID        string   `json:"model_id"`
	Temperature    *float64 `json:"temperature,omitempty"`
	TopP           *float64 `json:"top_p,omitempty"`
	MaxTokens      int      `json:"max_tokens,omitempty"`
	ResponseFormat string   `json:"response_format,omitempty"`
}

type pluginDoc struct {
	PluginID int64  `json:"plugin_id"`
	Tool     string `json:"tool"`
	Version  string `json:"version,omitempty"`
}

type workflowDoc struct {
	WorkflowID int64  `json:"workflow_id"`
	Version    string `json:"version,omitempty"`
}

type tableDoc struct {
	TableID int64 `json:"table_id"`
}

type variableDoc struct {
	Keyword      string `json:"keyword"`
	Default      string `json:"default,omitempty"`
	Description  string `json:"description,omitempty"`
	ShowInPrompt bool   `json:"show_in_prompt,omitempty"`
}

type clientToolDoc struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  map[string]any `json:"parameters,omitempty"`
}

type onboardingDoc struct {
	Prologue           string   `json:"prologue,omitempty"`
	SuggestedQuestions []string `json:"suggested_questions,omitempty"`
}

type suggestReplyDoc struct {
	Enabled bool   `json:"enabled,omitempty"`
	Prompt  string `json:"prompt,omitempty"`
}

// encodeConfig returns c as the stored JSON document.
func encodeConfig(c *bot.Config) (string, error) {
	d := configDoc{
		Name: c.Name, Description: c.Description, IconURL: c.IconURL, Prompt: c.Prompt,
		Model: modelDoc{ModelID: c.Model.ModelID, Temperature: c.Model.Temperature, TopP: c.Model.TopP,
			MaxTokens: c.Model.MaxTokens, ResponseFormat: c.Model.ResponseFormat},
		Onboarding:    onboardingDoc{Prologue: c.Onboarding.Prologue, SuggestedQuestions: c.Onboarding.SuggestedQuestions},
		SuggestReply:  suggestReplyDoc{Enabled: c.SuggestReply.Enabled, Prompt: c.SuggestReply.Prompt},
		HistoryRounds: c.HistoryRounds, MaxToolRounds: c.MaxToolRounds, AppID: c.AppID,
		Knowledge: encodeKnowledge(c.Knowledge), SubAgents: encodeSubAgents(c.SubAgents),
	}
	for _, p := range c.Plugins {
		d.Plugins = append(d.Plugins, pluginDoc{PluginID: p.PluginID, Tool: p.Tool, Version: p.Version})
	}
	for _, w := range c.Workflows {
		d.Workflows = append(d.Workflows, workflowDoc{WorkflowID: w.WorkflowID, Version: w.Version})
	}
	for _, t := range c.Tables {
		d.Tables = append(d.Tables, tableDoc{TableID: t.TableID})
	}
	for _, v := range c.Variables {
		d.Variables = append(d.Variables, variableDoc{Keyword: v.Keyword, Default: v.Default, Description: v.Description, ShowInPrompt: v.ShowInPrompt})
	}
	for _, t := range c.ClientTools {
		d.ClientTools = append(d.ClientTools, clientToolDoc{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	for _, h := range c.Handoffs {
		d.Handoffs = append(d.Handoffs, handoffDoc{BotID: h.BotID, Description: h.Description, Name: h.Name})
	}
	b, err := json.Marshal(d)
	return string(b), err
}

// decodeConfig reads a stored JSON document.
func decodeConfig(s string) (bot.Config, error) {
	var d configDoc
	if err := json.Unmarshal([]byte(s), &d); err != nil {
		return bot.Config{}, err
	}
	c := bot.Config{
		Name: d.Name, Description: d.Description, IconURL: d.IconURL, Prompt: d.Prompt,
		Model: bot.ModelSettings{ModelID: d.Model.ModelID, Temperature: d.Model.Temperature, TopP: d.Model.TopP,
			MaxTokens: d.Model.MaxTokens, ResponseFormat: d.Model.ResponseFormat},
		Onboarding:    bot.Onboarding{Prologue: d.Onboarding.Prologue, SuggestedQuestions: d.Onboarding.SuggestedQuestions},
		SuggestReply:  bot.SuggestReply{Enabled: d.SuggestReply.Enabled, Prompt: d.SuggestReply.Prompt},
		HistoryRounds: d.HistoryRounds, MaxToolRounds: d.MaxToolRounds, AppID: d.AppID,
		Knowledge: decodeKnowledge(d.Knowledge), SubAgents: decodeSubAgents(d.SubAgents),
	}
	for _, p := range d.Plugins {
		c.Plugins = append(c.Plugins, bot.PluginTool{PluginID: p.PluginID, Tool: p.Tool, Version: p.Version})
	}
	for _, w := range d.Workflows {
		c.Workflows = append(c.Workflows, bot.WorkflowRef{WorkflowID: w.WorkflowID, Version: w.Version})
	}
	for _, t := range d.Tables {
		c.Tables = append(c.Tables, bot.TableRef{TableID: t.TableID})
	}
	for _, v := range d.Variables {
		c.Variables = append(c.Variables, variable.Definition{Keyword: v.Keyword, Default: v.Default, Description: v.Description, ShowInPrompt: v.ShowInPrompt})
	}
	for _, t := range d.ClientTools {
		c.ClientTools = append(c.ClientTools, bot.ClientTool{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	for _, h := range d.Handoffs {
		c.Handoffs = append(c.Handoffs, bot.Handoff{BotID: h.BotID, Description: h.Description, Name: h.Name})
	}
	return c, nil
}

// encodeKnowledge stores knowledge settings; nil when they are all zero
// (configurations stored before bots had knowledge read back the same).
func encodeKnowledge(k bot.KnowledgeSettings) *knowledgeDoc {
	if !k.Enabled() && !k.AutoCall && !k.ShowSource && k.NoRecallReply == "" && k.Retrieval == (knowledge.Retrieval{}) {
		return nil
	}
	r := k.Retrieval
	return &knowledgeDoc{KnowledgeIDs: k.KnowledgeIDs, AutoCall: k.AutoCall, Strategy: int(r.Strategy), TopK: r.TopK,
		MinScore: r.MinScore, RerankModel: r.RerankModel, Rewrite: r.Rewrite, ShowSource: k.ShowSource, NoRecallReply: k.NoRecallReply}
}

// decodeKnowledge reads stored knowledge settings.
func decodeKnowledge(d *knowledgeDoc) bot.KnowledgeSettings {
	if d == nil {
		return bot.KnowledgeSettings{}
	}
	return bot.KnowledgeSettings{KnowledgeIDs: d.KnowledgeIDs, AutoCall: d.AutoCall, ShowSource: d.ShowSource, NoRecallReply: d.NoRecallReply,
		Retrieval: knowledge.Retrieval{Strategy: knowledge.Strategy(d.Strategy), TopK: d.TopK, MinScore: d.MinScore,
			RerankModel: d.RerankModel, Rewrite: d.Rewrite}}
}
