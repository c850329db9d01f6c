package webchat

import (
	"bytes"
	"context"
	"html/template"
	"net/http"
	"strconv"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
)

var pages = template.Must(template.ParseFS(static, "static/page.html", "static/closed.html"))

// pagePolicy keeps the hosted page to its own script and server: a bot
// answer or a user message that got past the widget's escaping still
// could not run a script or send data elsewhere. Styles are inline (the
// widget's sheet lives in its shadow root); the bot's icon may be
// anywhere.
const pagePolicy = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src https: http: data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'"

// pageView fills page.html.
type pageView struct {
	ChannelID  string
	BotName    string
	IconURL    string
	WidgetURL  string
	FaviconURL string // Pergola's icon, for a bot without its own
}

// closedView fills closed.html: why there is no chat here.
type closedView struct {
	Title  string
	Detail string
}

// Page answers GET /chat/{channel_id}: the full-page chat, or a page
// saying plainly why there is none (unknown chat, switched off, bot not
// published) with the status the API would answer.
func (h Handlers) Page(ctx context.Context, c *app.RequestContext) {
	id, err := httpx.PathID(c, "channel_id")
	if err != nil {
		err = errs.New(errs.ErrNotFound, "%v", err)
	} else if h.Svc == nil {
		err = errs.New(errs.ErrUnavailable, "this server does not serve web chats")
	}
	var view pageView
	if err == nil {
		view, err = h.pageView(ctx, id)
	}
	if err != nil {
		closed(c, err)
		return
	}
	render(c, http.StatusOK, "page.html", view)
}

func (h Handlers) pageView(ctx context.Context, id int64) (pageView, error) {
	ch, err := h.Svc.Channel(ctx, id)
	if err != nil {
		return pageView{}, err
	}
	cfg, err := h.Svc.Config(ctx, ch)
	if err != nil {
		return pageView{}, err
	}
	name := cfg.BotName
	if name == "" {
		name = cfg.ChannelName
	}
	return pageView{ChannelID: strconv.FormatInt(id, 10), BotName: name, IconURL: cfg.IconURL,
		WidgetURL:  "/chat/assets/widget.js?v=" + h.Assets.widget.version(),
		FaviconURL: "/chat/assets/favicon.svg?v=" + h.Assets.favicon.version()}, nil
}

// closed renders the page of a chat that cannot be used.
func closed(c *app.RequestContext, err error) {
	status, _, msg := httpx.Classify(err)
	title := "This chat is not available right now"
	switch status {
	case http.StatusNotFound:
		title = "This chat does not exist"
	case http.StatusConflict:
		title = "This chat is switched off"
	case http.StatusForbidden:
		title = "This chat is not open yet: its bot has not been published here"
	}
	render(c, status, "closed.html", closedView{Title: title, Detail: msg})
}

func render(c *app.RequestContext, status int, name string, v any) {
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, name, v); err != nil {
		httpx.FailWith(c, http.StatusInternalServerError, httpx.CodeInternal, "internal server error")
		return
	}
	c.Header("Content-Security-Policy", pagePolicy)
	c.Header("X-Content-Type-Options", "nosniff")
	c.Header("Referrer-Policy", "no-referrer")
	c.Header("Cache-Control", "no-cache")
	c.Data(status, "text/html; charset=utf-8", buf.Bytes())
}
