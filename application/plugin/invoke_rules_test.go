package plugin_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	pluginapp "github.com/pergola-ai/pergola/application/plugin"
	"github.com/pergola-ai/pergola/domain/plugin"
)

func TestInvokeSplitsArgumentsAndAddsAuth(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name, tool, args string
		auth             plugin.Auth
		check            func(t *testing.T, s seen)
	}{
		{"api key in a header, query and header parameters", "listPets", `{"limit":"5","status":"sold","X-Trace":"t1"}`,
			plugin.Auth{Type: plugin.AuthAPIKey, Name: "X-Api-Key", Key: "k-123"}, func(t *testing.T, s seen) {
				if s.Header.Get("X-Api-Key") != "k-123" || s.Query != "limit=5&status=sold" || s.Header.Get("X-Trace") != "t1" || s.Path != "/v1/pets" {
					t.Errorf("request = %+v", s)
				}
			}},
		{"api key in the query, path parameter", "getPet", `{"petId":7}`,
			plugin.Auth{Type: plugin.AuthAPIKey, In: plugin.KeyInQuery, Name: "key", Key: "q k"}, func(t *testing.T, s seen) {
				if s.Path != "/v1/pets/7" || s.Query != "key=q+k" {
					t.Errorf("request = %+v", s)
				}
			}},
		{"bearer, JSON body", "addPet", `{"name":"Tom","age":3}`,
			plugin.Auth{Type: plugin.AuthBearer, Token: "b-tok"}, func(t *testing.T, s seen) {
				if s.Header.Get("Authorization") != "Bearer b-tok" || s.Body != `{"age":3,"name":"Tom"}` || s.Header.Get("Content-Type") != "application/json" {
					t.Errorf("request = %+v", s)
				}
			}},
		{"basic", "getPet", `{"petId":1}`, plugin.Auth{Type: plugin.AuthBasic, Username: "ann", Password: "pw"}, func(t *testing.T, s seen) {
			if s.Header.Get("Authorization") != "Basic "+base64.StdEncoding.EncodeToString([]byte("ann:pw")) {
				t.Errorf("request = %+v", s)
			}
		}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pl := e.pets(t, "Pets "+string(rune('A'+i)), tc.auth)
			out, err := call(t, e.tool(t, pl, tc.tool, ""), tc.args)
			mustNot(t, err)
			if strings.ContainsAny(out, "\n ") && !strings.Contains(out, "Rex") && !strings.Contains(out, "Tom") {
				t.Errorf("result = %q", out)
			}
			tc.check(t, e.api.last(t))
		})
	}
}

func TestInvokeTellsTheModelWhatIsWrong(t *testing.T) {
	e := newEnv(t)
	pl := e.pets(t, "Pets", plugin.Auth{})
	list := e.tool(t, pl, "listPets", "")
	_, err := call(t, list, `{"limit":"many","status":"gone"}`)
	wantText(t, err, `invalid arguments: "limit" must be an integer, got "many"; "status" must be one of "available", "sold", got "gone". Fix the arguments`)
	_, err = call(t, list, `{"status":"sold"}`)
	wantText(t, err, `missing required "limit"`)
	_, err = call(t, list, `not json`)
	wantText(t, err, "the arguments are not valid JSON")
	if n := e.api.count(); n != 0 {
		t.Errorf("the API was called %d times with bad arguments", n)
	}
	_, err = call(t, e.tool(t, pl, "getPet", ""), `{"petId":404}`)
	wantText(t, err, `HTTP 404 Not Found: {"error":"no pet 404"}`)
	out, err := call(t, list, `{"limit":1}`)
	mustNot(t, err)
	if out != `{"pets":[{"id":1,"name":"Rex"}],"query":"limit=1"}` {
		t.Errorf("compact result = %q", out)
	}
}

