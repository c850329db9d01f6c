package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pergola-ai/pergola/application/mcpserver"
)

// client is what one tools/call's MCP client can do: answer questions
// through elicitation when it declared it, and receive progress when the
// call carries a progress token.
type client struct {
	session *sdk.ServerSession
	token   any
}

func newClient(req *sdk.CallToolRequest) *client {
	c := &client{session: req.Session}
	if req.Params != nil {
		c.token = req.Params.GetProgressToken()
	}
	return c
}

// CanAsk reports whether the client declared the elicitation capability.
func (c *client) CanAsk() bool {
	init := c.session.InitializeParams()
	return init != nil && init.Capabilities != nil && init.Capabilities.Elicitation != nil
}

// Ask elicits an answer; ok is false when the user declined or cancelled.
func (c *client) Ask(ctx context.Context, q mcpserver.Question) (map[string]any, bool, error) {
	res, err := c.session.Elicit(ctx, &sdk.ElicitParams{Message: q.Message, RequestedSchema: q.Schema})
	if err != nil {
		return nil, false, err
	}
	return res.Content, res.Action == "accept", nil
}

// Progress sends a progress notification when the call asked for them.
// A failed send is ignored: progress is advisory.
func (c *client) Progress(ctx context.Context, done float64, message string) {
	if c.token == nil {
		return
	}
	_ = c.session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: c.token, Progress: done, Message: message})
}
