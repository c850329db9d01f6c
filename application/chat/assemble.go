package chat

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/llm"
)

// compiled is a bot version assembled into a ReAct agent. One react.Agent
// is safe for concurrent runs, so it is built once per version and shared;
// everything about a particular chat reaches the tools through the context.
type compiled struct {
	agent       *react.Agent
	model       model.ToolCallingChatModel // without tools: the last call at the round limit, follow-ups
	options     []model.Option
	modelID     string
	clientTools map[string]bool
	// agentOptions go to the agent's model calls only (a request's
	// tool_choice), not to the calls without tools.
	agentOptions []model.Option
	// format is a request's response format: on the calls that answer
	// (the agent's and the last call), not on follow-up suggestions.
	format []model.Option
	// sourced: tools from tool sources (workflows, plugins, tables), the
	// only ones that can leave a question open for the next message.
	sourced bool
	vision  bool // the model takes image parts
	// origins names where each tool comes from (ToolOrigin), and
	// descriptions what each does, for hooks.
	origins, descriptions map[string]string
}

// agentKey names a compiled agent: the bot, its version (or the draft's
// revision) and the model configuration it was built with.
func agentKey(b *bot.Bot, version int64, m *llm.Model) string {
	if version == 0 {
		return fmt.Sprintf("%d:draft:%d:%s:%d", b.ID, b.DraftRevision, m.ID, m.UpdatedAt.UnixNano())
	}
	return fmt.Sprintf("%d:v%d:%s:%d", b.ID, version, m.ID, m.UpdatedAt.UnixNano())
}

// agentFor returns the compiled agent of a bot configuration, building it
// only when this version was not built before.
func (s *Service) agentFor(ctx context.Context, b *bot.Bot, cfg *bot.Config, version int64) (*compiled, error) {
	m, err := s.d.Models.Get(ctx, cfg.Model.ModelID)
	if err != nil {
		return nil, fmt.Errorf("model of bot %d: %w", b.ID, err)
	}
	if !m.Enabled {
		return nil, errs.Invalid("model.model_id", "model %q is disabled; pick another model for bot %d", m.ID, b.ID)
	}
	if !m.IsChat() {
		return nil, errs.Invalid("model.model_id", "model %q is of kind %q, not a chat model; pick another model for bot %d", m.ID, m.KindOrChat(), b.ID)
	}
	if cfg.HasTools() && !m.Capabilities.Tools {
		return nil, errs.Invalid("model.model_id", "model %q does not support tools, but bot %d has tools", m.ID, b.ID)
	}
	key := agentKey(b, version, m)
	if c, ok := s.agents.get(key); ok {
		return c, nil
	}
	c, err := s.build(ctx, b, cfg, m)
	if err != nil {
		return nil, err
	}
	s.agents.put(key, c)
	return c, nil
}

func (s *Service) build(ctx context.Context, b *bot.Bot, cfg *bot.Config, m *llm.Model) (*compiled, error) {
	inner, err := s.d.ChatModels.ChatModel(ctx, *m)
	if err != nil {
		return nil, fmt.Errorf("build model %s: %w", m.ID, err)
	}
	cm := budgeted{inner: inner} // every call counts against the turn's budget
	tools, clients := botTools(cfg)
	if kt := knowledgeToolFor(cfg); kt != nil {
		tools = append(tools, kt)
	}
	own := len(tools)
	for _, src := range s.d.Tools {
		more, err := src.BotTools(ctx, b, cfg)
		if err != nil {
			return nil, fmt.Errorf("tools of bot %d: %w", b.ID, err)
		}
		tools = append(tools, more...)
	}
	subs, err := s.subAgentTools(ctx, b, cfg, tools)
	if err != nil {
		return nil, fmt.Errorf("sub-agents of bot %d: %w", b.ID, err)
	}
	tools = append(tools, subs...)
	sourced := len(tools) > own
	tools = append(tools, transferTools(cfg, toolNames(ctx, tools))...)
	if err := uniqueToolNames(ctx, b.ID, tools); err != nil {
		return nil, err
	}
	ag, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel: cm,
		ToolsConfig: compose.ToolsNodeConfig{
			Tools:               tools,
			ToolCallMiddlewares: []compose.ToolMiddleware{s.toolMiddleware()},
			UnknownToolsHandler: unknownTool,
		},
		MaxStep:               2*cfg.MaxToolRounds + 1, // model and tools per round, then the answer
		StreamToolCallChecker: scanForToolCalls,
	})
	if err != nil {
		return nil, fmt.Errorf("build agent: %w", err)
	}
	return &compiled{agent: ag, model: cm, options: modelOptions(cfg.Model), modelID: m.ID, clientTools: clients,
		sourced: sourced, vision: m.Capabilities.Vision, origins: toolOrigins(ctx, tools), descriptions: toolDescriptions(ctx, tools)}, nil
}

