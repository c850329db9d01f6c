package bots

import (
	"strconv"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
)

// cozeBotRequest is the body of /v1/bot/create and /v1/bot/update. Every
// field but the ids is optional; on update an absent field keeps its
// value. Coze's top_k, presence_penalty, frequency_penalty and parameters
// are accepted and ignored.
type cozeBotRequest struct {
	SpaceID          idText          `json:"space_id"`
	BotID            idText          `json:"bot_id"`
	Name             *string         `json:"name"`
	Description      *string         `json:"description"`
	IconFileID       *string         `json:"icon_file_id"` // ignored until files exist
	PromptInfo       *cozePromptIn   `json:"prompt_info"`
	OnboardingInfo   *cozeOnboarding `json:"onboarding_info"`
	ModelInfoConfig  *cozeModelIn    `json:"model_info_config"`
	SuggestReplyInfo *cozeSuggestIn  `json:"suggest_reply_info"`
	PluginIDList     *cozePluginList `json:"plugin_id_list"`
	WorkflowIDList   *cozeFlowList   `json:"workflow_id_list"`
	Knowledge        *cozeKnowledge  `json:"knowledge"`
	// SubAgents replaces the bot's sub-agents when present (Pergola's).
	SubAgents *[]SubAgentDTO `json:"sub_agents"`
}

type cozePromptIn struct {
	Prompt *string `json:"prompt"`
}

type cozeOnboarding struct {
	Prologue           *string   `json:"prologue"`
	SuggestedQuestions *[]string `json:"suggested_questions"`
}

type cozeModelIn struct {
	ModelID        string   `json:"model_id"`
	Temperature    *float64 `json:"temperature"`
	TopP           *float64 `json:"top_p"`
	MaxTokens      *int     `json:"max_tokens"`
	ContextRound   *int     `json:"context_round"`
	ResponseFormat *string  `json:"response_format"`
}

type cozeSuggestIn struct {
	ReplyMode        *string `json:"reply_mode"`
	CustomizedPrompt *string `json:"customized_prompt"`
}

type cozePluginList struct {
	IDList []struct {
		PluginID idText `json:"plugin_id"`
		APIID    string `json:"api_id"`
	} `json:"id_list"`
}

type cozeFlowList struct {
	IDs []struct {
		ID idText `json:"id"`
	} `json:"ids"`
}

// apply writes the fields present in the request over cfg. Coze's SDKs
// send an empty name and description when the caller set none, so on
// update (keepEmpty) those empty strings keep the stored values.
func (r *cozeBotRequest) apply(cfg *bot.Config, keepEmpty bool) error {
	setText(&cfg.Name, r.Name, keepEmpty)
	setText(&cfg.Description, r.Description, keepEmpty)
	if r.PromptInfo != nil && r.PromptInfo.Prompt != nil {
		cfg.Prompt = *r.PromptInfo.Prompt
	}
	if o := r.OnboardingInfo; o != nil {
		setText(&cfg.Onboarding.Prologue, o.Prologue, false)
		if o.SuggestedQuestions != nil {
			cfg.Onboarding.SuggestedQuestions = *o.SuggestedQuestions
		}
	}
	if m := r.ModelInfoConfig; m != nil {
		m.apply(cfg)
	}
	if s := r.SuggestReplyInfo; s != nil {
		if err := s.apply(&cfg.SuggestReply); err != nil {
			return err
		}
	}
	if r.Knowledge != nil {
		if err := r.Knowledge.apply(&cfg.Knowledge, !keepEmpty); err != nil {
			return err
		}
	}
	if r.SubAgents != nil {
		subs, err := subAgentsToDomain(*r.SubAgents)
		if err != nil {
			return err
		}
		cfg.SubAgents = subs
	}
	return r.applyTools(cfg)
}

func setText(dst *string, v *string, keepEmpty bool) {
	if v != nil && (*v != "" || !keepEmpty) {
		*dst = *v
	}
}

func (m *cozeModelIn) apply(cfg *bot.Config) {
	if m.ModelID != "" {
		cfg.Model.ModelID = m.ModelID
	}
	if m.Temperature != nil {
		cfg.Model.Temperature = m.Temperature
	}
	if m.TopP != nil {
		cfg.Model.TopP = m.TopP
	}
	if m.MaxTokens != nil {
		cfg.Model.MaxTokens = *m.MaxTokens
	}
	if m.ContextRound != nil {
		cfg.HistoryRounds = *m.ContextRound
	}
	if f := m.ResponseFormat; f != nil {
		cfg.Model.ResponseFormat = *f
		if *f == "markdown" { // Coze's third format; Markdown is text
			cfg.Model.ResponseFormat = "text"
		}
	}
}

func (s *cozeSuggestIn) apply(dst *bot.SuggestReply) error {
	if s.CustomizedPrompt != nil {
		dst.Prompt = *s.CustomizedPrompt
	}
	if s.ReplyMode == nil {
		return nil
	}
	switch *s.ReplyMode {
	case "disable":
		dst.Enabled = false
	case "enable":
		dst.Enabled, dst.Prompt = true, ""
	case "customized":
		if dst.Prompt == "" {
			return errs.Invalid("suggest_reply_info.customized_prompt", "is required with reply_mode customized")
		}
		dst.Enabled = true
	default:
		return errs.Invalid("suggest_reply_info.reply_mode", "must be disable, enable or customized; got %q", *s.ReplyMode)
	}
	return nil
}

// applyTools converts plugin and workflow bindings; the use case decides
// whether they can be bound.
func (r *cozeBotRequest) applyTools(cfg *bot.Config) error {
	if r.PluginIDList != nil {
		cfg.Plugins = nil
		for i, p := range r.PluginIDList.IDList {
			id, err := p.PluginID.parse("plugin_id_list.id_list["+strconv.Itoa(i)+"].plugin_id", true)
			if err != nil {
				return err
			}
			cfg.Plugins = append(cfg.Plugins, bot.PluginTool{PluginID: id, Tool: p.APIID})
		}
	}
	if r.WorkflowIDList != nil {
		cfg.Workflows = nil
		for i, w := range r.WorkflowIDList.IDs {
			id, err := w.ID.parse("workflow_id_list.ids["+strconv.Itoa(i)+"].id", true)
			if err != nil {
				return err
			}
			cfg.Workflows = append(cfg.Workflows, bot.WorkflowRef{WorkflowID: id})
		}
	}
	return nil
}
