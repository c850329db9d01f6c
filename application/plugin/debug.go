package plugin

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/plugin"
)

// DebugRun is what a builder sees of a tool's debug run: the request as it
// was sent (secrets masked), the answer, what the model would read, and
// how long it took.
type DebugRun struct {
	Tool     string
	Version  int64 // 0: the draft
	Request  DebugRequest
	Response *DebugResponse // nil when no answer came
	Result   string         // what the model would read, on success
	Error    string         // what the model would read, on failure
	Duration time.Duration
}

// DebugRequest is a request as it was sent.
type DebugRequest struct {
	Method  string
	URL     string
	Headers map[string]string
	Body    string
}

// DebugResponse is an answer as it came.
type DebugResponse struct {
	Status    int
	Headers   map[string]string
	Body      string
	Truncated bool
}

// maxDebugBody bounds the bodies a debug run shows.
const maxDebugBody = 64 << 10

// masked is what replaces a secret in a debug run.
const masked = "****"

// Debug runs one tool of a plugin with args (a JSON object) at a version
// (0: the draft) and reports the request, the answer and the timing. A
// call that fails (HTTP error, refused address) is a successful debug run
// whose Error says why. It needs the plugin scope and access to the
// plugin; an unknown plugin, version or tool is errs.ErrNotFound, a tool
// switched off by an administrator errs.ErrForbidden, and arguments that
// do not match the tool's schema errs.ErrInvalid saying what is wrong.
func (s *Service) Debug(ctx context.Context, p identity.Principal, id int64, toolName, args string, version int64) (*DebugRun, error) {
	pl, _, err := s.reach(ctx, p, id)
	if err != nil {
		return nil, err
	}
	if err := pl.Usable(toolName); err != nil {
		return nil, err
	}
	spec := &pl.Draft
	if version > 0 {
		v, err := s.d.Store.GetVersion(ctx, id, version)
		if err != nil {
			return nil, err
		}
		spec = &v.Spec
	}
	t, ok := spec.Tool(toolName)
	if !ok {
		return nil, errs.New(errs.ErrNotFound, "plugin %d has no tool %q; its tools are %s", id, toolName, strings.Join(spec.ToolNames(), ", "))
	}
	decoded, err := plugin.DecodeArgs(args)
	if err != nil {
		return nil, err
	}
	if err := plugin.CheckArgs(t.Schema, decoded); err != nil {
		return nil, err
	}
	run := &DebugRun{Tool: toolName, Version: version}
	start := time.Now() // durations by the monotonic clock, not Deps.Now
	out, err := s.dispatch(ctx, &call{pl: pl, spec: spec, tool: t, args: decoded, trace: run})
	run.Duration = time.Since(start)
	s.stats.record(id, toolName, run.Duration, err)
	if err != nil {
		run.Error = err.Error()
	} else {
		run.Result = out
	}
	return run, nil
}

// The trace methods fill a debug run; on a nil run (a bot's call) they do
// nothing.

func (r *DebugRun) request(req *http.Request, body []byte, secrets []string) {
	if r == nil {
		return
	}
	r.Request = DebugRequest{Method: req.Method, URL: mask(req.URL.String(), secrets), Headers: map[string]string{}}
	for k := range req.Header {
		r.Request.Headers[k] = mask(req.Header.Get(k), secrets)
	}
	r.Request.Body, _ = cut(mask(string(body), secrets))
}

func (r *DebugRun) response(resp *http.Response, body []byte) {
	if r == nil {
		return
	}
	d := &DebugResponse{Status: resp.StatusCode, Headers: map[string]string{}}
	for k := range resp.Header {
		d.Headers[k] = resp.Header.Get(k)
	}
	d.Body, d.Truncated = cut(string(body))
	r.Response = d
}

func (r *DebugRun) local(target string, args map[string]any) {
	if r == nil {
		return
	}
	b, _ := json.Marshal(args)
	r.Request = DebugRequest{Method: "CALL", URL: target, Headers: map[string]string{}, Body: string(b)}
}

func (r *DebugRun) mcp(srv MCPServer, tool string, args map[string]any, secrets []string) {
	if r == nil {
		return
	}
	b, _ := json.Marshal(map[string]any{"name": tool, "arguments": args})
	target := srv.URL
	if srv.Transport == plugin.TransportStdio {
		target = "stdio:" + srv.Command
	}
	r.Request = DebugRequest{Method: "tools/call", URL: mask(target, secrets), Headers: map[string]string{}, Body: mask(string(b), secrets)}
	for k, v := range srv.Headers {
		r.Request.Headers[k] = mask(v, secrets)
	}
	if strings.HasPrefix(strings.ToLower(r.Request.Headers["Authorization"]), "bearer ") {
		r.Request.Headers["Authorization"] = "Bearer " + masked // a fetched OAuth2 token too
	}
}

func (r *DebugRun) localResult(out string) {
	if r == nil {
		return
	}
	body, truncated := cut(out)
	r.Response = &DebugResponse{Status: http.StatusOK, Headers: map[string]string{}, Body: body, Truncated: truncated}
}

// mask hides each secret in s, as written and as URL-encoded.
func mask(s string, secrets []string) string {
	for _, sec := range secrets {
		if sec == "" {
			continue
		}
		s = strings.ReplaceAll(s, sec, masked)
		if esc := url.QueryEscape(sec); esc != sec {
			s = strings.ReplaceAll(s, esc, masked)
		}
	}
	return s
}

func cut(s string) (string, bool) {
	if len(s) <= maxDebugBody {
		return s, false
	}
	return truncate(s, maxDebugBody), true
}
