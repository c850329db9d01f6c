package plugin

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/plugin"
)

// call is one tool call: the plugin, the spec and tool it runs, the
// checked arguments and, in a debug run, the trace to fill.
type call struct {
	pl    *plugin.Plugin
	spec  *plugin.Spec
	tool  *plugin.Tool
	args  map[string]any
	trace *DebugRun
}

// toolRef names a bound tool: a plugin, a version (0: the draft) and a
// tool, used by a bot of a workspace.
type toolRef struct {
	pluginID    int64
	version     int64
	tool        string
	workspaceID int64
}

// invoke runs a bound tool for the model and records the call. Every
// failure comes back as an error whose text the model can act on: an
// administrator's switch, a tool gone from the plugin, wrong arguments,
// a refused address, an HTTP error.
func (s *Service) invoke(ctx context.Context, ref toolRef, rawArgs string) (string, error) {
	start := time.Now()
	out, err := s.invokeRef(ctx, ref, rawArgs)
	s.stats.record(ref.pluginID, ref.tool, time.Since(start), err)
	return out, err
}

func (s *Service) invokeRef(ctx context.Context, ref toolRef, rawArgs string) (string, error) {
	pl, spec, err := s.load(ctx, ref.pluginID, ref.version)
	if err != nil {
		return "", err
	}
	if !pl.VisibleTo(ref.workspaceID) {
		return "", fmt.Errorf("plugin %d no longer exists", ref.pluginID)
	}
	if err := pl.Usable(ref.tool); err != nil {
		return "", err
	}
	t, ok := spec.Tool(ref.tool)
	if !ok {
		return "", fmt.Errorf("plugin %d (%s) has no tool %s any more", pl.ID, pl.Name, ref.tool)
	}
	args, err := plugin.DecodeArgs(rawArgs)
	if err != nil {
		return "", err
	}
	if err := plugin.CheckArgs(t.Schema, args); err != nil {
		return "", err
	}
	return s.dispatch(ctx, &call{pl: pl, spec: spec, tool: t, args: args})
}

// load returns a plugin with the spec of a version (0: its draft).
// Published versions never change, so their specs are cached.
func (s *Service) load(ctx context.Context, id, version int64) (*plugin.Plugin, *plugin.Spec, error) {
	get := s.d.Store.GetPlugin
	if version > 0 {
		get = s.d.Store.GetHead // the draft is not needed
	}
	pl, err := get(ctx, id)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, nil, fmt.Errorf("plugin %d no longer exists", id)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("load plugin %d: %w", id, err)
	}
	if version == 0 {
		return pl, &pl.Draft, nil
	}
	if spec, ok := s.versions.get(id, version); ok {
		return pl, spec, nil
	}
	v, err := s.d.Store.GetVersion(ctx, id, version)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, nil, fmt.Errorf("version %d of plugin %d no longer exists", version, id)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("load plugin %d version %d: %w", id, version, err)
	}
	s.versions.put(id, version, &v.Spec)
	return pl, &v.Spec, nil
}

// dispatch runs a checked call by the plugin's kind.
func (s *Service) dispatch(ctx context.Context, c *call) (string, error) {
	switch c.pl.Kind {
	case plugin.KindOpenAPI:
		return s.callHTTP(ctx, c)
	case plugin.KindMCP:
		return s.callMCP(ctx, c)
	case plugin.KindBuiltin:
		return s.callBuiltin(ctx, c)
	}
	return "", fmt.Errorf("plugin %d has an unknown kind %q", c.pl.ID, c.pl.Kind)
}

func (s *Service) callBuiltin(ctx context.Context, c *call) (string, error) {
	b, ok := s.builtins[c.pl.ID]
	if !ok || b.Invoke == nil {
		return "", fmt.Errorf("the built-in plugin %s is not available in this release", c.pl.Name)
	}
	c.trace.local("builtin://"+b.Key+"/"+c.tool.OperationID, c.args)
	out, err := b.Invoke(ctx, c.tool.OperationID, c.args)
	if err != nil {
		return "", err
	}
	out = truncate(out, maxResult)
	c.trace.localResult(out)
	return out, nil
}

func (s *Service) callMCP(ctx context.Context, c *call) (string, error) {
	srv, err := s.serverOf(ctx, c.pl, c.spec)
	if err != nil {
		return "", err
	}
	c.trace.mcp(srv, c.tool.OperationID, c.args, c.pl.Secrets())
	out, err := s.callSession(ctx, c, srv)
	if errors.Is(err, errDied) {
		out, err = s.callSession(ctx, c, srv) // a stdio server's process ended: once more, in a new one
	}
	if err != nil {
		return "", err
	}
	out = truncate(out, maxResult)
	c.trace.localResult(out)
	return out, nil
}

// errDied is a call that failed because the stdio server's connection
// ended: its process ended, before or while the call ran.
var errDied = errors.New("the MCP server's process ended")

// callSession calls the tool through the plugin's pooled session.
func (s *Service) callSession(ctx context.Context, c *call, srv MCPServer) (string, error) {
	sess, release, err := s.sessions.session(ctx, c.pl.ID, srv)
	if err != nil {
		return "", fmt.Errorf("cannot connect to the MCP server: %s", reason(err))
	}
	defer release()
	out, err := sess.CallTool(ctx, c.tool.OperationID, c.args)
	if err == nil {
		return out, nil
	}
	if errors.Is(err, errs.ErrUnavailable) {
		s.sessions.drop(c.pl.ID, sess) // the session broke: dial again next time
		if srv.Transport == plugin.TransportStdio && ctx.Err() == nil && !errors.Is(err, context.DeadlineExceeded) {
			return "", fmt.Errorf("%w: %s", errDied, reason(err))
		}
	}
	return "", fmt.Errorf("the MCP tool %s failed: %s", c.tool.OperationID, reason(err))
}
