package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestConversationsE2E drives the Coze conversation and message API over
// HTTP on every back end: the lifecycle, cursor paging, isolation between
// tenants, malformed input, and conversations bound to a bot.
func TestConversationsE2E(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			s := startServer(t, b.env(t))
			conv, answer := conversationLifecycle(t, s, bootstrapToken)
			conversationPaging(t, s, bootstrapToken)
			conversationIsolation(t, s, conv, answer)
			conversationBadInput(t, s, conv)
			conversationWithBot(t, s)
			s.call(t, "DELETE", "/v1/conversations/"+conv, bootstrapToken, nil).must(t, 200)
			s.call(t, "GET", "/v1/conversation/retrieve?conversation_id="+conv, bootstrapToken, nil).fails(t, 404, 4200, "conversation "+conv+" not found")
			s.call(t, "POST", "/v1/conversation/message/list?conversation_id="+conv, bootstrapToken, nil).fails(t, 404, 4200, "not found")
		})
	}
}

// convMessagePath builds a /v1/conversation/message/* path.
func convMessagePath(op, conv, msg string) string {
	p := "/v1/conversation/message/" + op + "?conversation_id=" + conv
	if msg != "" {
		p += "&message_id=" + msg
	}
	return p
}

// conversationLifecycle creates a conversation with first messages and
// walks it through every route; it returns the conversation and its
// assistant answer.
func conversationLifecycle(t *testing.T, s *testServer, tok string) (conv, answer string) {
	image := `[{"type":"text","text":"what is this?"},{"type":"image","file_url":"https://example.com/cat.png"}]`
	created := s.call(t, "POST", "/v1/conversation/create", tok, map[string]any{
		"bot_id": "", "connector_id": "", "meta_data": map[string]string{"k": "v"},
		"messages": []map[string]any{
			{"role": "user", "content": image, "content_type": "object_string", "id": "", "chat_id": "", "created_at": 0},
			{"role": "assistant", "content": "a cat", "content_type": "text", "type": "answer"},
		},
	}).must(t, 200).data
	conv, section := str(created, "id"), str(created, "last_section_id")
	meta, _ := created["meta_data"].(map[string]any)
	if conv == "" || section == "" || meta["k"] != "v" || str(created, "bot_id") != "" || str(created, "connector_id") != "1024" {
		t.Fatalf("created %v", created)
	}
	got := s.call(t, "GET", "/v1/conversation/retrieve?conversation_id="+conv, tok, nil).must(t, 200).data
	if str(got, "id") != conv || str(got, "last_section_id") != section {
		t.Fatalf("retrieved %v", got)
	}
	renamed := s.call(t, "PUT", "/v1/conversations/"+conv, tok, map[string]any{"name": "Pets"}).must(t, 200).data
	if str(renamed, "name") != "Pets" {
		t.Fatalf("renamed %v", renamed)
	}

	first := convListMessages(t, s, tok, conv, map[string]any{"order": "asc"})
	if len(first) != 2 || str(first[0], "content") != image || str(first[0], "content_type") != "object_string" ||
		str(first[1], "type") != "answer" || str(first[0], "section_id") != section {
		t.Fatalf("first messages %v", first)
	}
	answer = str(first[1], "id")

	// @coze/api sends object_string content as the array itself.
	arr := s.call(t, "POST", convMessagePath("create", conv, ""), tok, map[string]any{
		"role": "assistant", "content_type": "object_string",
		"content": []map[string]string{{"type": "file", "file_url": "https://example.com/a.pdf"}},
	}).must(t, 200).data
	if str(arr, "content") != `[{"file_url":"https://example.com/a.pdf","type":"file"}]` {
		t.Fatalf("array content stored as %q", str(arr, "content"))
	}
	msg := s.call(t, "POST", convMessagePath("create", conv, ""), tok, map[string]any{"role": "user", "content": "hello", "content_type": "text"}).must(t, 200).data
	for _, key := range []string{"id", "conversation_id", "bot_id", "chat_id", "section_id", "role", "type", "content", "content_type", "reasoning_content", "meta_data", "created_at", "updated_at"} {
		if _, ok := msg[key]; !ok {
			t.Fatalf("message lacks %q: %v", key, msg)
		}
	}
	if m, ok := msg["meta_data"].(map[string]any); !ok || len(m) != 0 || str(msg, "chat_id") != "" || str(msg, "type") != "question" {
		t.Fatalf("message %v", msg)
	}
	id := str(msg, "id")
	if got := s.call(t, "GET", convMessagePath("retrieve", conv, id), tok, nil).must(t, 200).data; str(got, "content") != "hello" {
		t.Fatalf("retrieved %v", got)
	}
	modified := s.call(t, "POST", convMessagePath("modify", conv, id), tok, map[string]any{
		"content": "edited", "meta_data": map[string]string{"x": "y"}, "conversation_id": "", "message_id": "",
	}).must(t, 200)
	if m, _ := modified.raw["message"].(map[string]any); str(m, "content") != "edited" || modified.raw["data"] != nil {
		t.Fatalf("modify answered %v, want the message under \"message\"", modified.raw)
	}
	deleted := s.call(t, "POST", convMessagePath("delete", conv, id), tok, nil).must(t, 200).data
	if str(deleted, "id") != id || str(deleted, "content") != "edited" {
		t.Fatalf("deleted %v", deleted)
	}
	s.call(t, "GET", convMessagePath("retrieve", conv, id), tok, nil).fails(t, 404, 4200, "message "+id+" not found")

	feedback := "/v1/conversations/" + conv + "/messages/" + answer + "/feedback"
	s.call(t, "POST", feedback, tok, map[string]any{"feedback_type": "unlike", "reason_types": []string{"wrong"}, "comment": "no"}).must(t, 200)
	s.call(t, "DELETE", feedback, tok, nil).must(t, 200)
	s.call(t, "POST", "/v1/conversations/"+conv+"/messages/"+str(first[0], "id")+"/feedback", tok,
		map[string]any{"feedback_type": "like"}).fails(t, 400, 4000, "message_id")

	cleared := s.call(t, "POST", "/v1/conversations/"+conv+"/clear", tok, nil).must(t, 200).data
	if str(cleared, "id") == "" || str(cleared, "id") == section || str(cleared, "conversation_id") != conv {
		t.Fatalf("cleared %v (section was %s)", cleared, section)
	}
	after := s.call(t, "POST", convMessagePath("create", conv, ""), tok, map[string]any{"role": "user", "content": "new topic"}).must(t, 200).data
	if str(after, "section_id") != str(cleared, "id") {
		t.Fatalf("message after clear in section %s, want %s", str(after, "section_id"), str(cleared, "id"))
	}
	if all := convListMessages(t, s, tok, conv, nil); len(all) != 4 {
		t.Fatalf("%d messages listed after clear, want the 3 before and the new one", len(all))
	}
	return conv, answer
}

