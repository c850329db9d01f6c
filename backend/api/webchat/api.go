// Package webchat serves the hosted web chat of `web` channels: the page
// at /chat/{channel_id}, the embed script /embed.js, the widget they
// share (embedded in the binary, no build step) and the JSON/SSE API the
// widget calls under /chat/{channel_id}/. None of it takes a PAT: the end
// user's token (see application/webchat) is the credential, and each
// channel's allowed_origins decide which sites may call its API.
package webchat

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/protocol/sse"

	webchatapp "github.com/pergola-ai/pergola/application/webchat"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/backend/api/middleware"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// Handlers serve the web chat; a nil Svc answers 503.
type Handlers struct {
	Svc     *webchatapp.Service
	Assets  *Assets
	Proxies middleware.Proxies // whose X-Forwarded-For names the client
}

// Handle renders a handler's error as the envelope, with Retry-After on
// rate limits.
func Handle(h httpx.Handler) app.HandlerFunc {
	return httpx.Handle(func(ctx context.Context, c *app.RequestContext) error {
		err := h(ctx, c)
		var rl *webchatapp.RateLimitError
		if errors.As(err, &rl) {
			c.Header("Retry-After", strconv.Itoa(rl.RetryAfterSeconds()))
		}
		return err
	})
}

// channel loads the channel of the path and applies its CORS rules.
func (h Handlers) channel(ctx context.Context, c *app.RequestContext) (*channel.Channel, error) {
	if h.Svc == nil {
		return nil, errs.New(errs.ErrUnavailable, "this server does not serve web chats")
	}
	id, err := httpx.PathID(c, "channel_id")
	if err != nil {
		return nil, err
	}
	ch, err := h.Svc.Channel(ctx, id)
	if err != nil {
		return nil, err
	}
	c.Header("Cache-Control", "no-store") // answers carry tokens and conversations
	return ch, allowOrigin(c, ch)
}

// bearer is the token of "Authorization: Bearer <token>", or "".
func bearer(c *app.RequestContext) string {
	v := strings.TrimSpace(string(c.GetHeader("Authorization")))
	if len(v) > 7 && strings.EqualFold(v[:7], "bearer ") {
		return strings.TrimSpace(v[7:])
	}
	return ""
}

// ConfigDTO is what the page shows before the first message.
type ConfigDTO struct {
	ChannelID          string   `json:"channel_id"`
	ChannelName        string   `json:"channel_name"`
	BotName            string   `json:"bot_name"`
	IconURL            string   `json:"icon_url"`
	Prologue           string   `json:"prologue"`
	SuggestedQuestions []string `json:"suggested_questions"`
	Anonymous          bool     `json:"anonymous"`
	Identified         bool     `json:"identified"`
}

// Config answers GET /chat/{channel_id}/config.
func (h Handlers) Config(ctx context.Context, c *app.RequestContext) error {
	ch, err := h.channel(ctx, c)
	if err != nil {
		return err
	}
	cfg, err := h.Svc.Config(ctx, ch)
	if err != nil {
		return err
	}
	httpx.OK(c, configDTO(cfg))
	return nil
}

func configDTO(cfg *webchatapp.Config) ConfigDTO {
	q := cfg.SuggestedQuestions
	if q == nil {
		q = []string{}
	}
	return ConfigDTO{ChannelID: strconv.FormatInt(cfg.ChannelID, 10), ChannelName: cfg.ChannelName, BotName: cfg.BotName,
		IconURL: cfg.IconURL, Prologue: cfg.Prologue, SuggestedQuestions: q, Anonymous: cfg.Anonymous, Identified: cfg.Identified}
}

// SessionDTO is a browser's end user and its token.
type SessionDTO struct {
	Token     string `json:"token"`
	EndUser   string `json:"end_user"`
	Name      string `json:"name"`
	Anonymous bool   `json:"anonymous"`
	ExpiresAt int64  `json:"expires_at"`
}

