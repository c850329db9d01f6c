package sqlstore

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

func TestChannelEventStore(t *testing.T) { forEachBackend(t, testChannelEventStore) }

func testChannelEventStore(t *testing.T, db *DB) {
	ctx := context.Background()
	store := db.ChannelEvents()
	ada := newUser(t, db, "ada@x.io")
	ws := newWorkspace(t, db, "W", ada.ID)
	b := newStoredBot(t, db, ws.ID, ada.ID, "one")
	hook := newStoredChannel(t, db, b, channel.KindWebhook, channel.Settings{"secret": "0123456789abcdef0123"})
	event := func(id string) *channel.Delivery {
		return &channel.Delivery{ChannelID: hook.ID, BotID: b.ID, EventID: id, EndUser: "webhook:Ann", ConversationKey: "user:Ann",
			Text: "hi", Reply: []byte(`{"event_id":"` + id + `"}`), Status: channel.DeliveryReceived}
	}

	t.Run("an event id is stored once, even when raced", func(t *testing.T) {
		var wg sync.WaitGroup
		created := make(chan bool, 8)
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, ok, err := store.RecordEvent(ctx, event("evt-race"))
				if err != nil {
					t.Error(err)
				}
				created <- ok
			}()
		}
		wg.Wait()
		close(created)
		n := 0
		for ok := range created {
			if ok {
				n++
			}
		}
		list, err := store.ListEvents(ctx, hook.ID, 0, 50)
		mustNot(t, err)
		if n != 1 || len(list) != 1 || list[0].EventID != "evt-race" || string(list[0].Reply) != `{"event_id":"evt-race"}` {
			t.Fatalf("created %d times, stored %+v; want once", n, list)
		}
		// Event ids compare byte for byte: another case is another event.
		_, ok, err := store.RecordEvent(ctx, event("EVT-RACE"))
		if err != nil || !ok {
			t.Fatalf("an id differing in case = %v, %v; want a new event", ok, err)
		}
	})
	t.Run("update, list newest first, page", func(t *testing.T) {
		d, _, err := store.RecordEvent(ctx, event("evt-2"))
		mustNot(t, err)
		got, err := store.UpdateEvent(ctx, d.ID, func(x *channel.Delivery) error {
			x.Status, x.ChatID, x.Answer, x.Attempts, x.EventID = channel.DeliveryDelivered, 42, "hello", 2, "changed"
			return nil
		})
		mustNot(t, err)
		if got.Status != channel.DeliveryDelivered || got.ChatID != 42 || got.Attempts != 2 || got.EventID != "evt-2" {
			t.Fatalf("updated = %+v", got)
		}
		if d.Handle != nil || d.PartsSent != 0 {
			t.Fatalf("a new event has sent %d parts, handle %q; want nothing sent", d.PartsSent, d.Handle)
		}
		next := time.Date(2026, 11, 28, 17, 0, 1, 234_567_000, time.UTC)
		_, err = store.UpdateEvent(ctx, d.ID, func(x *channel.Delivery) error {
			x.Handle, x.PartsSent = []byte(`{"channel":"C1","ts":"1700000000.000100"}`), 2
			x.TurnAttempts, x.NextAttemptAt, x.Apology = 3, &next, true
			return nil
		})
		mustNot(t, err)
		again, err := store.GetEvent(ctx, d.ID)
		mustNot(t, err)
		if string(again.Handle) != `{"channel":"C1","ts":"1700000000.000100"}` || again.PartsSent != 2 || again.Answer != "hello" {
			t.Fatalf("stored handle %q, %d parts sent, answer %q; want the handle, 2 and hello", again.Handle, again.PartsSent, again.Answer)
		}
		if again.TurnAttempts != 3 || !again.Apology || again.NextAttemptAt == nil || !again.NextAttemptAt.Equal(next.Truncate(time.Millisecond)) {
			t.Fatalf("stored %d turn attempts, apology %v, next attempt %v; want 3, true, %v", again.TurnAttempts, again.Apology, again.NextAttemptAt, next)
		}
		page, err := store.ListEvents(ctx, hook.ID, 0, 2)
		mustNot(t, err)
		if len(page) != 2 || page[0].ID != d.ID {
			t.Fatalf("first page = %+v", page)
		}
		rest, err := store.ListEvents(ctx, hook.ID, page[1].ID, 10)
		mustNot(t, err)
		if len(rest) != 1 || rest[0].ID >= page[1].ID {
			t.Fatalf("second page = %+v", rest)
		}
		if _, err := store.UpdateEvent(ctx, 1, func(*channel.Delivery) error { return nil }); !errors.Is(err, errs.ErrNotFound) {
			t.Fatalf("update of an unknown event = %v", err)
		}
	})
	t.Run("conversation map keeps the first binding", func(t *testing.T) {
		id, err := store.Conversation(ctx, hook.ID, "user:Ann")
		mustNot(t, err)
		if id != 0 {
			t.Fatalf("unmapped key = %d", id)
		}
		first, err := store.BindConversation(ctx, hook.ID, "user:Ann", 7)
		mustNot(t, err)
		second, err := store.BindConversation(ctx, hook.ID, "user:Ann", 8)
		mustNot(t, err)
		other, err := store.BindConversation(ctx, hook.ID, "user:ann", 9)
		mustNot(t, err)
		if first != 7 || second != 7 || other != 9 {
			t.Fatalf("bindings = %d, %d, %d; want 7, 7, 9", first, second, other)
		}
		stale, err := store.RebindConversation(ctx, hook.ID, "user:Ann", 8, 10)
		mustNot(t, err)
		moved, err := store.RebindConversation(ctx, hook.ID, "user:Ann", 7, 11)
		mustNot(t, err)
		if stale != 7 || moved != 11 {
			t.Fatalf("rebind from a stale id = %d, from the current = %d; want 7, 11", stale, moved)
		}
	})
	// evt-2 was delivered with the apology: the bot failed its end user.
	t.Run("overviews count events and failures, apologies included", func(t *testing.T) {
		d, _, err := store.RecordEvent(ctx, event("evt-fail"))
		mustNot(t, err)
		_, err = store.UpdateEvent(ctx, d.ID, func(x *channel.Delivery) error { x.Status = channel.DeliveryFailed; return nil })
		mustNot(t, err)
		list, err := store.Overviews(ctx)
		mustNot(t, err)
		if len(list) != 1 || list[0].Channel.ID != hook.ID || list[0].Events != 4 || list[0].Failures != 2 || list[0].Channel.Kind != channel.KindWebhook {
			t.Fatalf("overviews = %+v", list)
		}
	})
	t.Run("deleting the channel deletes its events", func(t *testing.T) {
		mustNot(t, db.Channels().DeleteChannel(ctx, b.ID, hook.ID))
		list, err := store.ListEvents(ctx, hook.ID, 0, 50)
		mustNot(t, err)
		if len(list) != 0 {
			t.Fatalf("events left after the channel went: %d", len(list))
		}
		if _, _, err := store.RecordEvent(ctx, event("late")); !errors.Is(err, errs.ErrNotFound) {
			t.Fatalf("event of a deleted channel = %v; want not found", err)
		}
	})
}
