package main

import (
	"strings"
	"testing"
)

// feedbackChat runs one chat with the bot and returns its conversation,
// chat and answer message ids.
func feedbackChat(t *testing.T, c *chatSetup, botID, text string) (conv, chat, answer string) {
	t.Helper()
	started := c.s.call(t, "POST", "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u1",
		"additional_messages": userMessage(text)}).must(t, 200)
	conv, chat = str(started.data, "conversation_id"), str(started.data, "id")
	if done := pollChat(t, c.s, conv, chat); str(done, "status") != "completed" {
		t.Fatalf("chat %q ended %v", text, done)
	}
	msgs := c.s.call(t, "GET", "/v3/chat/message/list?conversation_id="+conv+"&chat_id="+chat, bootstrapToken, nil).must(t, 200)
	list, _ := msgs.raw["data"].([]any)
	for _, m := range list {
		if mm := m.(map[string]any); str(mm, "type") == "answer" {
			return conv, chat, str(mm, "id")
		}
	}
	t.Fatalf("chat %q has no answer: %v", text, list)
	return "", "", ""
}

// TestBotFeedbackList gives feedback on two answers of a bot through Coze's
// message feedback route, removes a third, and reads them back through
// GET /api/bots/{id}/feedback with the answers and their questions, paged;
// another bot's list stays empty, a stranger gets 404 and bad paging 400.
// On SQLite and on MariaDB with Redis.
func TestBotFeedbackList(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			s := c.s
			botID := c.bot(t, map[string]any{"name": "Judged", "model": map[string]any{"model_id": "fake"}})
			other := c.bot(t, map[string]any{"name": "Quiet", "model": map[string]any{"model_id": "fake"}})
			fb := func(conv, answer string) string {
				return "/v1/conversations/" + conv + "/messages/" + answer + "/feedback"
			}
			conv1, chat1, ans1 := feedbackChat(t, c, botID, "first question")
			conv2, _, ans2 := feedbackChat(t, c, botID, "second question")
			conv3, _, ans3 := feedbackChat(t, c, botID, "third question")
			feedbackChat(t, c, other, "nobody judges this")
			s.call(t, "POST", fb(conv1, ans1), bootstrapToken, map[string]any{"feedback_type": "unlike",
				"reason_types": []string{"wrong", "rude"}, "comment": "not what I asked"}).must(t, 200)
			s.call(t, "POST", fb(conv3, ans3), bootstrapToken, map[string]any{"feedback_type": "like"}).must(t, 200)
			s.call(t, "DELETE", fb(conv3, ans3), bootstrapToken, nil).must(t, 200)
			s.call(t, "POST", fb(conv2, ans2), bootstrapToken, map[string]any{"feedback_type": "like"}).must(t, 200)

			list := s.call(t, "GET", "/api/bots/"+botID+"/feedback", bootstrapToken, nil).must(t, 200)
			got := items(t, list.data, "items")
			if list.data["total"] != float64(2) || len(got) != 2 {
				t.Fatalf("feedback = %v, want the two answers still judged", list.data)
			}
			if a := got[0]["answer"].(map[string]any); str(got[0], "feedback_type") != "like" || str(a, "id") != ans2 ||
				str(a, "content") != "echo: second question" || str(got[0]["question"].(map[string]any), "content") != "second question" {
				t.Errorf("latest feedback = %v", got[0])
			}
			first := got[1]
			if str(first, "feedback_type") != "unlike" || str(first, "comment") != "not what I asked" || str(first, "chat_id") != chat1 ||
				str(first, "conversation_id") != conv1 || len(first["reason_types"].([]any)) != 2 || first["created_at"].(float64) <= 0 ||
				str(first["question"].(map[string]any), "content") != "first question" {
				t.Errorf("older feedback = %v", first)
			}
			page := s.call(t, "GET", "/api/bots/"+botID+"/feedback?page_size=1&page_num=2", bootstrapToken, nil).must(t, 200)
			if p := items(t, page.data, "items"); len(p) != 1 || str(p[0]["answer"].(map[string]any), "id") != ans1 || page.data["total"] != float64(2) {
				t.Errorf("page 2 of 1 = %v", page.data)
			}
			quiet := s.call(t, "GET", "/api/bots/"+other+"/feedback", bootstrapToken, nil).must(t, 200)
			if len(items(t, quiet.data, "items")) != 0 || quiet.data["total"] != float64(0) {
				t.Errorf("the other bot's feedback = %v", quiet.data)
			}

			s.call(t, "GET", "/api/bots/"+botID+"/feedback?page_size=0", bootstrapToken, nil).fails(t, 400, 4000, "page_size")
			s.call(t, "GET", "/api/bots/abc/feedback", bootstrapToken, nil).fails(t, 400, 4000, "id")
			s.call(t, "GET", "/api/bots/123/feedback", bootstrapToken, nil).fails(t, 404, 4200, "bot 123 not found")
			s.call(t, "POST", "/api/admin/users", bootstrapToken, map[string]any{"email": "eve@example.com", "name": "Eve", "password": "eve-password-1"}).must(t, 201)
			eve := str(s.call(t, "POST", "/api/auth/login", "", map[string]any{"email": "eve@example.com", "password": "eve-password-1"}).must(t, 200).data, "token")
			r := s.call(t, "GET", "/api/bots/"+botID+"/feedback", eve, nil)
			r.fails(t, 404, 4200, "bot "+botID+" not found")
			if strings.Contains(r.msg, "second question") {
				t.Errorf("a stranger reads %q", r.msg)
			}
		})
	}
}
