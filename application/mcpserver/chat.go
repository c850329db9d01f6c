package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	chatapp "github.com/pergola-ai/pergola/application/chat"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// chatProgressEvery is how often a chat that runs on reports progress.
const chatProgressEvery = 2 * time.Second

// chat runs one turn of a bot, as /v3/chat does, and waits for its end.
// The answer comes back as text and, with the conversation to continue,
// as structured content.
func (s *Service) chat(ctx context.Context, p identity.Principal, t *Tool, args map[string]any, c Client) (*Result, error) {
	req, bad := chatRequest(p, t, args)
	if bad != nil {
		return bad, nil
	}
	if bad, err := s.ownConversation(ctx, p, req.ConversationID); bad != nil || err != nil {
		return bad, err
	}
	col := newCollector()
	started, err := s.d.Chats.Start(ctx, p, req, col)
	if err != nil {
		return nil, err
	}
	c.Progress(ctx, 0, "chat "+strconv.FormatInt(started.ID, 10)+" of conversation "+strconv.FormatInt(started.ConversationID, 10)+" started")
	chat, answer, err := col.wait(ctx, c)
	if err != nil && ctx.Err() != nil {
		s.cancelChat(ctx, p, started)
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	return chatResult(chat, answer), nil
}

// ownConversation refuses a conversation_id the caller did not start, as
// the conversation resource does: another member's conversation with a
// bot is theirs, and continuing it would show its history to the model.
func (s *Service) ownConversation(ctx context.Context, p identity.Principal, id int64) (*Result, error) {
	if id == 0 || s.d.Conversations == nil {
		return nil, nil
	}
	c, err := s.d.Conversations.Get(ctx, p, id)
	if errors.Is(err, errs.ErrNotFound) || errors.Is(err, errs.ErrForbidden) || err == nil && c.CreatorID != p.UserID {
		return toolError("conversation " + strconv.FormatInt(id, 10) + " not found: pass the conversation_id of an answer you were given"), nil
	}
	return nil, err
}

// chatRequest reads a bot tool's arguments.
func chatRequest(p identity.Principal, t *Tool, args map[string]any) (chatapp.Request, *Result) {
	msg, ok := args["message"].(string)
	if !ok || strings.TrimSpace(msg) == "" {
		return chatapp.Request{}, toolError(`argument "message": must be a non-empty string`)
	}
	req := chatapp.Request{BotID: t.id, UserID: "user-" + strconv.FormatInt(p.UserID, 10), AutoSaveHistory: true,
		AdditionalMessages: []chatapp.InputMessage{{Role: conversation.RoleUser, Content: msg, ContentType: "text"}}}
	if v, ok := args["conversation_id"]; ok && v != nil {
		id, err := idArg(v)
		if err != nil {
			return chatapp.Request{}, toolError(`argument "conversation_id": ` + err.Error())
		}
		req.ConversationID = id
	}
	if v, ok := args["user_id"]; ok && v != nil {
		u, ok := v.(string)
		if !ok {
			return chatapp.Request{}, toolError(`argument "user_id": must be a string`)
		}
		req.UserID = u
	}
	return req, nil
}

// idArg reads an id given as a string of digits (ids exceed JSON's safe
// integers) or as a number.
func idArg(v any) (int64, error) {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case float64:
		s = strconv.FormatFloat(x, 'f', -1, 64)
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("must be the conversation_id of an earlier answer (a string of digits)")
	}
	return id, nil
}

// chatResult turns the chat's end into the tool's result.
func chatResult(chat *conversation.Chat, answer string) *Result {
	switch chat.Status {
	case conversation.ChatCompleted:
		return &Result{Text: answer, Structured: map[string]any{"answer": answer,
			"conversation_id": strconv.FormatInt(chat.ConversationID, 10), "chat_id": strconv.FormatInt(chat.ID, 10)}}
	case conversation.ChatRequiresAction:
		return toolError("the bot asked for the output of a client tool, which an MCP client cannot give; remove client tools from the bot to use it over MCP")
	case conversation.ChatCanceled:
		return toolError("the chat was cancelled")
	}
	msg := "the bot could not answer"
	if chat.LastError != nil && chat.LastError.Msg != "" {
		msg += ": " + chat.LastError.Msg
	}
	return toolError(msg)
}

// collector gathers a chat's events without ever blocking the run.
type collector struct {
	mu     sync.Mutex
	answer strings.Builder
	steps  []string // completed messages other than the answer, not yet reported
	chat   *conversation.Chat
	done   bool
	wake   chan struct{}
}

func newCollector() *collector { return &collector{wake: make(chan struct{}, 1)} }

// Send records an event (chat.Sink).
func (c *collector) Send(e chatapp.Event) {
	c.mu.Lock()
	switch {
	case e.Kind == chatapp.EventMessageDone && e.Message != nil && e.Message.Type == conversation.TypeAnswer:
		c.answer.WriteString(e.Message.Content)
	case e.Kind == chatapp.EventMessageDone && e.Message != nil:
		c.steps = append(c.steps, e.Message.Type)
	case e.Chat != nil && e.Chat.Status.Terminal() || e.Kind == chatapp.EventRequiresAction:
		c.chat = e.Chat
	case e.Kind == chatapp.EventDone:
		c.done = true
	}
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// wait returns the chat once it ended, with its answer, reporting
// progress on each step and while it runs on.
func (c *collector) wait(ctx context.Context, client Client) (*conversation.Chat, string, error) {
	tick := time.NewTicker(chatProgressEvery)
	defer tick.Stop()
	begun, reported := time.Now(), 0.0
	for {
		select {
		case <-ctx.Done():
			return nil, "", ctx.Err()
		case <-tick.C:
			reported++
			client.Progress(ctx, reported, fmt.Sprintf("still answering after %ds", int(time.Since(begun).Seconds())))
		case <-c.wake:
		}
		c.mu.Lock()
		steps, chat, done, answer := c.steps, c.chat, c.done, c.answer.String()
		c.steps = nil
		c.mu.Unlock()
		for _, st := range steps {
			reported++
			client.Progress(ctx, reported, "the bot produced a "+st+" message")
		}
		if done && chat != nil {
			return chat, answer, nil
		}
	}
}

// cancelTimeout bounds the cancelling of a chat whose call was cancelled.
const cancelTimeout = 5 * time.Second

// cancelChat stops the turn of a call the client cancelled (the turn runs
// detached from the call, as every chat turn does): it ends cancelled.
func (s *Service) cancelChat(ctx context.Context, p identity.Principal, chat *conversation.Chat) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelTimeout)
	defer cancel()
	if _, err := s.d.Chats.Cancel(ctx, p, chat.ConversationID, chat.ID); err != nil && !errors.Is(err, errs.ErrConflict) {
		s.d.Log.WarnContext(ctx, "mcp: a cancelled call's chat not cancelled", "chat", chat.ID, "err", err)
	}
}
