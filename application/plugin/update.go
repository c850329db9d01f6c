package plugin

import (
	"context"
	"fmt"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/plugin"
)

// Patch changes a plugin; nil fields are kept.
type Patch struct {
	Name        *string
	Description *string
	OpenAPI     *string
	ServerURL   *string // "" returns to the document's servers
	Transport   *string
	// Auth replaces the auth; secrets left empty keep the stored ones when
	// the type is the same.
	Auth *plugin.Auth
	// Command, Args and Env change what a stdio MCP server runs (platform
	// administrators only); Env replaces the whole environment.
	Command *string
	Args    *[]string
	Env     *map[string]string
}

// Update changes the draft of a plugin. A new document, server URL or
// transport (or, for MCP, new auth) rebuilds the tools; published versions
// are not touched, except that auth applies to all of them. It returns
// the plugin with the warnings of a new document. Access as for Create,
// on the plugin's workspace; built-ins cannot be changed
// (errs.ErrForbidden), and so is a change of what a stdio MCP server runs
// by anyone but a platform administrator; a concurrent change is
// errs.ErrConflict.
func (s *Service) Update(ctx context.Context, p identity.Principal, id int64, patch Patch) (*plugin.Plugin, []string, error) {
	pl, _, err := s.reachOwn(ctx, p, id)
	if err != nil {
		return nil, nil, err
	}
	if stdioChange(pl, patch) {
		if err := requireStdioAdmin(p); err != nil {
			return nil, nil, err
		}
	}
	src, err := s.d.Store.GetSource(ctx, id, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("update plugin %d: %w", id, err)
	}
	next := *pl
	next.Draft.Source = src
	if patch.Name != nil {
		next.Name = strings.TrimSpace(*patch.Name)
	}
	if patch.Description != nil {
		next.Description = strings.TrimSpace(*patch.Description)
	}
	if err := plugin.ValidateMeta(next.Name, next.Description); err != nil {
		return nil, nil, err
	}
	if patch.Auth != nil {
		a := *patch.Auth
		a.Normalize()
		a.KeepSecrets(pl.Auth)
		if err := a.Validate(); err != nil {
			return nil, nil, err
		}
		next.Auth = a
	}
	warnings, err := s.rebuild(ctx, &next, patch)
	if err != nil {
		return nil, nil, err
	}
	saved, err := s.d.Store.UpdatePlugin(ctx, pl.WorkspaceID, id, func(cur *plugin.Plugin) error {
		if cur.DraftRevision != pl.DraftRevision {
			return errs.Conflict("plugin %d changed while this update was prepared; reload it and try again", id)
		}
		cur.Name, cur.Description, cur.Auth, cur.Env, cur.Draft = next.Name, next.Description, next.Auth, next.Env, next.Draft
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("update plugin %d: %w", id, err)
	}
	return saved, warnings, nil
}

// rebuild makes the draft's tools again when what they come from changed.
func (s *Service) rebuild(ctx context.Context, next *plugin.Plugin, patch Patch) ([]string, error) {
	src := source{kind: next.Kind, document: next.Draft.Source, serverURL: next.Draft.ServerURL, transport: next.Draft.Transport,
		command: next.Draft.Command, args: next.Draft.Args, env: next.Env}
	changed := false
	if patch.Command != nil {
		src.command, changed = strings.TrimSpace(*patch.Command), true
	}
	if patch.Args != nil {
		src.args, changed = *patch.Args, true
	}
	if patch.Env != nil {
		src.env, changed = *patch.Env, true
	}
	if patch.OpenAPI != nil {
		if next.Kind != plugin.KindOpenAPI {
			return nil, errs.Invalid("openapi", "only an OpenAPI plugin has a document; this plugin is %s", next.Kind)
		}
		src.document, changed = *patch.OpenAPI, true
	}
	if patch.ServerURL != nil {
		src.serverURL, changed = strings.TrimSpace(*patch.ServerURL), true
	}
	if patch.Transport != nil {
		src.transport, changed = *patch.Transport, true
	}
	if patch.Transport != nil && *patch.Transport != next.Draft.Transport {
		leave(&src, patch) // a switch between stdio and HTTP leaves what the other needed
	}
	if patch.Auth != nil && next.Kind == plugin.KindMCP {
		changed = true // the server may offer other tools to other credentials
	}
	if !changed {
		return nil, nil
	}
	m, err := s.buildSpec(ctx, src, next.Auth)
	if err != nil {
		return nil, err
	}
	next.Draft = m.spec
	next.Env = nil
	if m.spec.Transport == plugin.TransportStdio {
		next.Env = src.env
	}
	return m.warnings, nil
}

// Refresh discovers the tools of an MCP plugin again, into its draft. It
// returns the plugin; access as for Update; a plugin that is not an MCP
// server is errs.ErrInvalid.
func (s *Service) Refresh(ctx context.Context, p identity.Principal, id int64) (*plugin.Plugin, error) {
	pl, _, err := s.reachOwn(ctx, p, id)
	if err != nil {
		return nil, err
	}
	if pl.Kind != plugin.KindMCP {
		return nil, errs.Invalid("kind", "only MCP plugins discover their tools; change an OpenAPI plugin's document instead")
	}
	transport := pl.Draft.Transport
	saved, _, err := s.Update(ctx, p, id, Patch{Transport: &transport})
	return saved, err
}

// leave clears what the draft's former transport needed and the patch
// does not give again: the URL of an HTTP server, or the command line of
// a stdio one.
func leave(src *source, patch Patch) {
	if src.transport == plugin.TransportStdio {
		if patch.ServerURL == nil {
			src.serverURL = ""
		}
		return
	}
	if patch.Command == nil {
		src.command = ""
	}
	if patch.Args == nil {
		src.args = nil
	}
	if patch.Env == nil {
		src.env = nil
	}
}
