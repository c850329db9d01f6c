package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// TestServeAnswersTheCozeContract starts the real server on each back end,
// bootstrapped with a PAT, and checks what a Coze SDK would see.
func TestServeAnswersTheCozeContract(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			s := startServer(t, b.env(t))

			health := s.call(t, "GET", "/healthz", "", nil)
			if health.status != 200 || health.header.Get("X-Tt-Logid") == "" {
				t.Fatalf("healthz: %d, logid %q", health.status, health.header.Get("X-Tt-Logid"))
			}
			ready := s.call(t, "GET", "/readyz", "", nil)
			if ready.status != 200 || ready.raw["status"] != "ok" {
				t.Fatalf("readyz: %d %v", ready.status, ready.raw)
			}
			if b.name != "sqlite" {
				checks, _ := ready.raw["checks"].(map[string]any)
				if checks["redis"] != "ok" || checks["database"] != "ok" {
					t.Fatalf("readyz does not check Redis and the database: %v", ready.raw)
				}
			}

			me := s.call(t, "GET", "/v1/users/me", bootstrapToken, nil).must(t, 200)
			if str(me.data, "user_id") == "" || str(me.data, "nick_name") != "admin" || me.data["avatar_url"] == nil {
				t.Fatalf("users/me data = %v", me.data)
			}
			ws := s.call(t, "GET", "/v1/workspaces?page_num=1&page_size=20", bootstrapToken, nil).must(t, 200)
			list := items(t, ws.data, "workspaces")
			if len(list) != 1 || str(list[0], "role_type") != "owner" || str(list[0], "workspace_type") != "personal" || str(list[0], "id") == "" {
				t.Fatalf("workspaces = %v", ws.data)
			}
			if ws.data["total_count"] != float64(1) {
				t.Fatalf("total_count = %v", ws.data["total_count"])
			}

			s.call(t, "GET", "/v1/users/me", "", nil).fails(t, 401, 4100, "token")
			s.call(t, "GET", "/v1/workspaces", "pat_wrong", nil).fails(t, 401, 4100,
				"authentication is invalid: this server knows no such token (check it was copied whole")
			s.call(t, "GET", "/v1/workspaces", "pat_wrong", nil).fails(t, 401, 4100, "get a new personal access token in the console")
			checkNoBearerPrefix(t, s)
			nf := s.call(t, "GET", "/v3/nothing-here", bootstrapToken, nil) // under /v1, OpenAI's shape (TestOpenAIModelsAndErrors)
			nf.fails(t, 404, 4200, "no route")
			if nf.header.Get("X-Tt-Logid") == "" {
				t.Fatal("404 answer has no X-Tt-Logid")
			}
		})
	}
}

// checkNoBearerPrefix: a token sent without "Bearer " is refused with
// a message saying how the header must read.
func checkNoBearerPrefix(t *testing.T, s *testServer) {
	t.Helper()
	req, _ := http.NewRequest("GET", s.base+"/v1/workspaces", nil)
	req.Header.Set("Authorization", bootstrapToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct{ Msg string }
	_ = json.NewDecoder(resp.Body).Decode(&body)
	if resp.StatusCode != 401 || !strings.Contains(body.Msg, "the Authorization header must read Bearer <token>") {
		t.Fatalf("a token without Bearer = %d %q; want 401 saying how the header reads", resp.StatusCode, body.Msg)
	}
}

func TestOpsEndpoints(t *testing.T) {
	s := startServer(t, nil)
	s.call(t, "GET", "/v1/users/me", bootstrapToken, nil).must(t, 200)

	resp, err := http.Get(s.base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `pergola_http_requests_total{method="GET",route="/v1/users/me",status="200"} 1`) {
		t.Fatalf("metrics lack the request count by route and status:\n%.2000s", body)
	}
	if !strings.Contains(string(body), "pergola_http_request_duration_seconds_bucket") {
		t.Fatal("metrics lack the latency histogram")
	}

	resp, err = http.Get(s.base + "/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(doc), "/v1/users/me") || !strings.Contains(string(doc), "openapi: 3.") {
		t.Fatalf("openapi.yaml: %d %.300s", resp.StatusCode, doc)
	}
}

func TestBadSettingStopsTheStartNamingIt(t *testing.T) {
	cases := map[string]map[string]string{
		"PERGOLA_REDIS_ADDR":  {"PERGOLA_REDIS_ADDR": "127.0.0.1:1"},
		"PERGOLA_SECRET_KEY":  {"PERGOLA_SECRET_KEY": "too-short"},
		"PERGOLA_MODELS_FILE": {"PERGOLA_MODELS_FILE": "/nonexistent/models.yaml"},
		"PERGOLA_ADDR":        {"PERGOLA_ADDR": "nonsense"},
	}
	for setting, env := range cases {
		t.Run(setting, func(t *testing.T) {
			env["PERGOLA_DATA_DIR"] = t.TempDir()
			lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
			err := serve(context.Background(), lookup, nil)
			if err == nil || !strings.Contains(err.Error(), setting) {
				t.Fatalf("error %v does not name %s", err, setting)
			}
		})
	}
}

func TestLimits(t *testing.T) {
	s := startServer(t, map[string]string{"PERGOLA_RATE_LIMIT": "5", "PERGOLA_MAX_BODY_BYTES": "2048"})
	big := `{"name":"` + strings.Repeat("x", 4096) + `"}`
	s.call(t, "POST", "/api/workspaces", bootstrapToken, big).fails(t, 413, 4001, "limit is 2048")
	for i := 0; i < 5; i++ { // the refused body never reached the limiter
		s.call(t, "GET", "/api/me", bootstrapToken, nil).must(t, 200)
	}
	r := s.call(t, "GET", "/api/me", bootstrapToken, nil)
	r.fails(t, 429, 4013, "rate limit of 5")
	if r.header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}
}

// TestGracefulShutdownFinishesInFlightRequests stops the server while a
// model test is waiting on a slow model; the request still completes.
func TestGracefulShutdownFinishesInFlightRequests(t *testing.T) {
	llm := fakellm.New(fakellm.WithFirstTokenLatency(700 * time.Millisecond))
	url, err := llm.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer llm.Close()
	s := startServer(t, nil)
	s.call(t, "POST", "/api/admin/models", bootstrapToken, map[string]any{
		"id": "slow", "provider": "openai", "base_url": url, "api_key": "k", "model": "fake",
	}).must(t, 201)

	got := make(chan reply, 1)
	go func() { got <- s.call(t, "POST", "/api/admin/models/slow/test", bootstrapToken, nil) }()
	for deadline := time.Now().Add(10 * time.Second); len(llm.Requests()) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the model test never reached the model")
		}
	}
	if err := s.stop(); err != nil {
		t.Fatalf("serve returned %v on shutdown", err)
	}
	r := <-got
	r.must(t, 200)
	if r.data["ok"] != true || !strings.Contains(str(r.data, "reply"), "pong") {
		t.Fatalf("in-flight model test answered %v", r.data)
	}
}
