// Package channels holds the HTTP handlers of a bot's channels, under
// /api/bots/{id}/channels. Secret settings are masked in every answer.
package channels

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"slices"

	"github.com/cloudwego/hertz/pkg/app"

	channelapp "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// Console serves the channel routes of the console API.
type Console struct {
	Svc *channelapp.Service
}

// ChannelDTO is a channel as the API shows it: secrets masked.
type ChannelDTO struct {
	ID               httpx.ID         `json:"id"`
	BotID            httpx.ID         `json:"bot_id"`
	Kind             string           `json:"kind"`
	Name             string           `json:"name"`
	Status           string           `json:"status"`
	StatusDetail     string           `json:"status_detail"`
	WebhookURL       string           `json:"webhook_url"`
	ChatURL          string           `json:"chat_url,omitempty"`   // web chats: the hosted page
	EmbedHTML        string           `json:"embed_html,omitempty"` // web chats: the bubble's snippet
	Settings         channel.Settings `json:"settings"`
	PublishedVersion int64            `json:"published_version"`
	CreatedAt        int64            `json:"created_at"`
	UpdatedAt        int64            `json:"updated_at"`
}

func (h Console) dto(c *app.RequestContext, ch *channel.Channel) ChannelDTO {
	spec, _ := channel.SpecOf(ch.Kind)
	base := requestBase(c)
	return ChannelDTO{ID: httpx.ID(ch.ID), BotID: httpx.ID(ch.BotID), Kind: string(ch.Kind), Name: ch.Name,
		Status: string(ch.Status), StatusDetail: ch.StatusDetail, WebhookURL: h.Svc.WebhookURL(base, ch),
		ChatURL: h.Svc.ChatURL(base, ch), EmbedHTML: h.Svc.EmbedHTML(base, ch),
		Settings: spec.Mask(ch.Settings), PublishedVersion: ch.PublishedVersion,
		CreatedAt: httpx.Unix(ch.CreatedAt), UpdatedAt: httpx.Unix(ch.UpdatedAt)}
}

// requestBase is the scheme and host the request came to.
func requestBase(c *app.RequestContext) string {
	scheme := string(c.URI().Scheme())
	if scheme == "" {
		scheme = "http"
	}
	return scheme + "://" + string(c.Host())
}

// Create answers POST /api/bots/:id/channels {kind, name?, settings} with
// 201 and the channel.
func (h Console) Create(ctx context.Context, c *app.RequestContext) error {
	botID, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	var req struct {
		Kind     string         `json:"kind"`
		Name     string         `json:"name"`
		Settings map[string]any `json:"settings"`
	}
	if err := bindKnown(c, &req, "kind", "name", "settings"); err != nil {
		return err
	}
	ch, err := h.Svc.Create(ctx, httpx.Caller(c), botID, channelapp.CreateInput{Kind: req.Kind, Name: req.Name, Settings: req.Settings}, requestBase(c))
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, httpx.Envelope{Data: h.dto(c, ch)})
	return nil
}

// List answers GET /api/bots/:id/channels.
func (h Console) List(ctx context.Context, c *app.RequestContext) error {
	botID, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	list, err := h.Svc.List(ctx, httpx.Caller(c), botID)
	if err != nil {
		return err
	}
	out := make([]ChannelDTO, len(list))
	for i := range list {
		out[i] = h.dto(c, &list[i])
	}
	httpx.OK(c, map[string]any{"channels": out})
	return nil
}

// ids reads the bot and channel ids of the path.
func ids(c *app.RequestContext) (int64, int64, error) {
	botID, err := httpx.PathID(c, "id")
	if err != nil {
		return 0, 0, err
	}
	id, err := httpx.PathID(c, "channel_id")
	return botID, id, err
}

// Get answers GET /api/bots/:id/channels/:channel_id.
func (h Console) Get(ctx context.Context, c *app.RequestContext) error {
	botID, id, err := ids(c)
	if err != nil {
		return err
	}
	ch, err := h.Svc.Get(ctx, httpx.Caller(c), botID, id)
	if err != nil {
		return err
	}
	httpx.OK(c, h.dto(c, ch))
	return nil
}

// Update answers PATCH /api/bots/:id/channels/:channel_id {name?, status?,
// settings?}.
func (h Console) Update(ctx context.Context, c *app.RequestContext) error {
	botID, id, err := ids(c)
	if err != nil {
		return err
	}
	var req struct {
		Kind     *string        `json:"kind"`
		Name     *string        `json:"name"`
		Status   *string        `json:"status"`
		Settings map[string]any `json:"settings"`
	}
	if err := bindKnown(c, &req, "kind", "name", "status", "settings"); err != nil {
		return err
	}
	ch, err := h.Svc.Update(ctx, httpx.Caller(c), botID, id, channelapp.Patch{Kind: req.Kind, Name: req.Name, Status: req.Status, Settings: req.Settings})
	if err != nil {
		return err
	}
	httpx.OK(c, h.dto(c, ch))
	return nil
}

// Delete answers DELETE /api/bots/:id/channels/:channel_id.
func (h Console) Delete(ctx context.Context, c *app.RequestContext) error {
	botID, id, err := ids(c)
	if err != nil {
		return err
	}
	if err := h.Svc.Delete(ctx, httpx.Caller(c), botID, id); err != nil {
		return err
	}
	httpx.OK(c, nil)
	return nil
}

// bindKnown decodes a JSON object body into dst and refuses top-level
// fields other than known, so a misspelt field is reported rather than
// ignored.
func bindKnown(c *app.RequestContext, dst any, known ...string) error {
	if err := httpx.BindJSON(c, dst); err != nil {
		return err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(c.Request.Body(), &fields); err != nil {
		return nil // an empty body; BindJSON accepted it
	}
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		if !slices.Contains(known, name) {
			return errs.Invalid(name, "is not a field of this request; use %v", known)
		}
	}
	return nil
}
