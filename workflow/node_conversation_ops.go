package workflow

import (
	"context"
	"fmt"
	"strconv"
)

// The operations of conversation nodes. Ids travel as text, as Coze's do.

func convCreate(ctx context.Context, st ConversationStore, s Scope, in map[string]any) (map[string]any, error) {
	id, existed, err := st.CreateConversation(ctx, s, text(in["conversationName"]))
	if err != nil {
		return nil, err
	}
	return map[string]any{"isSuccess": true, "isExisted": existed, "conversationId": numID(id)}, nil
}

func convUpdate(ctx context.Context, st ConversationStore, s Scope, in map[string]any) (map[string]any, error) {
	id, ok, existed, err := st.RenameConversation(ctx, s, text(in["conversationName"]), text(in["newConversationName"]))
	if err != nil {
		return nil, err
	}
	return map[string]any{"isSuccess": ok, "isExisted": existed, "conversationId": numID(id)}, nil
}

func convDelete(ctx context.Context, st ConversationStore, s Scope, in map[string]any) (map[string]any, error) {
	found, err := st.DeleteConversation(ctx, s, text(in["conversationName"]))
	return map[string]any{"isSuccess": found}, err
}

func convClear(ctx context.Context, st ConversationStore, s Scope, in map[string]any) (map[string]any, error) {
	found, err := st.ClearConversation(ctx, s, text(in["conversationName"]))
	return map[string]any{"isSuccess": found}, err
}

func convList(ctx context.Context, st ConversationStore, s Scope, _ map[string]any) (map[string]any, error) {
	list, err := st.ListConversations(ctx, s)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(list))
	for i, c := range list {
		out[i] = map[string]any{"conversationName": c.Name, "conversationId": numID(c.ID)}
	}
	return map[string]any{"conversationList": out}, nil
}

func convHistory(ctx context.Context, st ConversationStore, s Scope, in map[string]any) (map[string]any, error) {
	rounds := wholeInput(in["rounds"], 3)
	msgs, err := st.History(ctx, s, text(in["conversationName"]), rounds)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(msgs))
	for i, m := range msgs {
		out[i] = map[string]any{"role": m.Role, "content": m.Content}
	}
	return map[string]any{"messageList": out}, nil
}

func msgCreate(ctx context.Context, st ConversationStore, s Scope, in map[string]any) (map[string]any, error) {
	role, content := text(in["role"]), text(in["content"])
	if role != "user" && role != "assistant" {
		return nil, permanent(fmt.Errorf("role must be user or assistant; got %q", role))
	}
	m, found, err := st.CreateMessage(ctx, s, text(in["conversationName"]), role, content)
	if err != nil {
		return nil, err
	}
	msg := map[string]any{"messageId": numID(m.ID), "role": role, "contentType": "text", "content": content}
	return map[string]any{"isSuccess": found, "message": msg}, nil
}

func msgEdit(ctx context.Context, st ConversationStore, s Scope, in map[string]any) (map[string]any, error) {
	found, err := st.EditMessage(ctx, s, text(in["conversationName"]), idInput(in["messageId"]), text(in["newContent"]))
	return map[string]any{"isSuccess": found}, err
}

func msgDelete(ctx context.Context, st ConversationStore, s Scope, in map[string]any) (map[string]any, error) {
	found, err := st.DeleteMessage(ctx, s, text(in["conversationName"]), idInput(in["messageId"]))
	return map[string]any{"isSuccess": found}, err
}

func msgList(ctx context.Context, st ConversationStore, s Scope, in map[string]any) (map[string]any, error) {
	q := MessagePage{BeforeID: idInput(in["beforeId"]), AfterID: idInput(in["afterId"]), Limit: min(wholeInput(in["limit"], 50), 50)}
	msgs, more, err := st.ListMessages(ctx, s, text(in["conversationName"]), q)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(msgs))
	first, last := "", ""
	for i, m := range msgs {
		out[i] = map[string]any{"messageId": numID(m.ID), "role": m.Role, "contentType": "text", "content": m.Content}
		if i == 0 {
			first = numID(m.ID)
		}
		last = numID(m.ID)
	}
	return map[string]any{"messageList": out, "firstId": first, "lastId": last, "hasMore": more}, nil
}

// idInput reads an id given as text or a number; 0 when absent or wrong.
func idInput(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	case string:
		n, _ := strconv.ParseInt(x, 10, 64)
		return n
	}
	return 0
}

// wholeInput reads a positive whole number, or def.
func wholeInput(v any, def int) int {
	if n := idInput(v); n > 0 {
		return int(n)
	}
	return def
}

// numID writes an id as Coze's conversation nodes do: "0" for none.
func numID(id int64) string { return strconv.FormatInt(id, 10) }
