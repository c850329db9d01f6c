package plugin_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// seen is a request the test API received.
type seen struct {
	Method, Path, Query string
	Header              http.Header
	Body                string
}

// api is the test HTTP API on 127.0.0.1, with an OAuth2 token endpoint.
type api struct {
	srv        *httptest.Server
	mu         sync.Mutex
	requests   []seen
	tokens     int    // tokens handed out
	validToken string // the token /secure accepts
}

func newAPI(t testing.TB) *api {
	t.Helper()
	a := &api{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/pets", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"pets": []any{map[string]any{"id": 1, "name": "Rex"}}, "query": r.URL.RawQuery})
	})
	mux.HandleFunc("POST /v1/pets", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		w.Write(b)
	})
	mux.HandleFunc("GET /v1/pets/{id}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") == "404" {
			writeJSON(w, 404, map[string]any{"error": "no pet 404"})
			return
		}
		writeJSON(w, 200, map[string]any{"id": r.PathValue("id"), "name": "Rex"})
	})
	mux.HandleFunc("GET /v1/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://10.1.2.3/internal", http.StatusFound)
	})
	mux.HandleFunc("GET /v1/big", func(w http.ResponseWriter, r *http.Request) {
		w.Write(bytes.Repeat([]byte("x"), 3<<20))
	})
	mux.HandleFunc("POST /oauth/token", a.token)
	mux.HandleFunc("GET /v1/secure", func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		ok := r.Header.Get("Authorization") == "Bearer "+a.validToken
		a.mu.Unlock()
		if !ok {
			writeJSON(w, 401, map[string]any{"error": "bad token"})
			return
		}
		writeJSON(w, 200, map[string]any{"ok": true})
	})
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(b))
		a.mu.Lock()
		a.requests = append(a.requests, seen{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Clone(), string(b)})
		a.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(a.srv.Close)
	return a
}

func (a *api) token(w http.ResponseWriter, r *http.Request) {
	user, pass, _ := r.BasicAuth()
	_ = r.ParseForm()
	if !(user == "cid" && pass == "csecret" || r.Form.Get("client_id") == "cid" && r.Form.Get("client_secret") == "csecret") ||
		r.Form.Get("grant_type") != "client_credentials" {
		writeJSON(w, 401, map[string]any{"error": "invalid_client"})
		return
	}
	a.mu.Lock()
	a.tokens++
	a.validToken = "tok-" + string(rune('0'+a.tokens))
	tok := a.validToken
	a.mu.Unlock()
	writeJSON(w, 200, map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600})
}

// last returns the last request the API saw.
func (a *api) last(t *testing.T) seen {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.requests) == 0 {
		t.Fatal("the API saw no request")
	}
	return a.requests[len(a.requests)-1]
}

func (a *api) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.requests)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
