package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// fileModelKey is the API key of the file model, given only through the
// environment variable its api_key_env names.
const fileModelKey = "sk-e2e-file-model-secret"

// writeModelsFile writes a models file with one model, "filed", whose key
// comes from E2E_FILE_MODEL_KEY, served at baseURL.
func writeModelsFile(t *testing.T, baseURL string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "models.yaml")
	yaml := fmt.Sprintf(`models:
  - id: filed
    name: Filed model
    provider: openai
    base_url: %s
    api_key_env: E2E_FILE_MODEL_KEY
    model: fake
    capabilities: {tools: true}
    context_window: 8192
`, baseURL)
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// body is an answer re-encoded, to search for what must not be in it.
func body(t *testing.T, r reply) string {
	t.Helper()
	b, err := json.Marshal(r.raw)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestModelsAdmin covers the model registry through the API on each back
// end: file models are read-only, keys never leave the server, "test this
// model" reports the provider's answer or its failure, and builders see
// only what they need to pick a model.
func TestModelsAdmin(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			good := fakellm.Start(t, fakellm.WithAPIKey(fileModelKey))
			env := b.env(t)
			env["PERGOLA_MODELS_FILE"] = writeModelsFile(t, good.BaseURL())
			env["E2E_FILE_MODEL_KEY"] = fileModelKey
			s := startServer(t, env)
			admin := bootstrapToken

			// The file model is listed, marked as such, without its key.
			list := s.call(t, "GET", "/api/admin/models", admin, nil).must(t, 200)
			models := items(t, list.data, "items")
			if len(models) != 1 || list.data["total"] != float64(1) {
				t.Fatalf("admin models = %v", list.data)
			}
			m := models[0]
			if str(m, "id") != "filed" || str(m, "source") != "file" || m["has_api_key"] != true ||
				str(m, "api_key_env") != "E2E_FILE_MODEL_KEY" || str(m, "base_url") != good.BaseURL() || m["enabled"] != true {
				t.Fatalf("file model = %v", m)
			}
			if raw := body(t, list); strings.Contains(raw, fileModelKey) || strings.Contains(raw, `"api_key"`) {
				t.Fatalf("admin model list shows the key: %s", raw)
			}
			one := s.call(t, "GET", "/api/admin/models/filed", admin, nil).must(t, 200)
			if raw := body(t, one); strings.Contains(raw, fileModelKey) || str(one.data, "source") != "file" {
				t.Fatalf("admin model = %s", raw)
			}

			// It is read-only.
			s.call(t, "PATCH", "/api/admin/models/filed", admin, map[string]any{"name": "mine"}).
				fails(t, 409, 4300, "PERGOLA_MODELS_FILE")
			s.call(t, "DELETE", "/api/admin/models/filed", admin, nil).fails(t, 409, 4300, "PERGOLA_MODELS_FILE")
			s.call(t, "POST", "/api/admin/models", admin, map[string]any{"id": "filed", "provider": "openai", "model": "x"}).
				fails(t, 409, 4300, "PERGOLA_MODELS_FILE")
			if got := s.call(t, "GET", "/api/admin/models/filed", admin, nil).must(t, 200); str(got.data, "name") != "Filed model" {
				t.Fatalf("file model changed: %v", got.data)
			}

			// Testing it reaches the model with the key from the environment.
			res := s.call(t, "POST", "/api/admin/models/filed/test", admin, nil).must(t, 200)
			if res.data["ok"] != true || !strings.Contains(str(res.data, "reply"), "pong") || str(res.data, "error") != "" {
				t.Fatalf("test of the file model = %v", res.data)
			}
			if reqs := good.Requests(); len(reqs) != 1 || reqs[0].APIKey != fileModelKey {
				t.Fatalf("the model got %d requests, key %q", len(reqs), firstKey(reqs))
			}

			// A model whose provider refuses the key reports that, as a result.
			bad := fakellm.Start(t)
			bad.Enqueue(fakellm.Fail(401, "bad key"))
			created := s.call(t, "POST", "/api/admin/models", admin, map[string]any{
				"id": "refused", "provider": "openai", "base_url": bad.BaseURL(), "api_key": "sk-e2e-wrong-key", "model": "fake",
			}).must(t, 201)
			if str(created.data, "source") != "admin" || created.data["has_api_key"] != true || strings.Contains(body(t, created), "sk-e2e-wrong-key") {
				t.Fatalf("created model = %s", body(t, created))
			}
			res = s.call(t, "POST", "/api/admin/models/refused/test", admin, nil).must(t, 200)
			if res.data["ok"] != false || !strings.Contains(str(res.data, "error"), "401") || !strings.Contains(str(res.data, "error"), "bad key") {
				t.Fatalf("test of the refused model = %v", res.data)
			}
			modelErrorQuotedShort(t, s)
			s.call(t, "POST", "/api/admin/models/nope/test", admin, nil).fails(t, 404, 4200, "nope")
			if raw := body(t, s.call(t, "GET", "/api/admin/models", admin, nil).must(t, 200)); strings.Contains(raw, "sk-e2e-wrong-key") {
				t.Fatalf("admin model list shows a stored key: %s", raw)
			}

			// A builder sees both models, without endpoints or keys, and
			// cannot reach the admin API.
			s.call(t, "POST", "/api/admin/users", admin, map[string]any{
				"email": "builder@example.com", "name": "Builder", "password": "builder-password",
			}).must(t, 201)
			login := s.call(t, "POST", "/api/auth/login", "", map[string]any{"email": "builder@example.com", "password": "builder-password"}).must(t, 200)
			builder := str(login.data, "token")
			choices := s.call(t, "GET", "/api/models", builder, nil).must(t, 200)
			picked := items(t, choices.data, "items")
			if len(picked) != 2 || str(picked[0], "id") != "filed" || str(picked[1], "id") != "refused" {
				t.Fatalf("builder's models = %v", choices.data)
			}
			for _, c := range picked {
				for _, hidden := range []string{"base_url", "api_key", "api_key_env", "has_api_key", "source"} {
					if _, ok := c[hidden]; ok {
						t.Fatalf("builder sees %q: %v", hidden, c)
					}
				}
			}
			raw := body(t, choices)
			for _, secret := range []string{fileModelKey, "sk-e2e-wrong-key", good.BaseURL(), bad.BaseURL(), "E2E_FILE_MODEL_KEY"} {
				if strings.Contains(raw, secret) {
					t.Fatalf("builder's model list shows %q: %s", secret, raw)
				}
			}
			for _, call := range []struct{ method, path string }{
				{"GET", "/api/admin/models"}, {"GET", "/api/admin/models/filed"}, {"POST", "/api/admin/models/filed/test"},
				{"DELETE", "/api/admin/models/refused"},
			} {
				s.call(t, call.method, call.path, builder, nil).fails(t, 403, 4101, "administrator")
			}
			s.call(t, "GET", "/api/admin/models/refused", admin, nil).must(t, 200)
		})
	}
}

func firstKey(reqs []fakellm.Request) string {
	if len(reqs) == 0 {
		return ""
	}
	return reqs[0].APIKey
}

// modelErrorQuotedShort: an OpenAI-compatible server that refuses with
// its error as a string, echoing the key, is reported with its status and
// words, the key masked (it was an empty error before).
func modelErrorQuotedShort(t *testing.T, s *testServer) {
	t.Helper()
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":"` + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") + ` is not a key of this proxy"}`))
	}))
	t.Cleanup(echo.Close)
	s.call(t, "POST", "/api/admin/models", bootstrapToken, map[string]any{"id": "proxied", "provider": "openai",
		"base_url": echo.URL, "api_key": "sk-e2e-echoed-key", "model": "fake"}).must(t, 201)
	res := s.call(t, "POST", "/api/admin/models/proxied/test", bootstrapToken, nil).must(t, 200)
	if e := str(res.data, "error"); res.data["ok"] != false || e != "the provider answered HTTP 401: **** is not a key of this proxy" {
		t.Fatalf("test of a model behind a proxy that refuses it = %v", res.data)
	}
	s.call(t, "DELETE", "/api/admin/models/proxied", bootstrapToken, nil).must(t, 200)
}
