// Package webfetch is the built-in "webfetch" plugin: it GETs a page
// through the guarded HTTP client and turns HTML into readable text.
package webfetch

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html/charset"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/plugins/internal/tool"
)

// The plugin's identity in the catalog.
const (
	ID          = "webfetch"
	Name        = "Web fetch"
	Description = "Reads a web page and returns its text, without scripts, styles or markup."
)

// Limits on what a fetch reads and returns.
const (
	maxRead         = 1 << 20 // bytes of a page read; the rest is ignored
	defaultMaxChars = 20000
	userAgent       = "PergolaBot/1.0 (+https://github.com/pergola-ai/pergola)"
)

//go:embed openapi.yaml
var manifest string

// Manifest returns the plugin's OpenAPI document.
func Manifest() []byte { return []byte(manifest) }

// Plugin fetches pages with its HTTP client.
type Plugin struct {
	http *http.Client
}

// New returns the plugin sending through client, which must be the guarded
// egress client. A nil client makes every fetch fail with
// errs.ErrUnavailable.
func New(client *http.Client) *Plugin { return &Plugin{http: client} }

// Ops returns the operations by operationId.
func (p *Plugin) Ops() tool.Ops { return tool.Ops{"fetch": p.fetch} }

// Invoke runs operationID. A malformed URL fails with errs.Invalid naming
// "url"; a refused destination, a failed request or an HTTP error status
// comes back as the client's error or one saying the status.
func (p *Plugin) Invoke(ctx context.Context, operationID string, args map[string]any) (string, error) {
	return p.Ops().Invoke(ctx, operationID, args)
}

func (p *Plugin) fetch(ctx context.Context, args map[string]any) (string, error) {
	target, err := pageURL(args)
	if err != nil {
		return "", err
	}
	maxChars, err := tool.OptInt(args, "max_chars", defaultMaxChars, 100, 100000)
	if err != nil {
		return "", err
	}
	links, err := tool.OptBool(args, "include_links", false)
	if err != nil {
		return "", err
	}
	if p.http == nil {
		return "", errs.New(errs.ErrUnavailable, "web fetch is not configured on this server")
	}
	page, err := p.get(ctx, target)
	if err != nil {
		return "", err
	}
	return page.render(maxChars, links), nil
}

// pageURL reads the "url" argument: an absolute http or https URL.
func pageURL(args map[string]any) (*url.URL, error) {
	raw, err := tool.String(args, "url")
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errs.Invalid("url", "must be an absolute http or https address such as https://example.com/page, got %q", raw)
	}
	return u, nil
}

// page is a fetched response: its final URL, media type and UTF-8 body.
type page struct {
	url       *url.URL
	mediaType string
	body      string
}

func (p *Plugin) get(ctx context.Context, target *url.URL) (*page, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target.String(), nil)
	if err != nil {
		return nil, errs.Invalid("url", "%v", err)
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.5")
	resp, err := p.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return nil, fmt.Errorf("GET %s: the server answered %s", target.Redacted(), resp.Status)
	}
	head := make([]byte, 512)
	n, _ := io.ReadFull(resp.Body, head)
	head = head[:n]
	mediaType := mediaTypeOf(resp.Header.Get("Content-Type"), head)
	if !isText(mediaType) {
		return nil, fmt.Errorf("GET %s: the response is %s, not a page or text", target.Redacted(), mediaType)
	}
	r, err := charset.NewReader(io.MultiReader(strings.NewReader(string(head)), resp.Body), resp.Header.Get("Content-Type"))
	if err != nil {
		r = io.MultiReader(strings.NewReader(string(head)), resp.Body)
	}
	body, err := io.ReadAll(io.LimitReader(r, maxRead))
	if err != nil {
		return nil, fmt.Errorf("GET %s: reading the page: %w", target.Redacted(), err)
	}
	return &page{url: resp.Request.URL, mediaType: mediaType, body: strings.ToValidUTF8(string(body), "\uFFFD")}, nil
}

// mediaTypeOf reads the Content-Type header, or sniffs the first bytes
// when there is none.
func mediaTypeOf(header string, head []byte) string {
	if header == "" {
		header = http.DetectContentType(head)
	}
	mt, _, err := mime.ParseMediaType(header)
	if err != nil {
		return "application/octet-stream"
	}
	return mt
}

func isText(mt string) bool {
	if strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml") {
		return true
	}
	switch mt {
	case "application/json", "application/xml", "application/javascript", "application/x-yaml", "application/yaml", "application/xhtml+xml":
		return true
	}
	return false
}

// render writes the page for the model: title, address, text, cut at
// maxChars characters.
func (pg *page) render(maxChars int, links bool) string {
	title, text := "", pg.body
	if pg.mediaType == "text/html" || pg.mediaType == "application/xhtml+xml" {
		title, text = htmlToText(pg.body, pg.url, links)
	}
	var b strings.Builder
	if title != "" {
		b.WriteString("Title: " + title + "\n")
	}
	b.WriteString("URL: " + pg.url.Redacted() + "\n\n")
	b.WriteString(truncate(text, maxChars))
	return b.String()
}

// truncate cuts s to limit characters and says how much was left out.
func truncate(s string, limit int) string {
	total := utf8.RuneCountInString(s)
	if total <= limit {
		return s
	}
	seen := 0
	for i := range s {
		if seen == limit {
			return s[:i] + fmt.Sprintf("\n\n[truncated: showing %d of %d characters]", limit, total)
		}
		seen++
	}
	return s
}
