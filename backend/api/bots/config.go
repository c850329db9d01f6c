package bots

import (
	"strconv"

	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/knowledge"
	"github.com/pergola-ai/pergola/domain/variable"
)

// ConfigDTO is a whole bot configuration as the console API reads and
// writes it; it mirrors bot.Config field for field.
type ConfigDTO struct {
	Name          string          `json:"name"`
	Description   string          `json:"description"`
	IconURL       string          `json:"icon_url"`
	Prompt        string          `json:"prompt"`
	Model         ModelDTO        `json:"model"`
	Plugins       []PluginDTO     `json:"plugins"`
	Workflows     []WorkflowDTO   `json:"workflows"`
	Tables        []TableDTO      `json:"tables"`
	Variables     []VariableDTO   `json:"variables"`
	ClientTools   []ClientToolDTO `json:"client_tools"`
	Onboarding    OnboardingDTO   `json:"onboarding"`
	SuggestReply  SuggestReplyDTO `json:"suggest_reply"`
	HistoryRounds int             `json:"history_rounds"`
	MaxToolRounds int             `json:"max_tool_rounds"`
	// AppID names the app whose variables the bot's workflow tools use.
	AppID idText `json:"app_id,omitempty"`
	// Knowledge binds knowledge bases of the workspace.
	Knowledge KnowledgeDTO `json:"knowledge"`
	// SubAgents are other bots of the workspace the bot calls as tools.
	SubAgents []SubAgentDTO `json:"sub_agents"`
	// Handoffs are the bots of the workspace the bot may hand the
	// conversation to.
	Handoffs []HandoffDTO `json:"handoffs"`
}

// HandoffDTO is a bot the conversation may be handed to; name is the
// target's name when the configuration was saved (read only).
type HandoffDTO struct {
	BotID       idText `json:"bot_id"`
	Description string `json:"description"`
	Name        string `json:"name,omitempty"`
}

// KnowledgeDTO is a bot's knowledge settings, under Coze's names where
// Coze has them (dataset_ids, auto_call, search_strategy).
type KnowledgeDTO struct {
	DatasetIDs     []idText `json:"dataset_ids"`
	AutoCall       bool     `json:"auto_call"`
	SearchStrategy int      `json:"search_strategy"`
	TopK           int      `json:"top_k"`
	MinScore       float64  `json:"min_score"`
	ShowSource     bool     `json:"show_source"`
	NoRecallReply  string   `json:"no_recall_reply"`
	RerankModel    string   `json:"rerank_model"`
	UseRewrite     bool     `json:"use_rewrite"`
}

func (d KnowledgeDTO) toDomain() (bot.KnowledgeSettings, error) {
	ids, err := parseIDs("knowledge.dataset_ids", d.DatasetIDs)
	return bot.KnowledgeSettings{KnowledgeIDs: ids, AutoCall: d.AutoCall, ShowSource: d.ShowSource, NoRecallReply: d.NoRecallReply,
		Retrieval: knowledge.Retrieval{Strategy: knowledge.Strategy(d.SearchStrategy), TopK: d.TopK, MinScore: d.MinScore,
			RerankModel: d.RerankModel, Rewrite: d.UseRewrite}}, err
}

func newKnowledgeDTO(k bot.KnowledgeSettings) KnowledgeDTO {
	d := KnowledgeDTO{DatasetIDs: []idText{}, AutoCall: k.AutoCall, SearchStrategy: int(k.Retrieval.Strategy), TopK: k.Retrieval.TopK,
		MinScore: k.Retrieval.MinScore, ShowSource: k.ShowSource, NoRecallReply: k.NoRecallReply,
		RerankModel: k.Retrieval.RerankModel, UseRewrite: k.Retrieval.Rewrite}
	for _, id := range k.KnowledgeIDs {
		d.DatasetIDs = append(d.DatasetIDs, idText(strconv.FormatInt(id, 10)))
	}
	return d
}

// ModelDTO picks the model and its parameters.
type ModelDTO struct {
	ModelID        string   `json:"model_id"`
	Temperature    *float64 `json:"temperature"`
	TopP           *float64 `json:"top_p"`
	MaxTokens      int      `json:"max_tokens"`
	ResponseFormat string   `json:"response_format"`
}

// PluginDTO binds one tool of a plugin.
type PluginDTO struct {
	PluginID idText `json:"plugin_id"`
	Tool     string `json:"tool"`
	Version  string `json:"version"`
}

// WorkflowDTO binds a workflow as a tool.
type WorkflowDTO struct {
	WorkflowID idText `json:"workflow_id"`
	Version    string `json:"version"`
}

// TableDTO binds a table.
type TableDTO struct {
	TableID idText `json:"table_id"`
}

// VariableDTO defines one variable of keyword memory.
type VariableDTO struct {
	Keyword      string `json:"keyword"`
	Default      string `json:"default"`
	Description  string `json:"description"`
	ShowInPrompt bool   `json:"show_in_prompt"`
}

// ClientToolDTO is a tool the API caller runs.
type ClientToolDTO struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters,omitempty"`
}

// OnboardingDTO is what a new conversation shows first.
type OnboardingDTO struct {
	Prologue           string   `json:"prologue"`
	SuggestedQuestions []string `json:"suggested_questions"`
}

// SuggestReplyDTO asks for follow-up questions after each answer.
type SuggestReplyDTO struct {
	Enabled bool   `json:"enabled"`
	Prompt  string `json:"prompt"`
}