// convListMessages returns one page of messages, checking the top-level shape.
func convListMessages(t *testing.T, s *testServer, tok, conv string, body map[string]any) []map[string]any {
	t.Helper()
	page := s.call(t, "POST", convMessagePath("list", conv, ""), tok, body).must(t, 200)
	if _, ok := page.raw["has_more"].(bool); !ok {
		t.Fatalf("message list answer %v has no top-level has_more", page.raw)
	}
	list := items(t, page.raw, "data")
	if len(list) > 0 && (page.raw["first_id"] != list[0]["id"] || page.raw["last_id"] != list[len(list)-1]["id"]) {
		t.Fatalf("first_id/last_id %v/%v do not match the page", page.raw["first_id"], page.raw["last_id"])
	}
	return list
}

// conversationPaging follows last_id as SDK iterators do, in both orders,
// until has_more is false: every message is seen once, in order.
func conversationPaging(t *testing.T, s *testServer, tok string) {
	conv := str(s.call(t, "POST", "/v1/conversation/create", tok, map[string]any{}).must(t, 200).data, "id")
	const n = 23
	for i := range n {
		s.call(t, "POST", convMessagePath("create", conv, ""), tok, map[string]any{"role": "user", "content": fmt.Sprint(i)}).must(t, 200)
	}
	for _, order := range []string{"desc", "asc"} {
		var seen []string
		body := map[string]any{"order": order, "limit": 5}
		for pages := 1; ; pages++ {
			if pages > n {
				t.Fatalf("order %s: paging did not end", order)
			}
			page := s.call(t, "POST", convMessagePath("list", conv, ""), tok, body).must(t, 200)
			for _, m := range items(t, page.raw, "data") {
				seen = append(seen, str(m, "content"))
			}
			if page.raw["has_more"] != true {
				break
			}
			body["after_id"] = page.raw["last_id"]
		}
		want := make([]string, n)
		for i := range n {
			want[i] = fmt.Sprint(i)
			if order == "desc" {
				want[i] = fmt.Sprint(n - 1 - i)
			}
		}
		if strings.Join(seen, ",") != strings.Join(want, ",") {
			t.Fatalf("order %s: seen %v, want %v", order, seen, want)
		}
	}
}

