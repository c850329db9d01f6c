package webchat

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"net/http"

	"github.com/cloudwego/hertz/pkg/app"
)

//go:embed static
var static embed.FS

// cssMarker is where widget.js takes its style sheet, as a JSON string,
// so that one script carries everything the widget needs into a shadow
// root.
var cssMarker = []byte(`"__PERGOLA_CSS__"`)

// widgetParts are the sources of the widget, in order; they share one
// function scope, so the page's globals see only window.PergolaWidget.
var widgetParts = []string{"markdown.js", "client.js", "widget.js"}

// asset is a file served with a strong validator.
type asset struct {
	body []byte
	etag string
}

func newAsset(body []byte) asset {
	sum := sha256.Sum256(body)
	return asset{body: body, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
}

// version is a short digest of the body, for URLs that change with it.
func (a asset) version() string { return a.etag[1 : len(a.etag)-1] }

// Assets are the widget's files, built once from the embedded sources:
// widget.js (the widget, its CSS inside) for the hosted page, and
// embed.js (the same widget followed by the bubble) for other sites.
type Assets struct {
	widget  asset
	embed   asset
	favicon asset
}

// LoadAssets builds the assets from the files embedded in the binary.
func LoadAssets() *Assets {
	read := func(name string) []byte {
		b, err := static.ReadFile("static/" + name)
		if err != nil {
			panic("webchat: missing embedded asset " + name) // a broken build, not a runtime condition
		}
		return b
	}
	css, _ := json.Marshal(string(read("widget.css")))
	widget := []byte("(function () {\n'use strict';\nif (window.PergolaWidget) return;\n\n")
	for _, part := range widgetParts {
		widget = append(append(widget, read(part)...), '\n')
	}
	widget = bytes.Replace(append(widget, "})();\n"...), cssMarker, css, 1)
	embedJS := append(append(append([]byte{}, widget...), '\n'), read("embed.js")...)
	return &Assets{widget: newAsset(widget), embed: newAsset(embedJS), favicon: newAsset(read("favicon.svg"))}
}

// serve writes a with the cache policy given; a matching If-None-Match
// gets 304.
func serve(c *app.RequestContext, a asset, cacheControl string) {
	serveAs(c, a, cacheControl, "text/javascript; charset=utf-8")
}

// serveAs is serve for a body of any content type.
func serveAs(c *app.RequestContext, a asset, cacheControl, contentType string) {
	c.Header("ETag", a.etag)
	c.Header("Cache-Control", cacheControl)
	c.Header("X-Content-Type-Options", "nosniff")
	if string(c.GetHeader("If-None-Match")) == a.etag {
		c.SetStatusCode(http.StatusNotModified)
		return
	}
	c.Data(http.StatusOK, contentType, a.body)
}

// EmbedJS answers GET /embed.js. Sites keep its address for good, so it
// is revalidated every few minutes rather than cached for long.
func (h Handlers) EmbedJS(_ context.Context, c *app.RequestContext) {
	serve(c, h.Assets.embed, "public, max-age=300")
}

// WidgetJS answers GET /chat/assets/widget.js. The hosted page asks for
// it with ?v=<version>, which changes with its content: that URL may be
// cached for a year.
func (h Handlers) WidgetJS(_ context.Context, c *app.RequestContext) {
	policy := "no-cache"
	if string(c.Query("v")) == h.Assets.widget.version() {
		policy = "public, max-age=31536000, immutable"
	}
	serve(c, h.Assets.widget, policy)
}

// Favicon answers GET /chat/assets/favicon.svg: the hosted page's icon
// when the bot has none of its own.
func (h Handlers) Favicon(_ context.Context, c *app.RequestContext) {
	policy := "public, max-age=86400"
	if string(c.Query("v")) == h.Assets.favicon.version() {
		policy = "public, max-age=31536000, immutable"
	}
	serveAs(c, h.Assets.favicon, policy, "image/svg+xml")
}
