package main

import (
	"strings"
	"testing"
)

// channelsPublishing shows publish enforced per connector: the API answers
// only a bot published to "1024"; a channel records the version last
// published to it; removed, disabled and foreign channels cannot be
// published to; the builder's debug chat keeps using the draft.
func channelsPublishing(t *testing.T, c *channelsSetup) {
	s := c.s
	web := func(botID string) string {
		return str(s.call(t, "POST", "/api/bots/"+botID+"/channels", bootstrapToken, map[string]any{"kind": "web", "settings": map[string]any{}}).must(t, 201).data, "id")
	}
	publish := func(botID string, ids ...string) reply {
		return s.call(t, "POST", "/api/bots/"+botID+"/publish", bootstrapToken, map[string]any{"connector_ids": ids})
	}
	chat := func(botID string) reply {
		return s.call(t, "POST", "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u", "additional_messages": userMessage("hello")})
	}
	complete := func(botID string) reply {
		return s.call(t, "POST", "/v1/chat/completions", bootstrapToken, map[string]any{"model": botID, "messages": []map[string]any{{"role": "user", "content": "hello"}}})
	}

	onAPI := c.bot(t, "On the API")
	ch := web(onAPI)
	publish(onAPI, "1024").must(t, 201)
	done := chat(onAPI).must(t, 200)
	if got := pollChat(t, s, str(done.data, "conversation_id"), str(done.data, "id")); str(got, "status") != "completed" {
		t.Fatalf("API chat = %v", got)
	}
	if r := complete(onAPI); r.status != 200 {
		t.Fatalf("completions = %d %v", r.status, r.raw)
	}
	// Version 2 goes to the channel only (through Coze's route); the API keeps version 1.
	v2 := s.call(t, "POST", "/v1/bot/publish", bootstrapToken, map[string]any{"bot_id": onAPI, "connector_ids": []string{ch}}).must(t, 200).data
	if str(v2, "version") != "2" {
		t.Fatalf("publish to the channel = %v", v2)
	}
	if got := s.call(t, "GET", "/api/bots/"+onAPI+"/channels/"+ch, bootstrapToken, nil).must(t, 200).data; got["published_version"] != float64(2) {
		t.Fatalf("channel's published_version = %v, want 2", got["published_version"])
	}
	chat(onAPI).must(t, 200)

	channelOnly := c.bot(t, "Channel only")
	own := web(channelOnly)
	if v := publish(channelOnly, own).must(t, 201).data; v["version"] != float64(1) {
		t.Fatalf("publish = %v", v)
	}
	chat(channelOnly).fails(t, 403, 4101, "not published to the corresponding channel (the API, connector 1024)")
	if r := complete(channelOnly); r.status != 403 || !contains(r.raw, "not published to the corresponding channel") {
		t.Fatalf("completions of a bot not on the API = %d %v; want 403 saying so", r.status, r.raw)
	}
	events := s.stream(t, "/api/bots/"+channelOnly+"/chat", bootstrapToken, map[string]any{"user_id": "builder", "message": "hello"})
	if answerText(t, events) == "" {
		t.Fatalf("the debug chat did not answer: %v", names(events))
	}

	// What cannot be published to.
	publish(channelOnly, ch).fails(t, 400, 4000, `connector_ids: connector "`+ch+`" is not available`)
	publish(channelOnly, "12345").fails(t, 400, 4000, `"12345" is not available`)
	publish(channelOnly, "slack").fails(t, 400, 4000, `"slack" is not available`)
	s.call(t, "PATCH", "/api/bots/"+channelOnly+"/channels/"+own, bootstrapToken, map[string]any{"status": "disabled"}).must(t, 200)
	publish(channelOnly, "1024", own).fails(t, 400, 4000, "channel "+own+" is disabled")
	s.call(t, "DELETE", "/api/bots/"+channelOnly+"/channels/"+own, bootstrapToken, nil).must(t, 200)
	publish(channelOnly, own).fails(t, 400, 4000, `connector "`+own+`" is not available`)
	if vs := items(t, s.call(t, "GET", "/api/bots/"+channelOnly+"/versions", bootstrapToken, nil).must(t, 200).data, "items"); len(vs) != 1 {
		t.Fatalf("refused publishes stored versions: %v", vs)
	}
	chat(channelOnly).fails(t, 403, 4101, "not published to the corresponding channel")
	publish(channelOnly).must(t, 201) // no connector_ids: the API, as before
	chat(channelOnly).must(t, 200)
}

// contains reports whether an OpenAI error body's message holds text.
func contains(raw map[string]any, text string) bool {
	e, _ := raw["error"].(map[string]any)
	msg, _ := e["message"].(string)
	return strings.Contains(msg, text)
}
