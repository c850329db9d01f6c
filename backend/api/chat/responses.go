package chat

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/cloudwego/hertz/pkg/app"

	chatapp "github.com/pergola-ai/pergola/application/chat"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
)

// rsRequest is a request of OpenAI's Responses API. Fields Pergola does
// not use (temperature, metadata, ...) are accepted and ignored: the bot's
// configuration decides them.
type rsRequest struct {
	Model              string          `json:"model"`
	Input              json.RawMessage `json:"input"`
	Instructions       string          `json:"instructions"`
	Tools              []oaTool        `json:"tools"`
	ToolChoice         json.RawMessage `json:"tool_choice"`
	Stream             bool            `json:"stream"`
	PreviousResponseID string          `json:"previous_response_id"`
	Store              *bool           `json:"store"`
	User               string          `json:"user"`
	Text               *rsText         `json:"text"`
	Conversation       json.RawMessage `json:"conversation"`
}

// rsItem is an input item: a message (role and content, the type may be
// left out), a function_call_output, or a function_call the client echoes.
type rsItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
}

// rsInput is the input sorted for a turn, and the same items in order as
// a transcript for a stateless turn.
type rsInput struct {
	messages     []chatapp.InputMessage
	instructions []string // system and developer messages
	outputs      []conversation.ToolOutput
	transcript   []chatapp.CompletionMessage
	calls        bool // the input holds function_call items
	at           inputAt
}

// Responses answers POST /v1/responses: a turn of a published bot (model)
// in a Pergola conversation. previous_response_id continues that
// response's conversation, and function_call_output items answer its
// function calls, resuming its tool round as submit_tool_outputs does.
func (h Handlers) Responses(ctx context.Context, c *app.RequestContext) error {
	var req rsRequest
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	botID, err := modelBotID(req.Model)
	if err != nil {
		return err
	}
	if len(req.Conversation) > 0 && string(req.Conversation) != "null" {
		return errs.Invalid("conversation", "is not supported (there is no /v1/conversations here): continue a conversation with previous_response_id")
	}
	in, err := readInput(req.Input)
	if err != nil {
		return err
	}
	tools, err := requestTools(req.Tools, req.ToolChoice)
	if err != nil {
		return err
	}
	if req.Text != nil {
		tools.Format, err = responseFormat(req.Text.Format, "text.format")
		tools.FormatField = "text.format"
	}
	if err == nil {
		err = needsJSONWord(tools.Format, "text.format", req.Input, []byte(req.Instructions))
	}
	if err != nil {
		return err
	}
	r := &rsReply{model: req.Model, req: &req}
	q := newQueue()
	if stateless(req, in) {
		err = h.completeResponse(withLogID(ctx, c), c, botID, req, in, tools, r, q)
	} else {
		err = h.startResponse(withLogID(ctx, c), c, botID, req, in, tools, r, q)
	}
	if err != nil {
		return modelError(req.Model, err)
	}
	return r.answer(ctx, c, q)
}

// startResponse starts the turn: a new chat, or the continuation of the
// previous response's chat when function call outputs answer it.
func (h Handlers) startResponse(ctx context.Context, c *app.RequestContext, botID int64, req rsRequest, in rsInput, tools chatapp.RequestTools, r *rsReply, q *queue) error {
	p := httpx.Caller(c)
	start := chatapp.Request{BotID: botID, UserID: req.User, AdditionalMessages: in.messages, AutoSaveHistory: true,
		Tools: tools, Instructions: joinInstructions(append(in.instructions, req.Instructions))}
	if req.Store != nil && !*req.Store {
		return errs.Invalid("store", "must be true or left out with previous_response_id: that response's stored conversation is continued")
	}
	if req.PreviousResponseID == "" {
		if start.UserID == "" {
			start.UserID = "user-" + strconv.FormatInt(p.UserID, 10)
		}
		_, err := h.Svc.Start(ctx, p, start, q)
		return in.at.rename(err, "additional_messages", in.at.messages)
	}
	convID, chatID, err := parseResponseID(req.PreviousResponseID)
	if err != nil {
		return err
	}
	prev, err := h.Svc.Get(ctx, p, convID, chatID)
	if err != nil {
		return httpx.WithOpenAICode(err, "", "previous_response_id")
	}
	if prev.BotID != botID {
		return errs.Invalid("previous_response_id", "%s was made by model %d, not %s", req.PreviousResponseID, prev.BotID, req.Model)
	}
	r.previous = req.PreviousResponseID
	if len(in.outputs) > 0 {
		if len(in.messages) > 0 {
			return errs.Invalid("input", "send the function_call_output items alone; a new message can follow in the next request")
		}
		r.suffix = strconv.FormatInt(time.Now().UnixNano(), 36)
		_, err := h.Svc.SubmitWithTools(ctx, p, convID, chatID, in.outputs, tools, q)
		return in.at.rename(err, "tool_outputs", in.at.outputs)
	}
	start.ConversationID, start.UserID = convID, prev.UserID
	_, err = h.Svc.Start(ctx, p, start, q)
	return in.at.rename(err, "additional_messages", in.at.messages)
}

