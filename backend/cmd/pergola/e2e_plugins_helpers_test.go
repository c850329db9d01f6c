package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// weatherDoc is the OpenAPI document of the weather API the e2e tests
// register; its server is replaced by the test server's URL.
const weatherDoc = `openapi: 3.1.0
info:
  title: Weather
  description: Current weather by city.
  version: "1"
servers:
  - url: https://weather.example/v1
paths:
  /weather/{city}:
    get:
      operationId: getWeather
      summary: Current weather in a city
      parameters:
        - name: city
          in: path
          required: true
          schema: {type: string}
        - name: units
          in: query
          schema: {type: string, enum: [metric, imperial], default: metric}
      responses:
        "200": {description: the weather}
  /alerts:
    post:
      operationId: addAlert
      requestBody:
        required: true
        content:
          application/json:
            schema:
              $ref: "#/components/schemas/Alert"
      responses:
        "201": {description: created}
components:
  schemas:
    Alert:
      type: object
      required: [city, above]
      properties:
        city: {type: string}
        above: {type: [number, "null"]}
`

// weatherKey is the API key the weather API wants in X-Api-Key.
const weatherKey = "wk-e2e-secret-42"

// apiCall is a request the weather API received.
type apiCall struct {
	method, path, query, key, body string
}

// weatherAPI is an HTTP API on 127.0.0.1 that answers only with the key.
type weatherAPI struct {
	*httptest.Server
	mu    sync.Mutex
	calls []apiCall
}

func newWeatherAPI(t *testing.T) *weatherAPI {
	t.Helper()
	w := &weatherAPI{}
	w.Server = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.mu.Lock()
		w.calls = append(w.calls, apiCall{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("X-Api-Key"), string(body)})
		w.mu.Unlock()
		rw.Header().Set("Content-Type", "application/json")
		if r.Header.Get("X-Api-Key") != weatherKey {
			rw.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(rw, `{"error":"bad key"}`)
			return
		}
		city, _ := strings.CutPrefix(r.URL.Path, "/v1/weather/")
		json.NewEncoder(rw).Encode(map[string]any{"city": city, "temp": 21, "units": r.URL.Query().Get("units")})
	}))
	t.Cleanup(w.Close)
	return w
}

func (w *weatherAPI) seen() []apiCall {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]apiCall(nil), w.calls...)
}

// withEnv returns b with more server settings.
func withEnv(b backend, extra map[string]string) backend {
	return backend{name: b.name, env: func(t *testing.T) map[string]string {
		env := b.env(t)
		for k, v := range extra {
			env[k] = v
		}
		return env
	}}
}

// answerOf joins the answer deltas of a streamed chat.
func answerOf(t *testing.T, events []sseEvent) string {
	t.Helper()
	var b strings.Builder
	for _, e := range events {
		if e.name == "conversation.message.delta" {
			b.WriteString(str(e.obj(t), "content"))
		}
	}
	return b.String()
}

type sumIn struct {
	A float64 `json:"a" jsonschema:"the first number"`
	B float64 `json:"b" jsonschema:"the second number"`
}

// mcpServer is an MCP server on 127.0.0.1 over one transport, with an
// "add" tool (and "shout" once grown), that wants a bearer token.
type mcpServer struct {
	*httptest.Server
	server *sdk.Server
	mu     sync.Mutex
	auths  []string
}

func newMCPServer(t *testing.T, transport, token string) *mcpServer {
	t.Helper()
	m := &mcpServer{server: sdk.NewServer(&sdk.Implementation{Name: "e2e", Version: "1.0"}, nil)}
	sdk.AddTool(m.server, &sdk.Tool{Name: "math.add", Description: "Adds two numbers."},
		func(_ context.Context, _ *sdk.CallToolRequest, in sumIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("sum=%g", in.A+in.B)}}}, nil, nil
		})
	var h http.Handler = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return m.server }, nil)
	if transport == "sse" {
		h = sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return m.server }, nil)
	}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		m.auths = append(m.auths, r.Header.Get("Authorization"))
		m.mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "wrong token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	// Pergola keeps its MCP sessions open (an SSE stream never ends on its
	// own), so the connections are cut before the server closes. The
	// listener goes first: otherwise the client can reconnect between the
	// cut and Close, and Close waits on that stream for ever.
	t.Cleanup(func() { _ = m.Listener.Close(); m.CloseClientConnections(); m.Close() })
	return m
}

type shoutIn struct {
	Text string `json:"text" jsonschema:"what to shout"`
}

// grow adds a tool, as a server does when it is upgraded.
func (m *mcpServer) grow() {
	sdk.AddTool(m.server, &sdk.Tool{Name: "shout", Description: "Shouts."},
		func(_ context.Context, _ *sdk.CallToolRequest, in shoutIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.ToUpper(in.Text)}}}, nil, nil
		})
}
