package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pergola-ai/pergola/application/mcpserver"
)

// instructions tell the client's model what the server offers.
const instructions = "Pergola's published bots (chat_* tools: send a message, pass the conversation_id of an answer to continue " +
	"the conversation) and published workflows (wf_* tools: the workflow's parameters in, its output out). " +
	"Resources describe each tool (pergola://bots/{id}, pergola://workflows/{id}) and hold a conversation's messages " +
	"(pergola://conversations/{conversation_id}/messages); prompts are the bots' published prompts."

// newServer returns the one MCP server every session shares. Its tools are
// not registered with the SDK: a receiving middleware answers tools/list
// and tools/call from the caller's own tools on every request, so a token
// never sees or calls another workspace's tools and a publication shows at
// once.
func newServer(tools *mcpserver.Service, log *slog.Logger, version string, d serverDeps) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "pergola", Title: "Pergola", Version: version}, &sdk.ServerOptions{
		Instructions: instructions, Logger: log,
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{ListChanged: true},
			Resources: &sdk.ResourceCapabilities{ListChanged: true}, Prompts: &sdk.PromptCapabilities{ListChanged: true}},
	})
	s.AddReceivingMiddleware(toolsMiddleware(tools, &lists{server: s, n: d.n, seen: d.seen}, d.calls))
	return s
}

// serverDeps is what a server shares with others: on one process the
// notifier watching its session; across processes where what sessions
// list is kept, and the calls a cancellation reaching any process
// cancels. Each may be nil.
type serverDeps struct {
	n     *notifier
	seen  *seenStore
	calls *calls
}

// toolsMiddleware answers tools/list and tools/call, the resources and
// the prompts; everything else goes to the SDK.
func toolsMiddleware(tools *mcpserver.Service, seen *lists, running *calls) sdk.Middleware {
	return func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if cursorOf(req) != "" {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
					Message: method + ": invalid cursor: every list is one page and gives no nextCursor; send no cursor"}
			}
			switch method {
			case "tools/list":
				return listTools(ctx, tools, req, seen)
			case "tools/call":
				call, ok := req.(*sdk.CallToolRequest)
				if !ok {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "tools/call: unexpected parameters"}
				}
				if running != nil {
					var done func()
					ctx, done = running.start(ctx, call)
					defer done()
				}
				return callTool(ctx, tools, call)
			case "resources/list":
				return listResources(ctx, tools, req)
			case "resources/templates/list":
				return listTemplates()
			case "resources/read":
				return readResource(ctx, tools, req)
			case "prompts/list":
				return listPrompts(ctx, tools, req, seen)
			case "prompts/get":
				return getPrompt(ctx, tools, req)
			}
			return next(ctx, method, req)
		}
	}
}

// cursorOf returns the cursor of a list request ("" for none or another
// request).
func cursorOf(req sdk.Request) string {
	var cursor *string
	switch p := req.GetParams().(type) {
	case *sdk.ListToolsParams:
		if p != nil {
			cursor = &p.Cursor
		}
	case *sdk.ListResourcesParams:
		if p != nil {
			cursor = &p.Cursor
		}
	case *sdk.ListResourceTemplatesParams:
		if p != nil {
			cursor = &p.Cursor
		}
	case *sdk.ListPromptsParams:
		if p != nil {
			cursor = &p.Cursor
		}
	}
	if cursor == nil {
		return ""
	}
	return *cursor
}

func listTools(ctx context.Context, tools *mcpserver.Service, req sdk.Request, seen *lists) (sdk.Result, error) {
	p, ok := principalOf(req)
	if !ok {
		return nil, errUnauthenticated
	}
	list, err := tools.Tools(ctx, p)
	if err != nil {
		return nil, internal(err)
	}
	seen.tools(ctx, req, p, list)
	out := &sdk.ListToolsResult{Tools: make([]*sdk.Tool, 0, len(list))}
	for _, t := range list {
		tool := &sdk.Tool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema}
		if t.OutputSchema != nil {
			tool.OutputSchema = t.OutputSchema
		}
		out.Tools = append(out.Tools, tool)
	}
	return out, nil
}

func callTool(ctx context.Context, tools *mcpserver.Service, req *sdk.CallToolRequest) (sdk.Result, error) {
	p, ok := principalOf(req)
	if !ok {
		return nil, errUnauthenticated
	}
	if req.Params == nil || req.Params.Name == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "tools/call: name is required"}
	}
	res, err := tools.Call(ctx, p, req.Params.Name, json.RawMessage(req.Params.Arguments), newClient(req))
	if errors.Is(err, mcpserver.ErrUnknownTool) {
		// As the SDK answers an unknown tool: whether it exists in a
		// workspace the token does not reach is not the caller's to learn.
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "unknown tool \"" + req.Params.Name + "\""}
	}
	if err != nil {
		return nil, internal(err)
	}
	out := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: res.Text}}, IsError: res.IsError}
	if res.Structured != nil {
		out.StructuredContent = res.Structured
	}
	return out, nil
}

var errUnauthenticated = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "the request carries no authenticated caller"}

// internal hides Pergola's own failures behind a short message.
func internal(err error) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error: " + firstLine(err.Error())}
}

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}