// Session answers POST /chat/{channel_id}/session: with a token, the
// token checked (and renewed when anonymous); without, a new anonymous
// end user.
func (h Handlers) Session(ctx context.Context, c *app.RequestContext) error {
	ch, err := h.channel(ctx, c)
	if err != nil {
		return err
	}
	s, err := h.Svc.Session(ctx, ch, bearer(c), h.Proxies.ClientAddr(c))
	if err != nil {
		return err
	}
	httpx.OK(c, SessionDTO{Token: s.Token, EndUser: s.EndUser.ID, Name: s.EndUser.Name, Anonymous: s.EndUser.Anonymous,
		ExpiresAt: httpx.Unix(s.EndUser.ExpiresAt)})
	return nil
}

// SaidDTO is one message of the history.
type SaidDTO struct {
	ID        httpx.ID `json:"id"`
	Role      string   `json:"role"`
	Content   string   `json:"content"`
	CreatedAt int64    `json:"created_at"`
}

// History answers GET /chat/{channel_id}/messages with the end user's
// conversation, oldest first.
func (h Handlers) History(ctx context.Context, c *app.RequestContext) error {
	ch, err := h.channel(ctx, c)
	if err != nil {
		return err
	}
	list, err := h.Svc.History(ctx, ch, bearer(c))
	if err != nil {
		return err
	}
	out := make([]SaidDTO, len(list))
	for i, m := range list {
		out[i] = SaidDTO{ID: httpx.ID(m.ID), Role: m.Role, Content: m.Content, CreatedAt: httpx.Unix(m.CreatedAt)}
	}
	httpx.OK(c, map[string]any{"messages": out})
	return nil
}

// Reset answers POST /chat/{channel_id}/reset: the next message starts a
// new conversation.
func (h Handlers) Reset(ctx context.Context, c *app.RequestContext) error {
	ch, err := h.channel(ctx, c)
	if err != nil {
		return err
	}
	if err := h.Svc.Reset(ctx, ch, bearer(c)); err != nil {
		return err
	}
	httpx.OK(c, map[string]bool{"reset": true})
	return nil
}

// Send answers POST /chat/{channel_id}/messages {text, message_id?} with
// the answer as a stream of events: "message" {message_id, chat_id}, then
// "delta" {text} as the answer grows and "follow_up" {text} for each
// suggested question, and last "done" {answer} or "error" {code, msg}.
// Errors found before the answer starts are JSON envelopes.
func (h Handlers) Send(ctx context.Context, c *app.RequestContext) error {
	ch, err := h.channel(ctx, c)
	if err != nil {
		return err
	}
	var req struct {
		Text      string `json:"text"`
		MessageID string `json:"message_id"`
	}
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	reply, err := h.Svc.Send(ctx, ch, webchatapp.SendInput{Token: bearer(c), Text: req.Text, MessageID: req.MessageID})
	if err != nil {
		return err
	}
	writeReply(ctx, c, reply)
	return nil
}

// writeReply streams the parts of an answer until the last one, or until
// the browser goes away (the answer is still stored).
func writeReply(ctx context.Context, c *app.RequestContext, r *webchatapp.Reply) {
	c.Header("X-Accel-Buffering", "no") // a proxy must pass each event on at once
	w := sse.NewWriter(c)
	defer w.Close()
	head := map[string]any{"message_id": r.EventID, "chat_id": httpx.OptionalID(r.ChatID), "replayed": r.Replayed}
	if writeJSON(w, "message", head) != nil {
		return
	}
	for {
		p, ok := r.Next(ctx)
		if !ok || writeJSON(w, string(p.Kind), partBody(p)) != nil || p.Last() {
			return
		}
	}
}

func partBody(p webchatapp.Part) any {
	switch p.Kind {
	case webchatapp.PartDone:
		return map[string]string{"answer": p.Text}
	case webchatapp.PartError:
		_, code, msg := httpx.Classify(p.Err)
		return map[string]any{"code": code, "msg": msg}
	}
	return map[string]string{"text": p.Text}
}

func writeJSON(w *sse.Writer, name string, v any) error {
	b, _ := json.Marshal(v)
	return w.WriteEvent("", name, b)
}
