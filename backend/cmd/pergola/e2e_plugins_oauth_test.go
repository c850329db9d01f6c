package main

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// oauthSecret is a client secret with characters that URL encoding
// changes, so that both of its forms are looked for.
const oauthSecret = "s3cret/client+9"

// TestPluginOAuthErrorsHideTheSecret: an OAuth2 token endpoint that
// refuses the client and echoes its request (headers and form) reaches
// the builder's debug run as an error quoting it, with the client secret
// masked in every form it was sent in: as written, URL-encoded in the
// form body, and base64-encoded in the Basic header. On SQLite and
// MariaDB+Redis.
func TestPluginOAuthErrorsHideTheSecret(t *testing.T) {
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.WriteHeader(http.StatusUnauthorized)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": "invalid_client", "auth": r.Header.Get("Authorization"), "form": string(body)})
	}))
	t.Cleanup(echo.Close)
	basic := base64.StdEncoding.EncodeToString([]byte("cid:" + strings.NewReplacer("/", "%2F", "+", "%2B").Replace(oauthSecret)))
	forms := []string{oauthSecret, "s3cret%2Fclient%2B9", basic}
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, withEnv(b, map[string]string{"PERGOLA_EGRESS_ALLOW": "127.0.0.1"}))
			for _, how := range []string{"basic", "body"} {
				doc := strings.Replace(weatherDoc, "title: Weather", "title: Weather "+how, 1)
				id := str(c.s.call(t, "POST", "/api/plugins", bootstrapToken, map[string]any{"workspace_id": c.ws, "openapi": doc,
					"server_url": echo.URL, "auth": map[string]any{"type": "oauth2_client_credentials", "token_url": echo.URL + "/token",
						"client_id": "cid", "client_secret": oauthSecret, "client_auth": how}}).must(t, 201).data, "id")
				run := c.s.call(t, "POST", "/api/plugins/"+id+"/tools/getWeather/debug", bootstrapToken,
					map[string]any{"args": map[string]any{"city": "Oslo"}}).must(t, 200)
				raw, _ := json.Marshal(run.raw)
				if !strings.Contains(str(run.data, "error"), "the OAuth2 token endpoint answered HTTP 401") || !strings.Contains(string(raw), "invalid_client") {
					t.Fatalf("client auth %s: want the endpoint's refusal quoted: %s", how, raw)
				}
				for _, f := range forms {
					if strings.Contains(string(raw), f) {
						t.Fatalf("client auth %s: the debug run shows the client secret as %q: %s", how, f, raw)
					}
				}
			}
		})
	}
}