// TestInvokeRefusesForbiddenAddresses is the bad-input list of egress:
// each destination is refused with a result the model can read, through
// the guarded client, and the API never sees the request.
func TestInvokeRefusesForbiddenAddresses(t *testing.T) {
	strict := newEnv(t, "203.0.113.9") // an allow list that does not name loopback
	port := strict.api.srv.URL[strings.LastIndex(strict.api.srv.URL, ":")+1:]
	cases := []struct {
		name, server, want string
	}{
		{"127.0.0.1 without allow", strict.api.srv.URL + "/v1", "egress refused: 127.0.0.1"},
		{"cloud metadata", "http://169.254.169.254/latest", "egress refused: 169.254.169.254"},
		{"private 10/8", "http://10.0.0.8/v1", "egress refused: 10.0.0.8"},
		{"IPv6 loopback", "http://[::1]:" + port + "/v1", "egress refused: ::1"},
		{"a name resolving to loopback", "http://localhost:" + port + "/v1", "egress refused: localhost resolves to"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pl, _, err := strict.svc.Create(context.Background(), strict.owner, strict.ws.ID, pluginapp.Input{
				Name: "Target " + string(rune('A'+i)), OpenAPI: petsDoc, ServerURL: tc.server})
			mustNot(t, err)
			start := time.Now()
			_, err = call(t, strict.tool(t, pl, "getPet", ""), `{"petId":1}`)
			wantText(t, err, tc.want)
			if time.Since(start) > 3*time.Second {
				t.Errorf("the refusal took %v", time.Since(start))
			}
		})
	}
	if n := strict.api.count(); n != 0 {
		t.Errorf("the API saw %d refused requests", n)
	}

	e := newEnv(t)
	pl := e.pets(t, "Pets", plugin.Auth{})
	_, err := call(t, e.tool(t, pl, "redirect", ""), `{}`)
	wantText(t, err, "egress refused: 10.1.2.3")
	_, err = call(t, e.tool(t, pl, "big", ""), `{}`)
	wantText(t, err, "too large")
}

func TestInvokeOAuth2ClientCredentials(t *testing.T) {
	e := newEnv(t)
	for _, clientAuth := range []string{plugin.ClientAuthBasic, plugin.ClientAuthBody} {
		t.Run(clientAuth, func(t *testing.T) {
			before := e.api.tokens
			pl := e.pets(t, "OAuth "+clientAuth, plugin.Auth{Type: plugin.AuthOAuth2Client, TokenURL: e.api.srv.URL + "/oauth/token",
				ClientID: "cid", ClientSecret: "csecret", Scopes: []string{"pets:read"}, ClientAuth: clientAuth})
			secure := e.tool(t, pl, "secure", "")
			for range 3 {
				_, err := call(t, secure, `{}`)
				mustNot(t, err)
			}
			if got := e.api.tokens - before; got != 1 {
				t.Fatalf("tokens fetched = %d, want 1 (cached)", got)
			}
			e.api.mu.Lock()
			e.api.validToken = "revoked"
			e.api.mu.Unlock()
			_, err := call(t, secure, `{}`)
			mustNot(t, err)
			if got := e.api.tokens - before; got != 2 {
				t.Fatalf("tokens fetched = %d, want 2 (refreshed after a 401)", got)
			}
			e.clock.add(2 * time.Hour)
			_, err = call(t, secure, `{}`)
			mustNot(t, err)
			if got := e.api.tokens - before; got != 3 {
				t.Fatalf("tokens fetched = %d, want 3 (expired)", got)
			}
		})
	}
	pl := e.pets(t, "Bad client", plugin.Auth{Type: plugin.AuthOAuth2Client, TokenURL: e.api.srv.URL + "/oauth/token", ClientID: "cid", ClientSecret: "wrong"})
	_, err := call(t, e.tool(t, pl, "secure", ""), `{}`)
	wantText(t, err, `the OAuth2 token endpoint answered HTTP 401: {"error":"invalid_client"}`)
}

