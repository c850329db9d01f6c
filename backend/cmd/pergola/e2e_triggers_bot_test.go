package main

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTriggersBotSchedule runs bot schedules on both back ends: a bot
// trigger ticking every second posts the bot's answer to its prompt into
// a chat of the bot's Telegram channel (a local fake), once per tick;
// PATCH moves it to another chat with another prompt, then to an end user
// of the API, whose conversation keeps the answers; the list pages; and
// deleting the bot pauses the trigger saying why.
func TestTriggersBotSchedule(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			p := newPlatformsSetup(t, withEnv(b, map[string]string{"PERGOLA_TRIGGER_POLL": "50ms", "PERGOLA_TRIGGER_MIN_INTERVAL": "1s"}))
			p.s.call(t, "POST", "/api/bots/"+p.botID+"/publish", bootstrapToken,
				map[string]any{"connector_ids": []string{p.tgID, p.slID, "1024"}}).must(t, 201)
			checkBotTriggerRefusals(t, p)
			id := botTriggerToTelegram(t, p)
			botTriggerEdited(t, p, id)
			botTriggerPages(t, p, id)
			botTriggerBotDeleted(t, p, id)
		})
	}
}

func checkBotTriggerRefusals(t *testing.T, p *platformsSetup) {
	base := func(extra map[string]any) map[string]any {
		body := map[string]any{"name": "plan", "kind": "schedule", "bot_id": p.botID, "prompt": "plan", "interval_seconds": 1,
			"channel_id": p.tgID, "chat_id": "-4242"}
		for k, v := range extra {
			if v == nil {
				delete(body, k)
			} else {
				body[k] = v
			}
		}
		return body
	}
	for field, body := range map[string]map[string]any{
		"prompt":     base(map[string]any{"prompt": " "}),
		"chat_id":    base(map[string]any{"chat_id": "general"}),
		"channel_id": base(map[string]any{"channel_id": "123456"}),
		"user_id":    base(map[string]any{"user_id": "ann"}),
		"kind":       base(map[string]any{"kind": "webhook"}),
		"bot_id":     base(map[string]any{"bot_id": "123456"}),
	} {
		p.s.call(t, "POST", "/api/triggers", bootstrapToken, body).fails(t, 400, 4000, field)
	}
	noTarget := base(map[string]any{"channel_id": nil, "chat_id": nil})
	p.s.call(t, "POST", "/api/triggers", bootstrapToken, noTarget).fails(t, 400, 4000, "channel_id")
}

// botTriggerToTelegram creates a schedule posting to Telegram chat -4242
// and checks that each tick's answer arrives there once.
func botTriggerToTelegram(t *testing.T, p *platformsSetup) string {
	d := p.s.call(t, "POST", "/api/triggers", bootstrapToken, map[string]any{"name": "plan", "kind": "schedule", "bot_id": p.botID,
		"prompt": "the plan of the day", "channel_id": p.tgID, "chat_id": "-4242", "interval_seconds": 1}).must(t, 201).data
	id := str(d, "id")
	if str(d, "bot_id") != p.botID || str(d, "chat_id") != "-4242" || d["workflow_id"] != nil {
		t.Fatalf("created = %v", d)
	}
	waitSent(t, p, -4242, 3, "echo: the plan of the day")
	p.s.call(t, "POST", "/api/triggers/"+id+"/pause", bootstrapToken, nil).must(t, 200)
	ticks := triggerTicks(t, p, id)
	sent := p.tgSent(-4242)
	if len(sent) != len(ticks) {
		t.Fatalf("%d messages for %d ticks: want one each", len(sent), len(ticks))
	}
	for i, m := range sent {
		if m.Text != "echo: the plan of the day" || m.ReplyTo != 0 {
			t.Fatalf("message %d = %+v; want the answer, not a reply", i, m)
		}
	}
	// A tick never runs twice; on a loaded machine a late dispatcher may
	// skip ticks (it never fires a backlog).
	for i := 1; i < len(ticks); i++ {
		if ticks[i]-ticks[i-1] < 1000 {
			t.Fatalf("ticks %v: want ticks a second apart or more, none twice", ticks)
		}
	}
	tr := p.s.call(t, "GET", "/api/triggers/"+id, bootstrapToken, nil).must(t, 200).data
	if str(tr, "last_status") != "succeeded" || str(tr, "last_run_id") == "" {
		t.Errorf("trigger after its ticks = %v; want the last chat succeeded", tr)
	}
	return id
}

// waitSent waits until the fake Telegram shows at least n messages
// reading text in chatID (answers stream: a message grows by edits).
func waitSent(t *testing.T, p *platformsSetup, chatID int64, n int, text string) {
	t.Helper()
	count := func() int {
		c := 0
		for _, m := range p.tgSent(chatID) {
			if m.Text == text {
				c++
			}
		}
		return c
	}
	for deadline := time.Now().Add(15 * time.Second); count() < n; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after 15s %d messages %q in chat %d (%+v); want %d", count(), text, chatID, p.tgSent(chatID), n)
		}
	}
}

// triggerTicks waits until the trigger's channel events are all done and
// delivered, run as the trigger's end user, and returns their ticks in
// ms, sorted.
func triggerTicks(t *testing.T, p *platformsSetup, id string) []int64 {
	t.Helper()
	prefix := "trigger:" + id + ":"
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var ticks []int64
		done := true
		for _, d := range deliveries(t, p.s, p.botID, p.tgID) {
			tick, ok := strings.CutPrefix(str(d, "event_id"), prefix)
			if !ok {
				continue
			}
			if str(d, "end_user") != "trigger:"+id {
				t.Fatalf("delivery %v: want the end user trigger:%s", d, id)
			}
			done = done && str(d, "status") == "delivered"
			ms, _ := strconv.ParseInt(tick, 10, 64)
			ticks = append(ticks, ms)
		}
		if done {
			slices.Sort(ticks)
			return ticks
		}
		if time.Now().After(deadline) {
			t.Fatal("the trigger's deliveries are not all delivered after 15s")
		}
	}
}
