package main

import (
	"strings"
	"testing"
	"time"
)

// channelApology is what an end user reads on every channel when the
// model is unavailable: the API's last error, without internal ids.
const channelApology = "The model is unavailable right now; please try again."

// TestChannelsOnFailure runs every channel kind (Telegram, Slack,
// Discord, Feishu, Lark, LINE, webhook with callback_url) against its
// platform's fake on both back ends, with the model down and with the
// platform down: a turn that fails while the model is unavailable is
// tried again and answered once the model is back; a model that stays
// down gets the end user the apology, once, in the platform's dialect; a
// platform that is down is retried with backoff (the deliveries list
// shows the error, the attempts and the next attempt) until it is back,
// or until the attempts run out. Each phase asks every kind at once, so
// the kinds' retries overlap.
func TestChannelsOnFailure(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			f := newFailSetup(t, b)
			t.Run("model down", func(t *testing.T) { modelDown(t, f) })
			t.Run("platform down, then back", func(t *testing.T) { platformComesBack(t, f) })
			t.Run("platform stays down", func(t *testing.T) { platformStaysDown(t, f) })
		})
	}
}

// modelDown: on each kind, the model fails twice, then answers (the end
// user gets the answer, once); or every try fails (the end user gets the
// apology, once, without the provider's words or an internal id, and the
// deliveries list says why).
func modelDown(t *testing.T, f *failSetup) {
	back, down := map[string]string{}, map[string]string{}
	for _, k := range f.kinds {
		back[k.name], down[k.name] = k.ask(t, 1, "flaky "+k.name), k.ask(t, 2, "down "+k.name)
	}
	for _, k := range f.kinds {
		t.Run(k.name, func(t *testing.T) {
			d := waitDelivery(t, f.s, f.botID, k.id, back[k.name], "delivered")
			if d["turn_attempts"] != float64(3) || d["apology"] != false || d["attempts"] != float64(1) || str(d, "error") != "" || str(d, "chat_id") == "" {
				t.Fatalf("delivery = %v; want the third turn answered and sent at once", d)
			}
			if got := k.shown(1); len(got) != 1 || got[0] != k.dialect("echo: flaky "+k.name) {
				t.Fatalf("the platform shows %q; want the answer once", got)
			}
			d = waitDelivery(t, f.s, f.botID, k.id, down[k.name], "delivered")
			why := str(d, "error")
			if d["turn_attempts"] != float64(3) || d["apology"] != true || d["attempts"] != float64(1) ||
				!strings.Contains(why, "the bot did not answer (3 tries)") || !strings.Contains(why, channelApology) {
				t.Fatalf("delivery = %v; want the apology sent after 3 turns, the error saying why", d)
			}
			got := k.shown(2)
			if len(got) != 1 || got[0] != k.dialect(channelApology) {
				t.Fatalf("the platform shows %q; want the apology once", got)
			}
			for _, leak := range []string{"10.0.0.7", "node path", "log id", "chat id", str(d, "chat_id")} {
				if strings.Contains(got[0], leak) {
					t.Fatalf("the end user reads %q, which shows %q", got[0], leak)
				}
			}
			if a, b := modelCalls(f.llm, "flaky "+k.name), modelCalls(f.llm, "down "+k.name); a != 3 || b != 3 {
				t.Fatalf("the model was asked %d and %d times; want 3 each", a, b)
			}
		})
	}
}

// platformComesBack: each platform is down when its answer is ready; the
// deliveries list shows the failed send and when the next one is due;
// once the platform is back the answer arrives, once.
func platformComesBack(t *testing.T, f *failSetup) {
	events := map[string]string{}
	for _, k := range f.kinds {
		k.down()
		events[k.name] = k.ask(t, 3, "while down "+k.name)
	}
	// Each platform comes back as soon as its failed send shows, all
	// kinds watched together, so no kind's retries run out while another
	// is awaited on a slow machine.
	waiting, seen := waitFailedSends(t, f, events)
	for _, k := range f.kinds {
		t.Run(k.name, func(t *testing.T) {
			d := waiting[k.name]
			if next := int64(d["next_attempt_at"].(float64)); next < seen[k.name]-5 || !strings.Contains(str(d, "error"), "failed, retrying") {
				t.Fatalf("delivery = %v; want the failed send's error and a next attempt due", d)
			}
			d = waitDelivery(t, f.s, f.botID, k.id, events[k.name], "delivered")
			if d["next_attempt_at"] != float64(0) || str(d, "error") != "" {
				t.Fatalf("delivered = %v; want no error left and nothing planned", d)
			}
			if got := k.shown(3); len(got) != 1 || got[0] != k.dialect("echo: while down "+k.name) {
				t.Fatalf("the platform shows %q; want the answer once", got)
			}
		})
	}
}

// platformStaysDown: every send fails; after the attempts the event
// fails, saying why.
func platformStaysDown(t *testing.T, f *failSetup) {
	events := map[string]string{}
	for _, k := range f.kinds {
		k.down()
		defer k.up()
		events[k.name] = k.ask(t, 4, "never up "+k.name)
	}
	for _, k := range f.kinds {
		t.Run(k.name, func(t *testing.T) {
			d := waitDelivery(t, f.s, f.botID, k.id, events[k.name], "failed")
			if d["attempts"] != float64(5) || !strings.Contains(str(d, "error"), "delivery failed after 5 attempts") || d["next_attempt_at"] != float64(0) {
				t.Fatalf("delivery = %v; want failed after 5 attempts, saying why", d)
			}
			if got := k.shown(4); len(got) != 0 {
				t.Fatalf("the platform shows %q while down", got)
			}
		})
	}
}

// waitFailedSends polls every kind's deliveries until each event shows a
// failed send waiting for the next attempt, and brings that kind's
// platform back at once; it returns those deliveries and when each was
// seen.
func waitFailedSends(t *testing.T, f *failSetup, events map[string]string) (map[string]map[string]any, map[string]int64) {
	t.Helper()
	waiting, seen, last := map[string]map[string]any{}, map[string]int64{}, map[string]map[string]any{}
	deadline := time.Now().Add(15 * time.Second)
	for len(waiting) < len(f.kinds) && time.Now().Before(deadline) {
		for _, k := range f.kinds {
			if waiting[k.name] != nil {
				continue
			}
			for _, d := range deliveries(t, f.s, f.botID, k.id) {
				if str(d, "event_id") == events[k.name] {
					last[k.name] = d
				}
			}
			if d := last[k.name]; d != nil && str(d, "status") == "answered" && d["attempts"] != float64(0) && d["next_attempt_at"] != float64(0) {
				waiting[k.name], seen[k.name] = d, time.Now().Unix()
				k.up()
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, k := range f.kinds {
		if waiting[k.name] == nil {
			t.Fatalf("%s: delivery of %s = %v; want a failed send waiting for the next", k.name, events[k.name], last[k.name])
		}
	}
	return waiting, seen
}
