package conversations

import (
	"context"
	"strconv"

	"github.com/cloudwego/hertz/pkg/app"

	convapp "github.com/pergola-ai/pergola/application/conversation"
	"github.com/pergola-ai/pergola/backend/api/httpx"
)

// Conversation list page sizes.
const (
	listPageDefault = 20
	listPageMax     = 50
)

// Handlers serves the conversation and message routes.
type Handlers struct {
	Svc *convapp.Service
}

type createBody struct {
	Messages    []EnterMessage    `json:"messages"`
	MetaData    map[string]string `json:"meta_data"`
	BotID       looseID           `json:"bot_id"`
	ConnectorID string            `json:"connector_id"`
}

// Create answers POST /v1/conversation/create with the new conversation.
func (h Handlers) Create(ctx context.Context, c *app.RequestContext) error {
	var body createBody
	if err := httpx.BindJSON(c, &body); err != nil {
		return err
	}
	botID, err := body.BotID.parse("bot_id")
	if err != nil {
		return err
	}
	msgs, err := EnterMessages("messages", body.Messages)
	if err != nil {
		return err
	}
	conv, err := h.Svc.Create(ctx, httpx.Caller(c), convapp.CreateInput{
		BotID: botID, ConnectorID: body.ConnectorID, MetaData: body.MetaData, Messages: msgs,
	})
	if err != nil {
		return err
	}
	httpx.OK(c, NewConversation(conv))
	return nil
}

// Retrieve answers GET /v1/conversation/retrieve?conversation_id.
func (h Handlers) Retrieve(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.QueryID(c, "conversation_id", true)
	if err != nil {
		return err
	}
	conv, err := h.Svc.Get(ctx, httpx.Caller(c), id)
	if err != nil {
		return err
	}
	httpx.OK(c, NewConversation(conv))
	return nil
}

// List answers GET /v1/conversations?bot_id&page_num&page_size with
// {conversations, has_more}.
func (h Handlers) List(ctx context.Context, c *app.RequestContext) error {
	botID, err := httpx.QueryID(c, "bot_id", false)
	if err != nil {
		return err
	}
	page, err := httpx.Paging(c, listPageDefault, listPageMax)
	if err != nil {
		return err
	}
	list, more, err := h.Svc.List(ctx, httpx.Caller(c), botID, page)
	if err != nil {
		return err
	}
	out := make([]Conversation, len(list))
	for i := range list {
		out[i] = NewConversation(&list[i])
	}
	httpx.OK(c, map[string]any{"conversations": out, "has_more": more})
	return nil
}

type updateBody struct {
	Name string `json:"name"`
}

// Update answers PUT /v1/conversations/:conversation_id {name} with the
// renamed conversation.
func (h Handlers) Update(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "conversation_id")
	if err != nil {
		return err
	}
	var body updateBody
	if err := httpx.BindJSON(c, &body); err != nil {
		return err
	}
	conv, err := h.Svc.Rename(ctx, httpx.Caller(c), id, body.Name)
	if err != nil {
		return err
	}
	httpx.OK(c, NewConversation(conv))
	return nil
}

// Delete answers DELETE /v1/conversations/:conversation_id.
func (h Handlers) Delete(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "conversation_id")
	if err != nil {
		return err
	}
	if err := h.Svc.Delete(ctx, httpx.Caller(c), id); err != nil {
		return err
	}
	httpx.OK(c, nil)
	return nil
}

// Clear answers POST /v1/conversations/:conversation_id/clear with the new
// section: {id, conversation_id}.
func (h Handlers) Clear(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "conversation_id")
	if err != nil {
		return err
	}
	section, err := h.Svc.Clear(ctx, httpx.Caller(c), id)
	if err != nil {
		return err
	}
	httpx.OK(c, map[string]string{"id": strconv.FormatInt(section, 10), "conversation_id": strconv.FormatInt(id, 10)})
	return nil
}
