package plugin

import (
	"context"
	"slices"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/plugin"
)

// requireStdioAdmin fails with errs.ErrForbidden, saying why, unless the
// caller may make this server run a command: a platform administrator
// whose token is not restricted to workspaces and has the admin scope.
func requireStdioAdmin(p identity.Principal) error {
	if !p.IsAdmin {
		return errs.Forbidden("only platform administrators may register or change stdio MCP servers, because they run a command on the Pergola server " +
			"(a token restricted to workspaces never acts as an administrator); ask an administrator, or register an MCP server reachable over HTTP (transport streamable or sse)")
	}
	if !p.HasScope(identity.ScopeAdmin) {
		return errs.Forbidden("registering or changing a stdio MCP server runs a command on the Pergola server and needs a token with the %q scope", identity.ScopeAdmin)
	}
	return nil
}

// discoverStdio starts a stdio MCP server's command in its sandbox and
// lists its tools; the process ends once they are listed. Errors match
// errs.ErrInvalid and name command, args or env.
func (s *Service) discoverStdio(ctx context.Context, src source) (*made, error) {
	if src.serverURL != "" {
		return nil, errs.Invalid("server_url", "a stdio MCP server has no URL; give command and args instead")
	}
	if err := plugin.ValidateStdio(src.command, src.args, src.env); err != nil {
		return nil, err
	}
	server := MCPServer{Transport: plugin.TransportStdio, Command: src.command, Args: src.args, Env: src.env}
	sess, err := s.d.MCP.Dial(ctx, server)
	if err != nil {
		return nil, errs.Invalid("command", "cannot start the MCP server %s: %s", src.command, reason(err))
	}
	defer sess.Close()
	listed, err := sess.ListTools(ctx)
	if err != nil {
		return nil, errs.Invalid("command", "the MCP server %s did not list its tools: %s", src.command, reason(err))
	}
	tools, err := mcpTools(listed, "command")
	if err != nil {
		return nil, err
	}
	spec := plugin.Spec{Transport: plugin.TransportStdio, Command: src.command, Args: slices.Clone(src.args), Tools: tools}
	return &made{spec: spec}, nil
}

// stdioChange reports whether a patch makes a plugin's draft run another
// command than it did: a change of transport to stdio, or of the
// command, its arguments or environment of a stdio plugin. Refreshing the
// tools of an unchanged command is not one.
func stdioChange(pl *plugin.Plugin, patch Patch) bool {
	next := pl.Draft.Transport
	if patch.Transport != nil {
		next = *patch.Transport
	}
	if next != plugin.TransportStdio {
		return false
	}
	return pl.Draft.Transport != plugin.TransportStdio || patch.Command != nil || patch.Args != nil || patch.Env != nil
}