// toDomain converts the DTO; only ids can be wrong here, and the error
// names the field. The rules are checked by the use case.
func (d ConfigDTO) toDomain() (bot.Config, error) {
	c := bot.Config{
		Name: d.Name, Description: d.Description, IconURL: d.IconURL, Prompt: d.Prompt,
		Model: bot.ModelSettings{ModelID: d.Model.ModelID, Temperature: d.Model.Temperature, TopP: d.Model.TopP,
			MaxTokens: d.Model.MaxTokens, ResponseFormat: d.Model.ResponseFormat},
		Onboarding:    bot.Onboarding{Prologue: d.Onboarding.Prologue, SuggestedQuestions: d.Onboarding.SuggestedQuestions},
		SuggestReply:  bot.SuggestReply{Enabled: d.SuggestReply.Enabled, Prompt: d.SuggestReply.Prompt},
		HistoryRounds: d.HistoryRounds, MaxToolRounds: d.MaxToolRounds,
	}
	var err error
	if c.AppID, err = d.AppID.parse("app_id", false); err != nil {
		return c, err
	}
	if c.Knowledge, err = d.Knowledge.toDomain(); err != nil {
		return c, err
	}
	if c.SubAgents, err = subAgentsToDomain(d.SubAgents); err != nil {
		return c, err
	}
	for i, p := range d.Plugins {
		id, err := p.PluginID.parse("plugins["+strconv.Itoa(i)+"].plugin_id", true)
		if err != nil {
			return c, err
		}
		c.Plugins = append(c.Plugins, bot.PluginTool{PluginID: id, Tool: p.Tool, Version: p.Version})
	}
	for i, w := range d.Workflows {
		id, err := w.WorkflowID.parse("workflows["+strconv.Itoa(i)+"].workflow_id", true)
		if err != nil {
			return c, err
		}
		c.Workflows = append(c.Workflows, bot.WorkflowRef{WorkflowID: id, Version: w.Version})
	}
	for i, t := range d.Tables {
		id, err := t.TableID.parse("tables["+strconv.Itoa(i)+"].table_id", true)
		if err != nil {
			return c, err
		}
		c.Tables = append(c.Tables, bot.TableRef{TableID: id})
	}
	for _, v := range d.Variables {
		c.Variables = append(c.Variables, variable.Definition{Keyword: v.Keyword, Default: v.Default, Description: v.Description, ShowInPrompt: v.ShowInPrompt})
	}
	for _, t := range d.ClientTools {
		c.ClientTools = append(c.ClientTools, bot.ClientTool{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	for i, h := range d.Handoffs {
		id, err := h.BotID.parse("handoffs["+strconv.Itoa(i)+"].bot_id", true)
		if err != nil {
			return c, err
		}
		c.Handoffs = append(c.Handoffs, bot.Handoff{BotID: id, Description: h.Description})
	}
	return c, nil
}

// newConfigDTO converts a configuration; lists are never null.
func newConfigDTO(c bot.Config) ConfigDTO {
	d := ConfigDTO{
		Name: c.Name, Description: c.Description, IconURL: c.IconURL, Prompt: c.Prompt,
		Model: ModelDTO{ModelID: c.Model.ModelID, Temperature: c.Model.Temperature, TopP: c.Model.TopP,
			MaxTokens: c.Model.MaxTokens, ResponseFormat: c.Model.ResponseFormat},
		Plugins: []PluginDTO{}, Workflows: []WorkflowDTO{}, Tables: []TableDTO{}, Variables: []VariableDTO{}, ClientTools: []ClientToolDTO{}, Handoffs: []HandoffDTO{},
		Onboarding:    OnboardingDTO{Prologue: c.Onboarding.Prologue, SuggestedQuestions: httpx.NonNil(c.Onboarding.SuggestedQuestions)},
		SuggestReply:  SuggestReplyDTO{Enabled: c.SuggestReply.Enabled, Prompt: c.SuggestReply.Prompt},
		HistoryRounds: c.HistoryRounds, MaxToolRounds: c.MaxToolRounds, Knowledge: newKnowledgeDTO(c.Knowledge),
		SubAgents: newSubAgentDTOs(c.SubAgents),
	}
	if c.AppID != 0 {
		d.AppID = idText(strconv.FormatInt(c.AppID, 10))
	}
	for _, p := range c.Plugins {
		d.Plugins = append(d.Plugins, PluginDTO{PluginID: idText(strconv.FormatInt(p.PluginID, 10)), Tool: p.Tool, Version: p.Version})
	}
	for _, w := range c.Workflows {
		d.Workflows = append(d.Workflows, WorkflowDTO{WorkflowID: idText(strconv.FormatInt(w.WorkflowID, 10)), Version: w.Version})
	}
	for _, t := range c.Tables {
		d.Tables = append(d.Tables, TableDTO{TableID: idText(strconv.FormatInt(t.TableID, 10))})
	}
	for _, v := range c.Variables {
		d.Variables = append(d.Variables, VariableDTO{Keyword: v.Keyword, Default: v.Default, Description: v.Description, ShowInPrompt: v.ShowInPrompt})
	}
	for _, t := range c.ClientTools {
		d.ClientTools = append(d.ClientTools, ClientToolDTO{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	for _, h := range c.Handoffs {
		d.Handoffs = append(d.Handoffs, HandoffDTO{BotID: idText(strconv.FormatInt(h.BotID, 10)), Description: h.Description, Name: h.Name})
	}
	return d
}