// convUserToken creates a user through the admin API and returns a PAT of it.
func convUserToken(t *testing.T, s *testServer, email string) string {
	s.call(t, "POST", "/api/admin/users", bootstrapToken, map[string]any{"email": email, "name": "U", "password": "user-password-1"}).must(t, 201)
	login := s.call(t, "POST", "/api/auth/login", "", map[string]any{"email": email, "password": "user-password-1"}).must(t, 200)
	pat := s.call(t, "POST", "/api/tokens", str(login.data, "token"), map[string]any{"name": "api"}).must(t, 201)
	return str(pat.data, "token")
}

// conversationIsolation shows that another tenant gets 404 for the
// conversation and its messages and changes nothing.
func conversationIsolation(t *testing.T, s *testServer, conv, answer string) {
	bob := convUserToken(t, s, "bob.conv@example.com")
	team := str(s.call(t, "POST", "/api/workspaces", bootstrapToken, map[string]any{"name": "Other team"}).must(t, 201).data, "id")
	onlyTeam := str(s.call(t, "POST", "/api/tokens", bootstrapToken, map[string]any{"name": "team only", "workspace_ids": []string{team}}).must(t, 201).data, "token")
	fb := "/v1/conversations/" + conv + "/messages/" + answer + "/feedback"
	calls := []struct {
		method, path string
		body         any
	}{
		{"GET", "/v1/conversation/retrieve?conversation_id=" + conv, nil},
		{"PUT", "/v1/conversations/" + conv, map[string]any{"name": "mine"}},
		{"DELETE", "/v1/conversations/" + conv, nil},
		{"POST", "/v1/conversations/" + conv + "/clear", nil},
		{"POST", convMessagePath("create", conv, ""), map[string]any{"role": "user", "content": "x"}},
		{"POST", convMessagePath("list", conv, ""), nil},
		{"GET", convMessagePath("retrieve", conv, answer), nil},
		{"POST", convMessagePath("modify", conv, answer), map[string]any{"content": "hacked"}},
		{"POST", convMessagePath("delete", conv, answer), nil},
		{"POST", fb, map[string]any{"feedback_type": "like"}},
		{"DELETE", fb, nil},
	}
	for _, tok := range []string{bob, onlyTeam} {
		for _, c := range calls {
			s.call(t, c.method, c.path, tok, c.body).fails(t, 404, 4200, "conversation "+conv+" not found")
		}
	}
	got := s.call(t, "GET", "/v1/conversation/retrieve?conversation_id="+conv, bootstrapToken, nil).must(t, 200).data
	msg := s.call(t, "GET", convMessagePath("retrieve", conv, answer), bootstrapToken, nil).must(t, 200).data
	if str(got, "name") != "Pets" || str(msg, "content") != "a cat" {
		t.Fatalf("another tenant changed the conversation: %v, %v", got, msg)
	}
	// Bob's own conversation lands in his personal workspace.
	s.call(t, "POST", "/v1/conversation/create", bob, map[string]any{}).must(t, 200)
}

