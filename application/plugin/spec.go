package plugin

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/plugin"
	"github.com/pergola-ai/pergola/domain/plugin/openapi"
)

// source is what a plugin's tools are made from.
type source struct {
	kind      plugin.Kind
	document  string // OpenAPI
	serverURL string // OpenAPI: replaces the document's servers; MCP: the endpoint
	transport string // MCP
	// stdio MCP: what runs.
	command string
	args    []string
	env     map[string]string
}

// made is a spec built from a source, with what the builder should know.
type made struct {
	spec        plugin.Spec
	warnings    []string
	title, desc string // the document's info
}

// buildSpec parses an OpenAPI document or discovers an MCP server's tools.
// Errors match errs.ErrInvalid and name the field: openapi, server_url or
// transport.
func (s *Service) buildSpec(ctx context.Context, src source, auth plugin.Auth) (*made, error) {
	switch src.kind {
	case plugin.KindOpenAPI:
		res, err := openapi.Parse([]byte(src.document), src.serverURL)
		if err != nil {
			return nil, err
		}
		return &made{spec: plugin.Spec{Source: src.document, ServerURL: src.serverURL, Tools: res.Tools},
			warnings: res.Warnings, title: res.Title, desc: res.Description}, nil
	case plugin.KindMCP:
		return s.discover(ctx, src, auth)
	}
	return nil, errs.Invalid("kind", "must be openapi or mcp, got %q", src.kind)
}

// discover connects to an MCP server and lists its tools.
func (s *Service) discover(ctx context.Context, src source, auth plugin.Auth) (*made, error) {
	if s.d.MCP == nil {
		return nil, errs.Invalid("kind", "MCP plugins are not available on this server")
	}
	if src.transport == plugin.TransportStdio {
		return s.discoverStdio(ctx, src)
	}
	if src.command != "" || len(src.args) > 0 || len(src.env) > 0 {
		return nil, errs.Invalid("command", "only the stdio transport runs a command; this plugin's transport is %q", src.transport)
	}
	if err := plugin.ValidateServerURL("server_url", src.serverURL); err != nil {
		return nil, err
	}
	if src.transport == "" {
		src.transport = plugin.TransportStreamable
	}
	if src.transport != plugin.TransportStreamable && src.transport != plugin.TransportSSE {
		return nil, errs.Invalid("transport", "must be streamable, sse or stdio, got %q", src.transport)
	}
	server, err := s.mcpServer(ctx, src.serverURL, src.transport, auth, false)
	if err != nil {
		return nil, errs.Invalid("auth", "%v", err)
	}
	sess, err := s.d.MCP.Dial(ctx, server)
	if err != nil {
		return nil, errs.Invalid("server_url", "cannot connect to the MCP server at %s: %s", src.serverURL, reason(err))
	}
	defer sess.Close()
	listed, err := sess.ListTools(ctx)
	if err != nil {
		return nil, errs.Invalid("server_url", "the MCP server at %s did not list its tools: %s", src.serverURL, reason(err))
	}
	tools, err := mcpTools(listed, "server_url")
	if err != nil {
		return nil, err
	}
	return &made{spec: plugin.Spec{ServerURL: src.serverURL, Transport: src.transport, Tools: tools}}, nil
}

// mcpTools turns an MCP server's tools into plugin tools: names made to
// fit what models accept (the original kept to call it), schemas in the
// shape stored specs have.
func mcpTools(listed []MCPTool, field string) ([]plugin.Tool, error) {
	if len(listed) == 0 {
		return nil, errs.Invalid(field, "the MCP server offers no tools")
	}
	if len(listed) > plugin.MaxTools {
		return nil, errs.Invalid(field, "the MCP server offers %d tools; a plugin may have at most %d", len(listed), plugin.MaxTools)
	}
	taken := map[string]bool{}
	out := make([]plugin.Tool, 0, len(listed))
	for _, t := range listed {
		name := plugin.ToolName(t.Name)
		for i := 2; name == "" || taken[name]; i++ {
			name = plugin.ToolName(t.Name + "_" + strconv.Itoa(i))
		}
		taken[name] = true
		schema, err := objectSchema(t.InputSchema)
		if err != nil {
			return nil, errs.Invalid(field, "tool %s of the MCP server: input schema: %v", t.Name, err)
		}
		out = append(out, plugin.Tool{Name: name, OperationID: t.Name, Description: plugin.TrimDescription(t.Description), Schema: schema})
	}
	return out, nil
}

// objectSchema normalizes a tool's input schema through JSON: numbers
// become float64 as in a stored spec, and no schema becomes an object
// with no properties.
func objectSchema(in map[string]any) (map[string]any, error) {
	if len(in) == 0 {
		return map[string]any{"type": "object", "properties": map[string]any{}}, nil
	}
	b, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	if len(b) > plugin.MaxSchemaBytes {
		return nil, errors.New("larger than 64 KiB")
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	if out["type"] == nil {
		out["type"] = "object"
	}
	return out, nil
}
