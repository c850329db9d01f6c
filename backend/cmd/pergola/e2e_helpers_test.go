package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/infra/secret"
	"github.com/pergola-ai/pergola/infra/testenv"
)

const bootstrapToken = "pat_e2e_bootstrap_token"

// backend is one storage configuration the server is tested on.
type backend struct {
	name string
	env  func(t *testing.T) map[string]string
}

func backends() []backend {
	return []backend{
		{"sqlite", func(t *testing.T) map[string]string { return map[string]string{} }},
		{"mariadb+redis", func(t *testing.T) map[string]string {
			return map[string]string{
				"PERGOLA_DB_DSN":       testenv.MySQL(t),
				"PERGOLA_REDIS_ADDR":   testenv.RedisAddr(t),
				"PERGOLA_REDIS_PREFIX": testenv.RedisPrefix(t, 0),
				"PERGOLA_SECRET_KEY":   secret.GenerateKey(),
			}
		}},
	}
}

// server is a running pergola serve, as the binary would run it.
type testServer struct {
	base string
	stop func() error
}

func startServer(t *testing.T, extra map[string]string) *testServer {
	t.Helper()
	env := map[string]string{
		"PERGOLA_ADDR":               "127.0.0.1:0",
		"PERGOLA_DATA_DIR":           t.TempDir(),
		"PERGOLA_BOOTSTRAP_TOKEN":    bootstrapToken,
		"PERGOLA_BOOTSTRAP_PASSWORD": "admin-password",
		"PERGOLA_LOG_LEVEL":          "error",
	}
	for k, v := range extra {
		env[k] = v
	}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- serve(ctx, lookup, ready) }()
	select {
	case addr := <-ready:
		s := &testServer{base: "http://" + addr}
		var stopped bool
		s.stop = func() error {
			if stopped {
				return nil
			}
			stopped = true
			cancel()
			return <-done
		}
		t.Cleanup(func() { _ = s.stop() })
		return s
	case err := <-done:
		cancel()
		t.Fatalf("server did not start: %v", err)
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("server did not become ready in 30s")
	}
	return nil
}

// reply is a decoded answer.
type reply struct {
	status int
	header http.Header
	code   int
	msg    string
	data   map[string]any
	raw    map[string]any
}

func (s *testServer) call(t *testing.T, method, path, token string, body any) reply {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		buf, _ := json.Marshal(b)
		rd = bytes.NewReader(buf)
	}
	req, err := http.NewRequest(method, s.base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := reply{status: resp.StatusCode, header: resp.Header}
	if strings.Contains(resp.Header.Get("Content-Type"), "json") {
		if err := json.Unmarshal(raw, &r.raw); err != nil {
			t.Fatalf("%s %s: body is not JSON: %s", method, path, raw)
		}
		code, _ := r.raw["code"].(float64)
		r.code = int(code)
		r.msg, _ = r.raw["msg"].(string)
		r.data, _ = r.raw["data"].(map[string]any)
	}
	return r
}

// must fails the test unless the answer has the wanted status and code 0.
func (r reply) must(t *testing.T, status int) reply {
	t.Helper()
	if r.status != status || r.code != 0 {
		t.Fatalf("status %d code %d msg %q, want %d and code 0", r.status, r.code, r.msg, status)
	}
	return r
}

// fails checks a failure's status, code, and that the message names want.
func (r reply) fails(t *testing.T, status, code int, want string) {
	t.Helper()
	if r.status != status || r.code != code || !strings.Contains(r.msg, want) {
		t.Fatalf("got status %d code %d msg %q; want %d, code %d, msg containing %q", r.status, r.code, r.msg, status, code, want)
	}
}

func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

func items(t *testing.T, m map[string]any, key string) []map[string]any {
	t.Helper()
	list, ok := m[key].([]any)
	if !ok {
		t.Fatalf("%q is not a list in %v", key, m)
	}
	out := make([]map[string]any, len(list))
	for i, v := range list {
		out[i], _ = v.(map[string]any)
	}
	return out
}