// conversationBadInput checks that malformed input is a 400 naming the field.
func conversationBadInput(t *testing.T, s *testServer, conv string) {
	tok := bootstrapToken
	tooMany := map[string]string{}
	for i := range 17 {
		tooMany[fmt.Sprint("k", i)] = "v"
	}
	bad := []struct {
		method, path string
		body         any
		field        string
	}{
		{"POST", "/v1/conversation/create", map[string]any{"messages": []map[string]any{{"role": "user", "content": "x", "content_type": "image"}}}, "messages[0].content_type"},
		{"POST", "/v1/conversation/create", map[string]any{"messages": []map[string]any{{"role": "user", "content": "hi", "content_type": "object_string"}}}, "messages[0].content"},
		{"POST", "/v1/conversation/create", map[string]any{"meta_data": tooMany}, "meta_data"},
		{"POST", "/v1/conversation/create", map[string]any{"bot_id": "abc"}, "bot_id"},
		{"POST", convMessagePath("create", conv, ""), map[string]any{"role": "user", "content": "x", "content_type": "video"}, "content_type"},
		{"POST", convMessagePath("create", conv, ""), map[string]any{"role": "user", "content": `{"type":"text"}`, "content_type": "object_string"}, "content"},
		{"POST", convMessagePath("create", conv, ""), map[string]any{"role": "system", "content": "x"}, "role"},
		{"POST", convMessagePath("list", conv, ""), map[string]any{"limit": 0}, "limit"},
		{"POST", convMessagePath("list", conv, ""), map[string]any{"limit": 500}, "limit"},
		{"POST", convMessagePath("list", conv, ""), map[string]any{"order": "sideways"}, "order"},
		{"POST", convMessagePath("list", conv, ""), map[string]any{"after_id": "x1"}, "after_id"},
		{"POST", convMessagePath("list", "", ""), nil, "conversation_id"},
		{"GET", "/v1/conversation/retrieve?conversation_id=abc", nil, "conversation_id"},
		{"GET", "/v1/conversations", nil, "bot_id"},
		{"PUT", "/v1/conversations/" + conv, map[string]any{"name": " "}, "name"},
	}
	for _, c := range bad {
		s.call(t, c.method, c.path, tok, c.body).fails(t, 400, 4000, c.field)
	}
}

// conversationWithBot binds conversations to a bot of a team workspace.
func conversationWithBot(t *testing.T, s *testServer) {
	tok := bootstrapToken
	s.call(t, "POST", "/api/admin/models", tok, map[string]any{"id": "fake", "provider": "openai",
		"base_url": "http://127.0.0.1:1/v1", "api_key": "x", "model": "fake", "capabilities": map[string]any{"tools": true}}).must(t, 201)
	team := str(s.call(t, "POST", "/api/workspaces", tok, map[string]any{"name": "Bots"}).must(t, 201).data, "id")
	bot := str(s.call(t, "POST", "/v1/bot/create", tok, map[string]any{"space_id": team, "name": "Helper",
		"model_info_config": map[string]any{"model_id": "fake"}}).must(t, 200).data, "bot_id")
	conv := s.call(t, "POST", "/v1/conversation/create", tok, map[string]any{"bot_id": bot}).must(t, 200).data
	if str(conv, "bot_id") != bot {
		t.Fatalf("conversation %v is not bound to bot %s", conv, bot)
	}
	msg := s.call(t, "POST", convMessagePath("create", str(conv, "id"), ""), tok, map[string]any{"role": "user", "content": "hi"}).must(t, 200).data
	if str(msg, "bot_id") != bot {
		t.Fatalf("message %v lacks bot %s", msg, bot)
	}
	listed := s.call(t, "GET", "/v1/conversations?bot_id="+bot+"&page_num=1&page_size=10", tok, nil).must(t, 200).data
	if list := items(t, listed, "conversations"); len(list) != 1 || str(list[0], "id") != str(conv, "id") || listed["has_more"] != false {
		t.Fatalf("listed %v", listed)
	}
	bob := convUserToken(t, s, "bob.bots@example.com")
	s.call(t, "POST", "/v1/conversation/create", bob, map[string]any{"bot_id": bot}).fails(t, 404, 4200, "bot "+bot+" not found")
	s.call(t, "GET", "/v1/conversations?bot_id="+bot, bob, nil).fails(t, 404, 4200, "bot "+bot+" not found")
}
