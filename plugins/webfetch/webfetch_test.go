package webfetch

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/egress"
	"github.com/pergola-ai/pergola/plugins/internal/plugintest"
)

const article = `<!doctype html><html><head><title> The  Page </title>
<style>body{color:red}</style><script>alert("x")</script></head>
<body><nav><a href="/home">Home</a> <a href="/about">About</a></nav>
<h1>Main   title</h1>
<p>First <b>bold</b> paragraph
spanning lines.</p>
<div hidden>secret</div><p style="display: none">also secret</p>
<h2>List</h2><ul><li>one</li><li>two <a href="/more?x=1">more</a></li></ul>
<table><tr><th>Name</th><th>Age</th></tr><tr><td>Ann</td><td>31</td></tr></table>
<pre>  keep
    spacing</pre>
<img src="a.png" alt="A cat"><noscript>enable js</noscript>
</body></html>`

func site(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	page := func(ct, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			if ct != "" {
				w.Header().Set("Content-Type", ct)
			}
			w.Write([]byte(body))
		}
	}
	mux.HandleFunc("/article", page("text/html; charset=utf-8", article))
	mux.HandleFunc("/main", page("text/html", `<body><nav>Menu</nav><main><h1>Only this</h1></main><footer>Footer</footer></body>`))
	mux.HandleFunc("/latin1", page("text/html; charset=iso-8859-1", "<p>caf\xe9</p>"))
	mux.HandleFunc("/plain", page("text/plain", "  just text\n  as is  "))
	mux.HandleFunc("/json", page("application/json", `{"a":[1,2]}`))
	mux.HandleFunc("/sniffed", page("", "<html><body><p>sniffed html</p></body></html>"))
	mux.HandleFunc("/long", page("text/plain", strings.Repeat("word ", 1000)))
	mux.HandleFunc("/png", page("image/png", "\x89PNG\r\n\x1a\n"))
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/plain", http.StatusFound) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func guarded(t *testing.T, allow ...string) *http.Client {
	t.Helper()
	g, err := egress.New(egress.Config{Allow: allow})
	if err != nil {
		t.Fatal(err)
	}
	return g.Client()
}

func TestManifest(t *testing.T) {
	plugintest.CheckManifest(t, Manifest(), New(nil).Ops())
}

func TestFetch(t *testing.T) {
	srv := site(t)
	at := func(path string, more ...any) map[string]any {
		args := map[string]any{"url": srv.URL + path}
		for i := 0; i+1 < len(more); i += 2 {
			args[more[i].(string)] = more[i+1]
		}
		return args
	}
	wantArticle := "Title: The Page\nURL: " + srv.URL + "/article\n\n" +
		"Home About\n\n# Main title\n\nFirst bold paragraph spanning lines.\n\n## List\n\n- one\n- two more\n\n" +
		"Name | Age\nAnn | 31\n\n  keep\n    spacing\n\n[image: A cat]"
	plugintest.Run(t, New(guarded(t, "127.0.0.1")).Ops(), []plugintest.Case{
		{Name: "html to text", Op: "fetch", Args: at("/article"), Want: wantArticle},
		{Name: "links", Op: "fetch", Args: at("/article", "include_links", true), Contains: []string{"[Home](" + srv.URL + "/home)", "two [more](" + srv.URL + "/more?x=1)"}},
		{Name: "main content only", Op: "fetch", Args: at("/main"), Want: "URL: " + srv.URL + "/main\n\n# Only this"},
		{Name: "charset decoded", Op: "fetch", Args: at("/latin1"), Contains: []string{"café"}},
		{Name: "plain text as is", Op: "fetch", Args: at("/plain"), Want: "URL: " + srv.URL + "/plain\n\n  just text\n  as is  "},
		{Name: "json as is", Op: "fetch", Args: at("/json"), Contains: []string{`{"a":[1,2]}`}},
		{Name: "html sniffed", Op: "fetch", Args: at("/sniffed"), Contains: []string{"\n\nsniffed html"}},
		{Name: "redirect shows the final address", Op: "fetch", Args: at("/moved"), Contains: []string{"URL: " + srv.URL + "/plain"}},
		{Name: "truncated", Op: "fetch", Args: at("/long", "max_chars", 100.0), Contains: []string{"[truncated: showing 100 of 5000 characters]"}},
		{Name: "not found", Op: "fetch", Args: at("/nope"), ErrText: "the server answered 404 Not Found"},
		{Name: "binary refused", Op: "fetch", Args: at("/png"), ErrText: "the response is image/png, not a page or text"},
		{Name: "max_chars out of range", Op: "fetch", Args: at("/plain", "max_chars", 5.0), ErrField: "max_chars"},
		{Name: "no url", Op: "fetch", ErrField: "url"},
		{Name: "not http", Op: "fetch", Args: map[string]any{"url": "file:///etc/passwd"}, ErrField: "url"},
		{Name: "relative url", Op: "fetch", Args: map[string]any{"url": "/article"}, ErrField: "url"},
	})
}

func TestFetchGoesThroughTheGuard(t *testing.T) {
	srv := site(t)
	_, err := New(guarded(t)).Invoke(context.Background(), "fetch", map[string]any{"url": srv.URL + "/plain"})
	if !errors.Is(err, egress.ErrRefused) || !strings.Contains(err.Error(), "127.0.0.1 is a loopback address") {
		t.Fatalf("fetch of a loopback page without allow = %v, want a refusal", err)
	}
	_, err = New(guarded(t)).Invoke(context.Background(), "fetch", map[string]any{"url": "http://169.254.169.254/latest/meta-data/"})
	if !errors.Is(err, egress.ErrRefused) {
		t.Fatalf("fetch of the metadata address = %v, want a refusal", err)
	}
	_, err = New(nil).Invoke(context.Background(), "fetch", map[string]any{"url": srv.URL})
	if !errors.Is(err, errs.ErrUnavailable) {
		t.Fatalf("fetch without a client = %v, want unavailable", err)
	}
}