// readInput reads input: a string (one user message) or a list of items.
func readInput(raw json.RawMessage) (rsInput, error) {
	var in rsInput
	var text string
	if json.Unmarshal(raw, &text) == nil {
		if text == "" {
			return in, errs.Invalid("input", "is empty: send the user's text, or a list of input items")
		}
		in.messages = []chatapp.InputMessage{{Role: conversation.RoleUser, Content: text}}
		in.transcript = []chatapp.CompletionMessage{{Role: "user", Content: text}}
		in.at.record(&in, 0)
		return in, nil
	}
	var items []rsItem
	if err := json.Unmarshal(raw, &items); err != nil || len(items) == 0 {
		return in, errs.Invalid("input", "must be a string or a non-empty list of input items")
	}
	in.at.items = true
	for i, it := range items {
		if err := in.add(i, it); err != nil {
			return in, err
		}
		in.at.record(&in, i)
	}
	return in, nil
}

// add sorts input item i.
func (in *rsInput) add(i int, it rsItem) error {
	at := "input[" + strconv.Itoa(i) + "]"
	switch it.Type {
	case "function_call_output":
		if it.CallID == "" {
			return errs.Invalid(at+".call_id", "is required: the call_id of the function_call answered")
		}
		in.outputs = append(in.outputs, conversation.ToolOutput{ToolCallID: it.CallID, Output: outputText(it.Output)})
		in.transcript = append(in.transcript, chatapp.CompletionMessage{Role: "tool", Content: outputText(it.Output), ToolCallID: it.CallID})
		return nil
	case "function_call":
		in.calls = true
		in.addCall(conversation.ToolCall{ID: it.CallID, Name: it.Name, Arguments: it.Arguments})
		return nil
	case "reasoning":
		return nil // the client's copy of what the previous response thought
	case "", "message":
	default:
		return errs.Invalid(at+".type", "must be message, function_call or function_call_output; got %q", it.Type)
	}
	text, err := rsContent(it.Content)
	if err != nil {
		return reField(at+".content", err)
	}
	if text == "" && it.Role == "assistant" {
		return nil // an empty answer echoed back: nothing to send the model
	}
	if text == "" {
		return errs.Invalid(at+".content", "is empty: a %s message needs text", it.Role)
	}
	switch it.Role {
	case "user", "assistant":
		in.messages = append(in.messages, chatapp.InputMessage{Role: it.Role, Content: text})
		in.transcript = append(in.transcript, chatapp.CompletionMessage{Role: it.Role, Content: text})
	case "system", "developer":
		in.instructions = append(in.instructions, text)
		in.transcript = append(in.transcript, chatapp.CompletionMessage{Role: "system", Content: text})
	default:
		return errs.Invalid(at+".role", "must be user, assistant, system or developer; got %q", it.Role)
	}
	return nil
}

// rsContent reads a message's content: a string, or parts whose text
// (input_text, output_text, text) is joined.
func rsContent(raw json.RawMessage) (string, error) {
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			if p.Type != "input_text" && p.Type != "output_text" && p.Type != "text" {
				return "", errs.Invalid("content", "parts of type %q are not supported; send input_text", p.Type)
			}
			b.WriteString(p.Text)
		}
		return b.String(), nil
	}
	return contentOf(raw)
}

// outputText reads a function_call_output's output: a string, or else the
// JSON as sent.
func outputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// responseID names a response by its conversation and chat, so that
// previous_response_id and GET /v1/responses/{id} find them; a
// continuation of a chat (function outputs) adds a suffix.
func responseID(convID, chatID int64, suffix string) string {
	id := "resp_" + strconv.FormatInt(convID, 10) + "_" + strconv.FormatInt(chatID, 10)
	if suffix != "" {
		id += "_" + suffix
	}
	return id
}

// parseResponseID reads a response id back.
func parseResponseID(id string) (convID, chatID int64, err error) {
	parts := strings.Split(strings.TrimPrefix(id, "resp_"), "_")
	if strings.HasPrefix(id, "resp_") && len(parts) >= 2 {
		convID, err1 := strconv.ParseInt(parts[0], 10, 64)
		chatID, err2 := strconv.ParseInt(parts[1], 10, 64)
		if err1 == nil && err2 == nil && convID > 0 && chatID > 0 {
			return convID, chatID, nil
		}
	}
	return 0, 0, httpx.WithOpenAICode(errs.New(errs.ErrNotFound, "Response with id '%s' not found.", id), "", "previous_response_id")
}

// joinInstructions joins the non-empty instructions of a request.
func joinInstructions(list []string) string {
	kept := list[:0]
	for _, s := range list {
		if strings.TrimSpace(s) != "" {
			kept = append(kept, s)
		}
	}
	return strings.Join(kept, "\n\n")
}
