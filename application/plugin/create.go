package plugin

import (
	"context"
	"fmt"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/plugin"
)

// Input is what a builder gives to register a plugin.
type Input struct {
	Kind        plugin.Kind // openapi (default) or mcp
	Name        string      // default: the document's title
	Description string      // default: the document's description
	OpenAPI     string      // the OpenAPI 3.0/3.1 document, JSON or YAML
	// ServerURL replaces the document's servers (openapi) or is the MCP
	// endpoint (mcp).
	ServerURL string
	Transport string // mcp: streamable (default), sse or stdio
	Auth      plugin.Auth
	// Command, Args and Env are what a stdio MCP server runs (platform
	// administrators only); Env's values are secrets.
	Command string
	Args    []string
	Env     map[string]string
}

// Create registers a plugin in a workspace: an OpenAPI document whose
// operations become tools, or an MCP server whose tools are discovered.
// The caller becomes its creator; it is enabled and unpublished. It
// returns the plugin with warnings about operations left out. It needs
// the plugin scope and membership of the workspace (errs.ErrForbidden);
// a wrong input is errs.ErrInvalid naming the field and, for a document,
// the operation; a name taken in the workspace is errs.ErrConflict. A
// stdio MCP server runs a command on this server: only a platform
// administrator may register one (errs.ErrForbidden saying so), and its
// command is started here to list its tools.
func (s *Service) Create(ctx context.Context, p identity.Principal, workspaceID int64, in Input) (*plugin.Plugin, []string, error) {
	if err := s.member(ctx, p, workspaceID); err != nil {
		return nil, nil, err
	}
	if in.Kind == "" {
		in.Kind = plugin.KindOpenAPI
	}
	if in.Kind != plugin.KindOpenAPI && in.Kind != plugin.KindMCP {
		return nil, nil, errs.Invalid("kind", "must be openapi or mcp, got %q", in.Kind)
	}
	if in.Kind == plugin.KindMCP && in.Transport == plugin.TransportStdio {
		if err := requireStdioAdmin(p); err != nil {
			return nil, nil, err
		}
	}
	in.Auth.Normalize()
	if err := in.Auth.Validate(); err != nil {
		return nil, nil, err
	}
	m, err := s.buildSpec(ctx, source{kind: in.Kind, document: in.OpenAPI, serverURL: strings.TrimSpace(in.ServerURL), transport: in.Transport,
		command: strings.TrimSpace(in.Command), args: in.Args, env: in.Env}, in.Auth)
	if err != nil {
		return nil, nil, err
	}
	name, desc := strings.TrimSpace(in.Name), strings.TrimSpace(in.Description)
	if name == "" {
		name = strings.TrimSpace(m.title)
	}
	if desc == "" {
		desc = plugin.TrimDescription(m.desc)
	}
	if err := plugin.ValidateMeta(name, desc); err != nil {
		return nil, nil, err
	}
	pl := &plugin.Plugin{WorkspaceID: workspaceID, CreatorID: p.UserID, Kind: in.Kind, Name: name, Description: desc,
		Auth: in.Auth, Env: in.Env, Draft: m.spec, Enabled: true}
	if err := s.d.Store.CreatePlugin(ctx, pl); err != nil {
		return nil, nil, fmt.Errorf("create plugin: %w", err)
	}
	return pl, m.warnings, nil
}
