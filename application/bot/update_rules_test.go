package bot_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
)

func TestUpdate(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	b := e.create(t, bot.Config{Name: "Before", Prompt: "p"})

	got, err := e.svc.Update(ctx, e.member, b.ID, func(c *bot.Config) error { c.Name = "After"; return nil })
	mustNot(t, err)
	if got.Draft.Name != "After" || got.Draft.Prompt != "p" || got.DraftRevision != 2 {
		t.Errorf("updated draft = %+v (revision %d), want the name changed and the prompt kept", got.Draft, got.DraftRevision)
	}

	// A change that breaks a rule is refused and nothing is written.
	_, err = e.svc.Update(ctx, e.owner, b.ID, func(c *bot.Config) error { c.Model.ModelID = "nope"; return nil })
	wantField(t, err, "model.model_id", "does not exist")
	errEdit := errors.New("edit refused")
	_, err = e.svc.Update(ctx, e.owner, b.ID, func(c *bot.Config) error { c.Name = "lost"; return errEdit })
	if err != errEdit {
		t.Errorf("error = %v, want edit's own", err)
	}
	stored, _ := e.svc.Get(ctx, e.owner, b.ID)
	if diff := cmp.Diff(got, stored, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("refused updates changed the bot (-before +after):\n%s", diff)
	}
}

// TestUpdateRetriesAfterAConcurrentChange has another update land while
// the first one's edit runs: the first is retried on the new draft, so
// neither change is lost.
func TestUpdateRetriesAfterAConcurrentChange(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	b := e.create(t, bot.Config{Name: "Race"})
	calls := 0
	got, err := e.svc.Update(ctx, e.owner, b.ID, func(c *bot.Config) error {
		calls++
		if calls == 1 {
			_, err := e.svc.Update(ctx, e.member, b.ID, func(c *bot.Config) error { c.Description = "from the other"; return nil })
			mustNot(t, err)
		}
		c.Prompt = "from the first"
		return nil
	})
	mustNot(t, err)
	if calls != 2 || got.Draft.Description != "from the other" || got.Draft.Prompt != "from the first" || got.DraftRevision != 3 {
		t.Errorf("after %d edits: %+v revision %d, want both changes", calls, got.Draft, got.DraftRevision)
	}

	// An edit that always loses gives up with a conflict.
	_, err = e.svc.Update(ctx, e.owner, b.ID, func(c *bot.Config) error {
		_, err := e.svc.Update(ctx, e.member, b.ID, func(c *bot.Config) error { c.Name += "!"; return nil })
		mustNot(t, err)
		return nil
	})
	wantErr(t, err, errs.ErrConflict, "try again")
}
