package sqlstore

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/trigger"
)

func TestTriggerStore(t *testing.T) { forEachBackend(t, testTriggerStore) }

func testTriggerStore(t *testing.T, db *DB) {
	ctx := context.Background()
	store := db.Triggers()
	ada := newUser(t, db, "ada@x.io")
	ws := newWorkspace(t, db, "W", ada.ID)
	next := time.Now().Add(-time.Second).UTC().Truncate(time.Millisecond)
	sched := &trigger.Trigger{WorkspaceID: ws.ID, CreatorID: ada.ID, Name: "tick", Kind: trigger.KindSchedule,
		WorkflowID: 42, Inputs: map[string]any{"city": "Paris"}, Interval: 2 * time.Second,
		Missed: trigger.MissedSkip, State: trigger.StateActive, NextRun: &next}
	hook := &trigger.Trigger{WorkspaceID: ws.ID, CreatorID: ada.ID, Name: "hook", Kind: trigger.KindWebhook,
		WorkflowID: 42, Secret: "s3cret", Auth: trigger.AuthHMAC, Answer: trigger.AnswerSync, State: trigger.StateActive}
	mustNot(t, store.Create(ctx, sched))
	mustNot(t, store.Create(ctx, hook))

	t.Run("read back", func(t *testing.T) {
		got, err := store.Get(ctx, hook.ID)
		mustNot(t, err)
		if got.Secret != "s3cret" || got.Auth != trigger.AuthHMAC || got.Answer != trigger.AnswerSync {
			t.Errorf("webhook trigger = %+v", got)
		}
		var sealed string
		db.gorm.Raw("SELECT secret FROM triggers WHERE id = ?", hook.ID).Scan(&sealed)
		if sealed == "" || sealed == "s3cret" {
			t.Errorf("stored secret = %q, want it sealed", sealed)
		}
		list, total, err := store.List(ctx, ws.ID, identity.Page{Number: 1, Size: 10})
		mustNot(t, err)
		if total != 2 || len(list) != 2 || list[0].Interval != 2*time.Second || list[0].Inputs["city"] != "Paris" || !list[0].NextRun.Equal(next) {
			t.Errorf("list = %+v", list)
		}
	})

	t.Run("a bot trigger, edited and paged", func(t *testing.T) { testBotTrigger(t, store, ws.ID, ada.ID, hook.ID) })

	t.Run("due and claimed once", func(t *testing.T) {
		due, err := store.Due(ctx, time.Now(), 10)
		mustNot(t, err)
		if len(due) != 1 || due[0].ID != sched.ID {
			t.Fatalf("due = %+v, want the schedule only", due)
		}
		var won atomic.Int32
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, err := store.Claim(ctx, sched.ID, next, next.Add(time.Hour))
				if err != nil {
					t.Error(err)
				}
				if ok {
					won.Add(1)
				}
			}()
		}
		wg.Wait()
		if won.Load() != 1 {
			t.Errorf("%d claimers won the tick, want 1", won.Load())
		}
		if due, _ := store.Due(ctx, time.Now(), 10); len(due) != 0 {
			t.Errorf("due after the claim = %+v", due)
		}
	})

	t.Run("pause, record, resume", func(t *testing.T) {
		mustNot(t, store.SetState(ctx, sched.ID, trigger.StatePaused, "workflow deleted", nil))
		if ok, _ := store.Claim(ctx, sched.ID, next.Add(time.Hour), next.Add(2*time.Hour)); ok {
			t.Error("a paused trigger's tick was claimed")
		}
		at := time.Now()
		mustNot(t, store.Record(ctx, sched.ID, trigger.Outcome{At: at, RunID: 7, Status: trigger.StatusFailed, Error: "boom"}))
		// The end of an earlier firing, recorded late, does not hide this one.
		mustNot(t, store.Record(ctx, sched.ID, trigger.Outcome{At: at.Add(-time.Second), RunID: 6, Status: trigger.StatusSucceeded}))
		got, _ := store.Get(ctx, sched.ID)
		if got.State != trigger.StatePaused || got.PauseReason != "workflow deleted" || got.NextRun != nil ||
			got.LastRunID != 7 || got.LastError != "boom" || got.LastRun == nil {
			t.Errorf("trigger = %+v", got)
		}
		mustNot(t, store.SetState(ctx, sched.ID, trigger.StateActive, "", &next))
		if due, _ := store.Due(ctx, time.Now(), 10); len(due) != 1 {
			t.Errorf("due after resume = %d triggers, want 1", len(due))
		}
	})

	t.Run("a request id is claimed once", func(t *testing.T) {
		_, first, err := store.ClaimRequest(ctx, hook.ID, "req-1")
		mustNot(t, err)
		mustNot(t, store.SetRequestRun(ctx, hook.ID, "req-1", 99))
		run, again, err := store.ClaimRequest(ctx, hook.ID, "req-1")
		mustNot(t, err)
		if !first || again || run != 99 {
			t.Errorf("first claim %v, repeat %v with run %d; want true, false, 99", first, again, run)
		}
	})

	t.Run("a request id without a run is released, one with a run is not", func(t *testing.T) {
		_, _, err := store.ClaimRequest(ctx, hook.ID, "req-2")
		mustNot(t, err)
		mustNot(t, store.ReleaseRequest(ctx, hook.ID, "req-2"))
		mustNot(t, store.ReleaseRequest(ctx, hook.ID, "req-1")) // has run 99: kept
		if _, first, err := store.ClaimRequest(ctx, hook.ID, "req-2"); err != nil || !first {
			t.Errorf("claim after release: first %v, %v; want a first claim", first, err)
		}
		if run, first, err := store.ClaimRequest(ctx, hook.ID, "req-1"); err != nil || first || run != 99 {
			t.Errorf("req-1 after a release: first %v run %d, %v; want it kept with run 99", first, run, err)
		}
	})

	t.Run("old request ids are pruned", func(t *testing.T) {
		if n, err := store.PruneRequests(ctx, time.Now().Add(-time.Hour)); err != nil || n != 0 {
			t.Errorf("prune before an hour ago = %d, %v; want none", n, err)
		}
		if n, err := store.PruneRequests(ctx, time.Now().Add(time.Minute)); err != nil || n != 2 {
			t.Errorf("prune before now = %d, %v; want req-1 and req-2", n, err)
		}
		if _, first, err := store.ClaimRequest(ctx, hook.ID, "req-1"); err != nil || !first {
			t.Errorf("claim after prune: first %v, %v; want a first claim", first, err)
		}
	})

	t.Run("delete", func(t *testing.T) {
		mustNot(t, store.Delete(ctx, hook.ID))
		if _, err := store.Get(ctx, hook.ID); !errors.Is(err, errs.ErrNotFound) {
			t.Errorf("Get after delete: %v", err)
		}
		if err := store.Delete(ctx, hook.ID); !errors.Is(err, errs.ErrNotFound) {
			t.Errorf("second delete: %v", err)
		}
	})
}

