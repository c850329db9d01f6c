package main

import (
	"strings"
	"testing"
	"time"
)

// botTriggerEdited edits the paused trigger id: refusals naming the
// field, another chat and prompt, then an end user of the API.
func botTriggerEdited(t *testing.T, p *platformsSetup, id string) {
	path := "/api/triggers/" + id
	for field, body := range map[string]map[string]any{
		"cron":             {"cron": "every day"},
		"interval_seconds": {"interval_seconds": 0.5},
		"time_zone":        {"cron": "0 8 * * *", "time_zone": "Mars/Olympus"},
		"missed":           {"missed": "all"},
		"workflow_id":      {"workflow_id": "1"},
		"chat_id":          {"chat_id": "general"},
		"inputs":           {"inputs": map[string]any{"city": "Paris"}},
	} {
		p.s.call(t, "PATCH", path, bootstrapToken, body).fails(t, 400, 4000, field)
	}
	p.s.call(t, "PATCH", "/api/triggers/123456", bootstrapToken, map[string]any{"prompt": "x"}).fails(t, 404, 4200, "trigger")
	d := p.s.call(t, "PATCH", path, bootstrapToken, map[string]any{"prompt": "the plan for tomorrow", "chat_id": "-5151", "missed": "run_once"}).must(t, 200).data
	if str(d, "prompt") != "the plan for tomorrow" || str(d, "chat_id") != "-5151" || str(d, "missed") != "run_once" || str(d, "state") != "paused" {
		t.Fatalf("edited = %v", d)
	}
	p.s.call(t, "POST", path+"/resume", bootstrapToken, nil).must(t, 200)
	waitSent(t, p, -5151, 1, "echo: the plan for tomorrow")
	p.s.call(t, "POST", path+"/pause", bootstrapToken, nil).must(t, 200)
	d = p.s.call(t, "PATCH", path, bootstrapToken, map[string]any{"user_id": "ann", "cron": "0 8 * * *", "time_zone": "Asia/Tokyo"}).must(t, 200).data
	if str(d, "user_id") != "ann" || d["channel_id"] != nil || d["chat_id"] != nil || str(d, "cron") != "0 8 * * *" || d["interval_seconds"] != nil {
		t.Fatalf("edited for an end user = %v", d)
	}
	p.s.call(t, "PATCH", path, bootstrapToken, map[string]any{"interval_seconds": 1}).must(t, 200)
	p.s.call(t, "POST", path+"/resume", bootstrapToken, nil).must(t, 200)
	tr := waitTrigger(t, p.s, id, func(tr map[string]any) bool {
		return str(tr, "conversation_id") != "" && str(tr, "last_status") == "succeeded"
	})
	p.s.call(t, "POST", path+"/pause", bootstrapToken, nil).must(t, 200)
	msgs := p.s.call(t, "GET", "/v3/chat/message/list?conversation_id="+str(tr, "conversation_id")+"&chat_id="+str(tr, "last_run_id"),
		bootstrapToken, nil).must(t, 200)
	list, _ := msgs.raw["data"].([]any)
	if len(list) == 0 || str(list[0].(map[string]any), "content") != "echo: the plan for tomorrow" {
		t.Fatalf("the end user's chat = %v; want the bot's answer", list)
	}
}

// waitTrigger polls trigger id until ok holds, for 15s at most.
func waitTrigger(t *testing.T, s *testServer, id string, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		tr := s.call(t, "GET", "/api/triggers/"+id, bootstrapToken, nil).must(t, 200).data
		if ok(tr) {
			return tr
		}
		if time.Now().After(deadline) {
			t.Fatalf("trigger %s after 15s = %v", id, tr)
		}
	}
}

// botTriggerPages lists the workspace's triggers two at a time.
func botTriggerPages(t *testing.T, p *platformsSetup, first string) {
	var ids []string
	for _, name := range []string{"second", "third"} {
		ids = append(ids, str(p.s.call(t, "POST", "/api/triggers", bootstrapToken, map[string]any{"name": name, "kind": "schedule",
			"bot_id": p.botID, "prompt": "hello", "user_id": "ann", "cron": "@yearly"}).must(t, 201).data, "id"))
	}
	list := "/api/triggers?workspace_id=" + p.ws + "&page_size=2"
	one := p.s.call(t, "GET", list, bootstrapToken, nil).must(t, 200).data
	two := p.s.call(t, "GET", list+"&page_num=2", bootstrapToken, nil).must(t, 200).data
	page1, page2 := items(t, one, "items"), items(t, two, "items")
	if one["total"] != float64(3) || len(page1) != 2 || str(page1[0], "id") != first || str(page1[1], "id") != ids[0] ||
		len(page2) != 1 || str(page2[0], "id") != ids[1] {
		t.Fatalf("pages = %v and %v; want 3 triggers, oldest first, two then one", one, two)
	}
	p.s.call(t, "GET", list+"&page_num=0", bootstrapToken, nil).fails(t, 400, 4000, "page_num")
	p.s.call(t, "GET", "/api/triggers?workspace_id="+p.ws+"&page_size=101", bootstrapToken, nil).fails(t, 400, 4000, "page_size")
}

// botTriggerBotDeleted resumes trigger id and deletes its bot: the next
// tick pauses it saying so.
func botTriggerBotDeleted(t *testing.T, p *platformsSetup, id string) {
	p.s.call(t, "POST", "/api/triggers/"+id+"/resume", bootstrapToken, nil).must(t, 200)
	p.s.call(t, "DELETE", "/api/bots/"+p.botID, bootstrapToken, nil).must(t, 200)
	tr := waitTrigger(t, p.s, id, func(tr map[string]any) bool { return str(tr, "state") == "paused" })
	if !strings.Contains(str(tr, "pause_reason"), "bot "+p.botID+" was deleted") || str(tr, "last_status") != "failed" {
		t.Fatalf("trigger of a deleted bot = %v", tr)
	}
	p.s.call(t, "POST", "/api/triggers/"+id+"/resume", bootstrapToken, nil).fails(t, 400, 4000, "bot_id")
}
