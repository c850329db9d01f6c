package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromiumPath is where Debian's chromium package puts the browser
// (scripts/services.sh installs it).
const chromiumPath = "/usr/bin/chromium"

// newBrowser starts one headless Chromium for a test and its subtests;
// each subtest opens its own browser context (fresh storage) with tab.
// Without Chromium the test is skipped, except in CI where it fails.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Chromium is missing at %s: run scripts/services.sh (it installs the chromium package)", chromiumPath)
		}
		t.Skipf("Chromium is not installed at %s (apt-get install chromium); skipping the browser tests", chromiumPath)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()), chromedp.Flag("disable-quic", true), chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelBrowser(); cancelAlloc() })
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return bctx
}

// tab opens a tab in a new browser context of browser, closed when the
// test ends; actions on it time out after a minute.
func tab(t *testing.T, browser context.Context) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	tctx, cancelTimeout := context.WithTimeout(ctx, time.Minute)
	t.Cleanup(cancelTimeout)
	return tctx
}

// do runs browser actions, failing the test on error.
func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("browser: %v", err)
	}
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// waitJS polls a JavaScript condition until it holds, for at most 20s.
func waitJS(t *testing.T, ctx context.Context, what, cond string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("!!("+cond+")"))
		if err == nil && ok {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	log := eval[string](t, ctx, `(() => { try { return `+shadowDump+` } catch (e) { return String(e) } })()`)
	t.Fatalf("timed out waiting for %s; the widget shows: %s", what, log)
}

// shadowDump is the text of the widget, whichever host holds it, for
// failure messages.
const shadowDump = `(document.querySelector('#pergola-chat') || document.querySelector('#pergola-chat-bubble')).shadowRoot.querySelector('.pc-root').innerText`

// js quotes a Go string as a JavaScript string literal.
func js(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// site is a site's server on an origin of its own (another port of
// 127.0.0.1): its pages by path, and /token answering {"token"} as a
// site's backend would for its signed-in user.
type site struct {
	url   string
	mu    sync.Mutex
	pages map[string]string
	token string
}

func newSite(t *testing.T) *site {
	t.Helper()
	s := &site{pages: map[string]string{}}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.url = srv.URL
	return s
}

// set serves html at path.
func (s *site) set(path, html string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pages[path] = html
}

func (s *site) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	page, ok := s.pages[r.URL.Path]
	token := s.token
	s.mu.Unlock()
	switch {
	case r.URL.Path == "/token":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"token":%s}`, js(token))
	case ok:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	default:
		http.NotFound(w, r)
	}
}

// embedPage is a site page with the bubble, under a style sheet that
// would wreck the widget if it leaked into it.
func embedPage(base, channel, attrs string) string {
	return `<!doctype html><html><head><title>Shop</title>
<style>* { color: lime !important; font-size: 40px !important; } button, div, textarea { background: red !important; }</style>
</head><body><h1>Shop</h1>
<script src="` + base + `/embed.js" data-channel="` + channel + `" ` + attrs + ` async></script>
</body></html>`
}