func TestInvokeHonoursVersionsAndSwitches(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	pl := e.pets(t, "Pets", plugin.Auth{})
	_, err := e.svc.Publish(ctx, e.owner, pl.ID)
	mustNot(t, err)
	pinned, draft := e.tool(t, pl, "getPet", "1"), e.tool(t, pl, "getPet", "")
	doc := strings.Replace(petsDoc, "operationId: getPet", "operationId: fetchPet", 1)
	_, _, err = e.svc.Update(ctx, e.owner, pl.ID, pluginapp.Patch{OpenAPI: &doc})
	mustNot(t, err)
	_, err = call(t, pinned, `{"petId":2}`)
	mustNot(t, err)
	_, err = call(t, draft, `{"petId":2}`)
	wantText(t, err, "has no tool getPet any more")

	_, err = e.svc.SetToolEnabled(ctx, e.admin, pl.ID, "getPet", false)
	mustNot(t, err)
	_, err = call(t, pinned, `{"petId":2}`)
	wantText(t, err, "tool getPet of plugin")
	wantText(t, err, "is disabled by an administrator")
	_, err = e.svc.SetToolEnabled(ctx, e.admin, pl.ID, "getPet", true)
	mustNot(t, err)
	_, err = e.svc.SetEnabled(ctx, e.admin, pl.ID, false)
	mustNot(t, err)
	_, err = call(t, pinned, `{"petId":2}`)
	wantText(t, err, "(Pets) is disabled by an administrator")
	_, err = e.svc.SetEnabled(ctx, e.admin, pl.ID, true)
	mustNot(t, err)
	mustNot(t, e.svc.Delete(ctx, e.owner, pl.ID, false))
	_, err = call(t, pinned, `{"petId":2}`)
	wantText(t, err, "no longer exists")
}

func TestInvokeMCPAndBuiltinTools(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	pl, _, err := e.svc.Create(ctx, e.owner, e.ws.ID, pluginapp.Input{Kind: plugin.KindMCP, Name: "Weather", ServerURL: "https://mcp.example/mcp"})
	mustNot(t, err)
	weather := e.tool(t, pl, "weather_get", "")
	for range 2 {
		out, err := call(t, weather, `{"city":"Paris"}`)
		mustNot(t, err)
		if out != "sunny in Paris" {
			t.Fatalf("result = %q", out)
		}
	}
	if n := len(e.mcp.dials); n != 2 { // one to discover, one session for both calls
		t.Errorf("dials = %d, want 2", n)
	}
	_, err = call(t, weather, `{}`)
	wantText(t, err, `missing required "city"`)
	_, err = call(t, e.tool(t, pl, "fail", ""), `{}`)
	wantText(t, err, "the MCP tool fail failed: the tool is broken")
	e.mcp.down = true
	_, err = call(t, weather, `{"city":"Oslo"}`)
	wantText(t, err, "unreachable")
	_, err = call(t, weather, `{"city":"Oslo"}`)
	mustNot(t, err)
	if n := len(e.mcp.dials); n != 3 {
		t.Errorf("dials = %d, want 3 (a new session after the broken one)", n)
	}

	echo := &plugin.Plugin{ID: pluginapp.CatalogID("echo")}
	out, err := call(t, e.tool(t, echo, "say", "1"), `{"text":"hi"}`)
	mustNot(t, err)
	if out != "say: hi" {
		t.Errorf("built-in result = %q", out)
	}
}

// TestRedirectsDoNotCarryCredentialsAway follows a redirect to another
// host (the fixture's API on another port): the API key header stays
// behind, as Go does for Authorization.
func TestRedirectsDoNotCarryCredentialsAway(t *testing.T) {
	e := newEnv(t)
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "k-stays" {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		http.Redirect(w, r, e.api.srv.URL+"/v1/pets/1", http.StatusFound)
	}))
	defer first.Close()
	pl, _, err := e.svc.Create(context.Background(), e.owner, e.ws.ID, pluginapp.Input{Name: "Hop", OpenAPI: petsDoc, ServerURL: first.URL + "/v1",
		Auth: plugin.Auth{Type: plugin.AuthAPIKey, Name: "X-Api-Key", Key: "k-stays"}})
	mustNot(t, err)
	out, err := call(t, e.tool(t, pl, "big", ""), `{}`)
	mustNot(t, err)
	if !strings.Contains(out, "Rex") {
		t.Fatalf("result = %q", out)
	}
	if k := e.api.last(t).Header.Get("X-Api-Key"); k != "" {
		t.Errorf("the key followed the redirect to another host: %q", k)
	}
}