// testBotTrigger stores a bot trigger (the third of the workspace, after
// the webhook hookID), edits it, records its conversation and reads the
// last page of the list.
func testBotTrigger(t *testing.T, store *TriggerStore, ws, creator, hookID int64) {
	ctx := context.Background()
	bt := &trigger.Trigger{WorkspaceID: ws, CreatorID: creator, Name: "plan", Kind: trigger.KindSchedule,
		Bot: trigger.Bot{BotID: 5, Prompt: "the day's plan", ChannelID: 9, ChatID: "-100"}, Cron: "0 8 * * *",
		Missed: trigger.MissedSkip, State: trigger.StatePaused}
	mustNot(t, store.Create(ctx, bt))
	defer func() { mustNot(t, store.Delete(ctx, bt.ID)) }()
	bt.Bot = trigger.Bot{BotID: 5, Prompt: "tomorrow's plan", EndUser: "ann"}
	bt.Cron, bt.TimeZone = "0 7 * * *", "Europe/Paris"
	mustNot(t, store.Update(ctx, bt))
	mustNot(t, store.Record(ctx, bt.ID, trigger.Outcome{At: time.Now(), RunID: 3, Status: trigger.StatusStarted, ConversationID: 77}))
	page, total, err := store.List(ctx, ws, identity.Page{Number: 2, Size: 2})
	mustNot(t, err)
	if total != 3 || len(page) != 1 || page[0].ID != bt.ID {
		t.Fatalf("page 2 of 2 = %d triggers of %d, want the bot trigger of 3", len(page), total)
	}
	got := page[0]
	if got.Bot != bt.Bot || got.Cron != "0 7 * * *" || got.TimeZone != "Europe/Paris" || got.ConversationID != 77 || got.LastRunID != 3 {
		t.Errorf("bot trigger after the edit = %+v", got)
	}
	if first, _, _ := store.List(ctx, ws, identity.Page{Number: 1, Size: 2}); len(first) != 2 || first[1].ID != hookID {
		t.Errorf("page 1 = %+v, want the two oldest", first)
	}
}