// toolOrigins maps each tool's name to where it comes from, for hooks.
func toolOrigins(ctx context.Context, tools []tool.BaseTool) map[string]string {
	out := make(map[string]string, len(tools))
	for _, t := range tools {
		info, err := t.Info(ctx)
		if o, ok := t.(ToolOrigin); ok && err == nil {
			out[info.Name] = o.ToolOrigin()
		}
	}
	return out
}

// toolDescriptions maps each tool's name to its description, for hooks.
func toolDescriptions(ctx context.Context, tools []tool.BaseTool) map[string]string {
	out := make(map[string]string, len(tools))
	for _, t := range tools {
		if info, err := t.Info(ctx); err == nil {
			out[info.Name] = info.Desc
		}
	}
	return out
}

func botTools(cfg *bot.Config) ([]tool.BaseTool, map[string]bool) {
	var tools []tool.BaseTool
	if len(cfg.Variables) > 0 {
		tools = append(tools, keywordMemoryTool{defs: cfg.Variables})
	}
	clients := map[string]bool{}
	for _, ct := range cfg.ClientTools {
		tools = append(tools, clientTool{spec: ct})
		clients[ct.Name] = true
	}
	return tools, clients
}

// uniqueToolNames refuses two tools of one bot with the same name (say a
// table named like a client tool): the model could not tell them apart.
func uniqueToolNames(ctx context.Context, botID int64, tools []tool.BaseTool) error {
	seen := map[string]bool{}
	for _, t := range tools {
		info, err := t.Info(ctx)
		if err != nil {
			return fmt.Errorf("tool of bot %d: %w", botID, err)
		}
		if seen[info.Name] {
			return errs.Invalid("tools", "bot %d has two tools named %q (a plugin tool, table or client tool); rename one", botID, info.Name)
		}
		seen[info.Name] = true
	}
	return nil
}

func modelOptions(ms bot.ModelSettings) []model.Option {
	var opts []model.Option
	if ms.Temperature != nil {
		opts = append(opts, model.WithTemperature(float32(*ms.Temperature)))
	}
	if ms.TopP != nil {
		opts = append(opts, model.WithTopP(float32(*ms.TopP)))
	}
	if ms.MaxTokens > 0 {
		opts = append(opts, model.WithMaxTokens(ms.MaxTokens))
	}
	return opts
}

// unknownTool answers a call of a tool the bot does not have, so the model
// can correct itself instead of the run failing.
func unknownTool(_ context.Context, name, _ string) (string, error) {
	return fmt.Sprintf("error: there is no tool named %q; use one of the tools you were given", name), nil
}

// scanForToolCalls reads a streamed model message until it finds a tool
// call or ends. eino's default checker stops at the first text, so a model
// that writes "Let me check." before calling a tool would never get its
// tool run.
func scanForToolCalls(_ context.Context, sr *schema.StreamReader[*schema.Message]) (bool, error) {
	defer sr.Close()
	for {
		m, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if len(m.ToolCalls) > 0 {
			return true, nil
		}
	}
}
