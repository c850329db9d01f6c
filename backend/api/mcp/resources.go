package mcp

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pergola-ai/pergola/application/mcpserver"
)

// listResources answers resources/list: the caller's bots and workflows.
func listResources(ctx context.Context, svc *mcpserver.Service, req sdk.Request) (sdk.Result, error) {
	p, ok := principalOf(req)
	if !ok {
		return nil, errUnauthenticated
	}
	list, err := svc.Resources(ctx, p)
	if err != nil {
		return nil, internal(err)
	}
	out := &sdk.ListResourcesResult{Resources: make([]*sdk.Resource, 0, len(list))}
	for _, r := range list {
		out.Resources = append(out.Resources, &sdk.Resource{URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType})
	}
	return out, nil
}

// listTemplates answers resources/templates/list.
func listTemplates() (sdk.Result, error) {
	list := mcpserver.Templates()
	out := &sdk.ListResourceTemplatesResult{ResourceTemplates: make([]*sdk.ResourceTemplate, 0, len(list))}
	for _, t := range list {
		out.ResourceTemplates = append(out.ResourceTemplates, &sdk.ResourceTemplate{URITemplate: t.URITemplate, Name: t.Name,
			Description: t.Description, MIMEType: t.MIMEType})
	}
	return out, nil
}

// readResource answers resources/read; a URI out of the caller's reach is
// the protocol's "resource not found".
func readResource(ctx context.Context, svc *mcpserver.Service, req sdk.Request) (sdk.Result, error) {
	p, ok := principalOf(req)
	if !ok {
		return nil, errUnauthenticated
	}
	read, ok := req.(*sdk.ReadResourceRequest)
	if !ok || read.Params == nil || read.Params.URI == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "resources/read: uri is required"}
	}
	uri := read.Params.URI
	text, err := svc.ReadResource(ctx, p, uri)
	if errors.Is(err, mcpserver.ErrUnknownResource) {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, internal(err)
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "application/json", Text: text}}}, nil
}

// listPrompts answers prompts/list: the caller's bots' prompts.
func listPrompts(ctx context.Context, svc *mcpserver.Service, req sdk.Request, seen *lists) (sdk.Result, error) {
	p, ok := principalOf(req)
	if !ok {
		return nil, errUnauthenticated
	}
	list, err := svc.Prompts(ctx, p)
	if err != nil {
		return nil, internal(err)
	}
	seen.prompts(ctx, req, p, list)
	out := &sdk.ListPromptsResult{Prompts: make([]*sdk.Prompt, 0, len(list))}
	for _, pr := range list {
		out.Prompts = append(out.Prompts, &sdk.Prompt{Name: pr.Name, Title: pr.Title, Description: pr.Description})
	}
	return out, nil
}

// getPrompt answers prompts/get with the bot's prompt as one user
// message, to use as the instructions of a conversation.
func getPrompt(ctx context.Context, svc *mcpserver.Service, req sdk.Request) (sdk.Result, error) {
	p, ok := principalOf(req)
	if !ok {
		return nil, errUnauthenticated
	}
	get, ok := req.(*sdk.GetPromptRequest)
	if !ok || get.Params == nil || get.Params.Name == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "prompts/get: name is required"}
	}
	pr, err := svc.GetPrompt(ctx, p, get.Params.Name)
	if errors.Is(err, mcpserver.ErrUnknownPrompt) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "unknown prompt \"" + get.Params.Name + "\""}
	}
	if err != nil {
		return nil, internal(err)
	}
	return &sdk.GetPromptResult{Description: pr.Description,
		Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: pr.Text}}}}, nil
}
