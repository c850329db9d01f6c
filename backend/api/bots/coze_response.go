package bots

import (
	"strconv"
	"time"

	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/bot"
)

// cozeBot is the Bot object of Coze's retrieve calls, with the fields
// coze-go and @coze/api decode; lists Pergola has no content for yet are
// empty, never null.
type cozeBot struct {
	BotID            httpx.ID           `json:"bot_id"`
	Name             string             `json:"name"`
	Description      string             `json:"description"`
	IconURL          string             `json:"icon_url"`
	CreateTime       int64              `json:"create_time"`
	UpdateTime       int64              `json:"update_time"`
	Version          string             `json:"version"`
	BotMode          int                `json:"bot_mode"`
	PromptInfo       cozePromptOut      `json:"prompt_info"`
	OnboardingInfo   cozeOnboardOut     `json:"onboarding_info"`
	PluginInfoList   []cozePluginOut    `json:"plugin_info_list"`
	ModelInfo        cozeModelOut       `json:"model_info"`
	Knowledge        cozeKnowledgeOut   `json:"knowledge"`
	ShortcutCommands []struct{}         `json:"shortcut_commands"`
	WorkflowInfoList []cozeWorkflowInfo `json:"workflow_info_list"`
	SuggestReplyInfo cozeSuggestOut     `json:"suggest_reply_info"`
	Variables        []cozeVariable     `json:"variables"`
	FolderID         string             `json:"folder_id"`
	OwnerUserID      httpx.ID           `json:"owner_user_id"`
	// SubAgents are Pergola's: the bots this one calls as tools.
	SubAgents []cozeSubAgentOut `json:"sub_agents"`
}

type cozePromptOut struct {
	Prompt string `json:"prompt"`
}

type cozeOnboardOut struct {
	Prologue           string   `json:"prologue"`
	SuggestedQuestions []string `json:"suggested_questions"`
}

type cozeModelOut struct {
	ModelID    string         `json:"model_id"`
	ModelName  string         `json:"model_name"`
	Parameters map[string]any `json:"parameters"`
}

type cozeSuggestOut struct {
	ReplyMode        string `json:"reply_mode"`
	CustomizedPrompt string `json:"customized_prompt"`
}

type cozeVariable struct {
	Keyword      string `json:"keyword"`
	DefaultValue string `json:"default_value"`
	VariableType string `json:"variable_type"`
	Channel      string `json:"channel"`
	Description  string `json:"description"`
	Enable       bool   `json:"enable"`
	PromptEnable bool   `json:"prompt_enable"`
}

// newCozeBot shows cfg, the configuration of version (0 for the draft) of
// b, updated at updated; modelName is the model's display name.
func newCozeBot(b *bot.Bot, cfg *bot.Config, version int64, updated time.Time, modelName string) cozeBot {
	out := cozeBot{
		BotID: httpx.ID(b.ID), Name: cfg.Name, Description: cfg.Description, IconURL: cfg.IconURL,
		CreateTime: httpx.Unix(b.CreatedAt), UpdateTime: httpx.Unix(updated), Version: strconv.FormatInt(version, 10),
		PromptInfo:       cozePromptOut{Prompt: cfg.Prompt},
		OnboardingInfo:   cozeOnboardOut{Prologue: cfg.Onboarding.Prologue, SuggestedQuestions: httpx.NonNil(cfg.Onboarding.SuggestedQuestions)},
		PluginInfoList:   cozePlugins(cfg.Plugins),
		ModelInfo:        cozeModelOut{ModelID: cfg.Model.ModelID, ModelName: modelName, Parameters: modelParameters(cfg)},
		Knowledge:        cozeKnowledgeOut{KnowledgeInfos: []cozeKnowledgeInfo{}},
		ShortcutCommands: []struct{}{}, WorkflowInfoList: []cozeWorkflowInfo{},
		SuggestReplyInfo: cozeSuggestOut{ReplyMode: "disable"},
		Variables:        []cozeVariable{},
		OwnerUserID:      httpx.ID(b.CreatorID),
		SubAgents:        cozeSubAgents(cfg.SubAgents),
	}
	if s := cfg.SuggestReply; s.Enabled {
		out.SuggestReplyInfo = cozeSuggestOut{ReplyMode: "enable"}
		if s.Prompt != "" {
			out.SuggestReplyInfo = cozeSuggestOut{ReplyMode: "customized", CustomizedPrompt: s.Prompt}
		}
	}
	for _, v := range cfg.Variables {
		out.Variables = append(out.Variables, cozeVariable{Keyword: v.Keyword, DefaultValue: v.Default, VariableType: "KVVariable",
			Channel: "custom", Description: v.Description, Enable: true, PromptEnable: v.ShowInPrompt})
	}
	return out
}

// modelParameters lists the model settings under Coze's names; unset ones
// are left out.
func modelParameters(cfg *bot.Config) map[string]any {
	p := map[string]any{"context_round": cfg.HistoryRounds, "response_format": cfg.Model.ResponseFormat}
	if cfg.Model.Temperature != nil {
		p["temperature"] = *cfg.Model.Temperature
	}
	if cfg.Model.TopP != nil {
		p["top_p"] = *cfg.Model.TopP
	}
	if cfg.Model.MaxTokens > 0 {
		p["max_tokens"] = cfg.Model.MaxTokens
	}
	return p
}

// cozeSimpleBot is an item of /v1/space/published_bots_list.
type cozeSimpleBot struct {
	BotID       httpx.ID `json:"bot_id"`
	BotName     string   `json:"bot_name"`
	Description string   `json:"description"`
	IconURL     string   `json:"icon_url"`
	PublishTime string   `json:"publish_time"`
	FolderID    string   `json:"folder_id"`
}

// cozeListedBot is an item of GET /v1/bots; published_at is left out for
// a bot never published, as Coze does.
type cozeListedBot struct {
	ID          httpx.ID `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	IconURL     string   `json:"icon_url"`
	IsPublished bool     `json:"is_published"`
	PublishedAt int64    `json:"published_at,omitempty"`
	UpdatedAt   int64    `json:"updated_at"`
	OwnerUserID httpx.ID `json:"owner_user_id"`
}

// cozeVariableItem is an item of GET /v1/variables; the times are 0 when
// the default applies.
type cozeVariableItem struct {
	Keyword    string `json:"keyword"`
	Value      string `json:"value"`
	CreateTime int64  `json:"create_time"`
	UpdateTime int64  `json:"update_time"`
}
