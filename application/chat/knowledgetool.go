package chat

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/bot"
)

// knowledgeTool is search_knowledge, the tool of a bot whose knowledge is
// recalled on demand: the model calls it with a query when it decides the
// bot's documents may answer. It is built once per bot version and reads
// the run (workspace, chat) from the context.
type knowledgeTool struct {
	settings bot.KnowledgeSettings
}

// knowledgeToolFor returns the search tool of a bot, or nil when its
// knowledge is recalled automatically or it binds none.
func knowledgeToolFor(cfg *bot.Config) tool.BaseTool {
	if !cfg.Knowledge.OnDemand() {
		return nil
	}
	return knowledgeTool{settings: cfg.Knowledge}
}

func (knowledgeTool) ToolOrigin() string { return "knowledge" }

func (knowledgeTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{
		Name: bot.KnowledgeTool,
		Desc: "Search the bot's knowledge bases (its documents) for passages that answer a question. " +
			"Call it whenever the user asks something the documents may cover; cite the documents you use.",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
			"query": {Type: schema.String, Required: true, Desc: "what to look for, as a short self-contained question or keywords"},
		}),
	}, nil
}

// InvokableRun recalls with the model's query and answers it the numbered
// passages. A failed recall is a result the model reads, not a failed run.
func (t knowledgeTool) InvokableRun(ctx context.Context, args string, _ ...tool.Option) (string, error) {
	var in struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal([]byte(args), &in); err != nil || strings.TrimSpace(in.Query) == "" {
		return `error: arguments must be {"query":"..."} with a non-empty query`, nil
	}
	rs := runFrom(ctx)
	_, history := turnQuery(rs.t.input)
	hits, err := rs.s.recall(ctx, rs, t.settings, in.Query, history, compose.GetToolCallID(ctx))
	if err != nil {
		return "error: the knowledge bases cannot be searched right now; answer without them and say so", nil
	}
	return knowledgeToolResult(hits), nil
}
