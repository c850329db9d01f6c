package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/pergola-ai/pergola/idl"
)

// publicRoutes answer without a token by design; the walk skips them.
var publicRoutes = map[string]string{
	"GET /healthz":      "liveness probe",
	"GET /readyz":       "readiness probe",
	"GET /metrics":      "Prometheus scrapes without a token",
	"GET /openapi.yaml": "the contract is public",
	"GET /.well-known/oauth-protected-resource":     "MCP: how to authenticate (RFC 9728 metadata is public)",
	"GET /.well-known/oauth-protected-resource/mcp": "MCP: how to authenticate (RFC 9728 metadata is public)",
	"POST /api/auth/login":                          "sign-in: the password is the credential",
	"POST /channels/{kind}/{channel_id}":            "platform webhooks: each kind verifies its platform's signature",
	"POST /v1/triggers/{id}/webhook":                "trigger webhooks: the trigger's secret (HMAC signature or header) authenticates",
	"GET /embed.js":                                 "web chat: the embed script",
	"GET /chat/assets/widget.js":                    "web chat: the widget script",
	"GET /chat/assets/favicon.svg":                  "web chat: the hosted page's icon",
	"GET /chat/{channel_id}":                        "web chat: the hosted page",
	"GET /chat/{channel_id}/config":                 "web chat: the end user's site token is the credential",
	"POST /chat/{channel_id}/session":               "web chat: the end user's site token is the credential",
	"GET /chat/{channel_id}/messages":               "web chat: the end user's session is the credential",
	"POST /chat/{channel_id}/messages":              "web chat: the end user's session is the credential",
	"POST /chat/{channel_id}/reset":                 "web chat: the end user's session is the credential",
	"OPTIONS /chat/{channel_id}/config":             "web chat: CORS preflight",
	"OPTIONS /chat/{channel_id}/session":            "web chat: CORS preflight",
	"OPTIONS /chat/{channel_id}/messages":           "web chat: CORS preflight",
	"OPTIONS /chat/{channel_id}/reset":              "web chat: CORS preflight",
}

// ownReach are the routes a token restricted to another workspace may
// call: they show the caller and what its token reaches. Their answer to
// it must not name anything of the workspace it is not restricted to.
var ownReach = map[string]string{
	"GET /api/me":                  "the caller's user",
	"GET /v1/users/me":             "the caller's user",
	"POST /api/auth/logout":        "ends the caller's own session",
	"GET /api/workspaces":          "the workspaces the token reaches",
	"GET /v1/workspaces":           "the workspaces the token reaches",
	"GET /api/tokens":              "the tokens no broader than the caller's",
	"POST /api/tokens":             "mints a token no broader than the caller's",
	"GET /api/models":              "the platform's models, which every builder picks from",
	"GET /v1/models":               "the published bots of the workspaces the token reaches",
	"POST /v1/embeddings":          "embeds the texts it is sent with a platform model, which every builder picks from",
	"GET /api/workflow-nodes":      "the node catalog",
	"POST /api/workflows/validate": "checks a definition it is sent",
	"GET /mcp":                     "MCP: lists only the tools of the workspaces the token reaches",
	"POST /mcp":                    "MCP: lists only the tools of the workspaces the token reaches",
	"DELETE /mcp":                  "MCP: ends the caller's own session",
}

// walkRoute is one documented operation.
type walkRoute struct{ method, path string }

func (r walkRoute) key() string { return r.method + " " + r.path }

// documentedRoutes returns every operation of the merged OpenAPI document.
func documentedRoutes(t *testing.T) []walkRoute {
	t.Helper()
	b, err := idl.Merged()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]any `yaml:"paths"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var out []walkRoute
	for path, item := range doc.Paths {
		for _, m := range []string{"get", "put", "post", "delete", "patch", "options", "head"} {
			if _, ok := item[m]; ok {
				out = append(out, walkRoute{strings.ToUpper(m), path})
			}
		}
	}
	return out
}

// walkFixture is a workspace full of objects that the walk's tokens must
// not reach, and the ids that fill a route's parameters.
type walkFixture struct {
	ids     map[string]string // resource -> id in the foreign workspace
	markers []string          // what must never appear in an answer to them
}

var pathParam = regexp.MustCompile(`\{([^}]+)\}`)

// url fills r's path parameters with the fixture's ids and adds every
// query parameter a route might read the workspace or object from.
func (f walkFixture) url(r walkRoute) string {
	segs := strings.Split(strings.TrimPrefix(strings.TrimPrefix(r.path, "/api/admin"), "/api"), "/")
	resource := ""
	if len(segs) > 1 {
		resource = segs[1]
	}
	p := pathParam.ReplaceAllStringFunc(r.path, func(m string) string {
		name := m[1 : len(m)-1]
		if name == "id" {
			name = resource
		}
		if id, ok := f.ids[name]; ok {
			return id
		}
		return "1"
	})
	q := url.Values{}
	for _, k := range []string{"workspace_id", "space_id", "bot_id", "workflow_id", "conversation_id", "dataset_id"} {
		q.Set(k, f.ids[k])
	}
	q.Set("chat_id", "1")
	q.Set("file_id", "1")
	q.Set("message_id", "1")
	return p + "?" + q.Encode()
}

// body is a JSON body naming the foreign workspace and its objects in
// every field a route might read them from.
func (f walkFixture) body(r walkRoute) string {
	if strings.HasPrefix(r.path, "/api/") { // console routes refuse unknown fields
		b, _ := json.Marshal(map[string]any{"workspace_id": f.ids["workspace_id"], "name": "walk"})
		return string(b)
	}
	b, _ := json.Marshal(map[string]any{
		"workspace_id": f.ids["workspace_id"], "space_id": f.ids["workspace_id"], "bot_id": f.ids["bot_id"],
		"workflow_id": f.ids["workflow_id"], "conversation_id": f.ids["conversation_id"], "name": "walk",
		"dataset_id": f.ids["dataset_id"],
		"model":      f.ids["bot_id"], "user_id": "u1", "input": "hi", "parameters": map[string]any{},
		"messages":            []map[string]any{{"role": "user", "content": "hi"}},
		"additional_messages": []map[string]any{{"role": "user", "content": "hi", "content_type": "text"}},
	})
	return string(b)
}

// do sends one request and returns its status and body.
func (s *testServer) do(t *testing.T, method, path, token, body string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" && method != "GET" && method != "OPTIONS" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json, text/event-stream")
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(b)
}
