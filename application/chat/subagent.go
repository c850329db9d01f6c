package chat

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/conversation"
)

// SubAgentLimits bound what sub-agents may do in one turn.
type SubAgentLimits struct {
	// Depth is how deep sub-agents may call sub-agents; 0 means
	// bot.DefaultSubAgentDepth.
	Depth int
	// TurnModelCalls bounds the model calls of one turn across the bot
	// and every sub-agent it runs; 0 means bot.DefaultTurnModelCalls.
	TurnModelCalls int
}

func (l SubAgentLimits) withDefaults() SubAgentLimits {
	if l.Depth <= 0 {
		l.Depth = bot.DefaultSubAgentDepth
	}
	if l.TurnModelCalls <= 0 {
		l.TurnModelCalls = bot.DefaultTurnModelCalls
	}
	return l
}

// ConversationOpener opens the conversation a sub-agent runs in; the
// conversation store implements it. It assigns the id and first section.
type ConversationOpener interface {
	CreateConversation(ctx context.Context, c *conversation.Conversation) error
}

// subAgentOrigin is the ToolOrigin of sub-agent tools.
const subAgentOrigin = "sub_agent"

// subAgentTool runs another bot of the workspace on a task the model
// writes, and answers with that bot's final answer.
type subAgentTool struct {
	s       *Service
	ref     bot.SubAgent
	name    string // the tool's name
	botName string // the sub-bot's name, for the model and messages
}

func (subAgentTool) ToolOrigin() string { return subAgentOrigin }

func (t subAgentTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{
		Name: t.name,
		Desc: t.ref.Description,
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
			"task": {Type: schema.String, Required: true, Desc: "the task for " + t.botName +
				", complete and self-contained: it sees nothing else of this conversation"},
		}),
	}, nil
}

// InvokableRun runs the sub-agent. What the model should know (no task,
// a sub-bot not published, a limit reached) comes back as the result. A
// question the sub-agent asks the end user ends the caller's turn with
// that question; the end user's next message answers it (see
// subAgentResumer).
func (t subAgentTool) InvokableRun(ctx context.Context, args string, _ ...tool.Option) (string, error) {
	var in struct {
		Task string `json:"task"`
	}
	if err := json.Unmarshal([]byte(args), &in); err != nil || strings.TrimSpace(in.Task) == "" {
		return `error: arguments must be {"task":"..."} with the task for ` + t.botName, nil
	}
	out, err := t.s.runSub(ctx, subRun{ref: t.ref, botName: t.botName, text: in.Task})
	if err != nil {
		return "", err
	}
	o, inChat := OutputFrom(ctx)
	switch {
	case !inChat:
	case out.question != nil:
		o.AnswerDelta(out.text)
		return out.question.payload(), o.AnswerDirectly()
	case out.answered && t.ref.ReturnDirectly:
		return out.text, o.AnswerDirectly()
	}
	return out.text, nil
}

// subAgentTools makes one tool per sub-agent of cfg, each named from its
// bot's name and unique among the tools the bot has already (a number is
// added when taken). A sub-bot that cannot be read is named by its id;
// calling it says why.
func (s *Service) subAgentTools(ctx context.Context, b *bot.Bot, cfg *bot.Config, have []tool.BaseTool) ([]tool.BaseTool, error) {
	if len(cfg.SubAgents) == 0 {
		return nil, nil
	}
	taken := map[string]bool{}
	for _, t := range have {
		info, err := t.Info(ctx)
		if err != nil {
			return nil, err
		}
		taken[info.Name] = true
	}
	var out []tool.BaseTool
	for _, ref := range cfg.SubAgents {
		name := s.subBotName(ctx, b.WorkspaceID, ref.BotID)
		tn := bot.SubAgentToolName(name, ref.BotID)
		for i := 2; taken[tn]; i++ {
			tn = bot.SubAgentToolName(name, ref.BotID) + "_" + strconv.Itoa(i)
		}
		taken[tn] = true
		out = append(out, subAgentTool{s: s, ref: ref, name: tn, botName: name})
	}
	return out, nil
}

// subBotName is a sub-bot's name as last published, or its draft's when
// it was never published; "bot {id}" when it cannot be read.
func (s *Service) subBotName(ctx context.Context, workspaceID, id int64) string {
	fallback := "bot " + strconv.FormatInt(id, 10)
	if s.d.Published == nil {
		return fallback
	}
	b, v, err := s.d.Published.ResolvePublished(ctx, id, ConnectorAPI)
	switch {
	case b == nil || b.WorkspaceID != workspaceID:
		return fallback
	case err == nil && v != nil && v.Config.Name != "":
		return v.Config.Name
	case b.Draft.Name != "":
		return b.Draft.Name
	}
	return fallback
}
