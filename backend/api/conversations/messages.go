package conversations

import (
	"context"
	"encoding/json"

	"github.com/cloudwego/hertz/pkg/app"

	convapp "github.com/pergola-ai/pergola/application/conversation"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/conversation"
)

// messageIDs reads the conversation_id and message_id query parameters.
func messageIDs(c *app.RequestContext) (conversationID, messageID int64, err error) {
	if conversationID, err = httpx.QueryID(c, "conversation_id", true); err != nil {
		return 0, 0, err
	}
	messageID, err = httpx.QueryID(c, "message_id", true)
	return conversationID, messageID, err
}

// CreateMessage answers POST /v1/conversation/message/create?conversation_id
// with the new message.
func (h Handlers) CreateMessage(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.QueryID(c, "conversation_id", true)
	if err != nil {
		return err
	}
	var body EnterMessage
	if err := httpx.BindJSON(c, &body); err != nil {
		return err
	}
	content, err := contentText("content", body.Content)
	if err != nil {
		return err
	}
	m, err := h.Svc.CreateMessage(ctx, httpx.Caller(c), id, convapp.MessageInput{
		Role: body.Role, Type: body.Type, Content: content, ContentType: body.ContentType, MetaData: body.MetaData,
	})
	if err != nil {
		return err
	}
	httpx.OK(c, NewMessage(m))
	return nil
}

type listBody struct {
	Order    string  `json:"order"`
	ChatID   looseID `json:"chat_id"`
	BeforeID looseID `json:"before_id"`
	AfterID  looseID `json:"after_id"`
	Limit    *int    `json:"limit"`
}

func (b listBody) query() (q conversation.MessageQuery, err error) {
	q.Order, q.Limit = b.Order, convapp.DefaultMessageLimit
	if b.Limit != nil {
		q.Limit = *b.Limit
	}
	if q.ChatID, err = b.ChatID.parse("chat_id"); err != nil {
		return q, err
	}
	if q.BeforeID, err = b.BeforeID.parse("before_id"); err != nil {
		return q, err
	}
	q.AfterID, err = b.AfterID.parse("after_id")
	return q, err
}

// messageList is the answer of the message list: its fields sit beside
// code, not under data.
type messageList struct {
	Code    int       `json:"code"`
	Msg     string    `json:"msg"`
	Data    []Message `json:"data"`
	FirstID string    `json:"first_id"`
	LastID  string    `json:"last_id"`
	HasMore bool      `json:"has_more"`
}

// ListMessages answers POST /v1/conversation/message/list?conversation_id
// with {code, msg, data: [Message], first_id, last_id, has_more}. A client
// continues with after_id = last_id, or goes back with before_id =
// first_id.
func (h Handlers) ListMessages(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.QueryID(c, "conversation_id", true)
	if err != nil {
		return err
	}
	var body listBody
	if err := httpx.BindJSON(c, &body); err != nil {
		return err
	}
	q, err := body.query()
	if err != nil {
		return err
	}
	list, more, err := h.Svc.ListMessages(ctx, httpx.Caller(c), id, q)
	if err != nil {
		return err
	}
	out := messageList{Data: NewMessages(list), HasMore: more}
	if n := len(list); n > 0 {
		out.FirstID, out.LastID = httpx.OptionalID(list[0].ID), httpx.OptionalID(list[n-1].ID)
	}
	httpx.Raw(c, out)
	return nil
}

// RetrieveMessage answers GET /v1/conversation/message/retrieve.
func (h Handlers) RetrieveMessage(ctx context.Context, c *app.RequestContext) error {
	convID, msgID, err := messageIDs(c)
	if err != nil {
		return err
	}
	m, err := h.Svc.GetMessage(ctx, httpx.Caller(c), convID, msgID)
	if err != nil {
		return err
	}
	httpx.OK(c, NewMessage(m))
	return nil
}

type modifyBody struct {
	Content     json.RawMessage    `json:"content"`
	ContentType string             `json:"content_type"`
	MetaData    *map[string]string `json:"meta_data"`
}

// patch reads the change; empty content and content_type count as absent,
// because SDKs send zero values.
func (b modifyBody) patch() (convapp.MessagePatch, error) {
	var p convapp.MessagePatch
	content, err := contentText("content", b.Content)
	if err != nil {
		return p, err
	}
	if content != "" {
		p.Content = &content
	}
	if b.ContentType != "" {
		p.ContentType = &b.ContentType
	}
	p.MetaData = b.MetaData
	return p, nil
}

// ModifyMessage answers POST /v1/conversation/message/modify with
// {code, msg, message: Message}: Coze puts the message under "message".
func (h Handlers) ModifyMessage(ctx context.Context, c *app.RequestContext) error {
	convID, msgID, err := messageIDs(c)
	if err != nil {
		return err
	}
	var body modifyBody
	if err := httpx.BindJSON(c, &body); err != nil {
		return err
	}
	patch, err := body.patch()
	if err != nil {
		return err
	}
	m, err := h.Svc.UpdateMessage(ctx, httpx.Caller(c), convID, msgID, patch)
	if err != nil {
		return err
	}
	httpx.Raw(c, map[string]any{"code": httpx.CodeOK, "msg": "", "message": NewMessage(m)})
	return nil
}

// DeleteMessage answers POST /v1/conversation/message/delete with the
// deleted message.
func (h Handlers) DeleteMessage(ctx context.Context, c *app.RequestContext) error {
	convID, msgID, err := messageIDs(c)
	if err != nil {
		return err
	}
	m, err := h.Svc.DeleteMessage(ctx, httpx.Caller(c), convID, msgID)
	if err != nil {
		return err
	}
	httpx.OK(c, NewMessage(m))
	return nil
}
