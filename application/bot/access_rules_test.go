package bot_test

import (
	"context"
	"fmt"
	"testing"

	botapp "github.com/pergola-ai/pergola/application/bot"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/variable"
)

// TestUnreachableBotIsNotFound checks that a bot of a workspace the caller
// cannot reach answers exactly like an id that does not exist, in every
// use case, and that nothing changes.
func TestUnreachableBotIsNotFound(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	b := e.create(t, withVariables("Private"))
	_, err := e.svc.Publish(ctx, e.owner, b.ID, nil)
	mustNot(t, err)
	restricted := e.owner
	restricted.Workspaces = []int64{e.other.ID}
	user := botapp.EndUser{UserID: "u1"}
	calls := map[string]func(p identity.Principal, id int64) error{
		"get":      func(p identity.Principal, id int64) error { _, err := e.svc.Get(ctx, p, id); return err },
		"online":   func(p identity.Principal, id int64) error { _, _, err := e.svc.Online(ctx, p, id); return err },
		"versions": func(p identity.Principal, id int64) error { _, err := e.svc.ListVersions(ctx, p, id); return err },
		"version":  func(p identity.Principal, id int64) error { _, err := e.svc.GetVersion(ctx, p, id, 1); return err },
		"update": func(p identity.Principal, id int64) error {
			_, err := e.svc.Update(ctx, p, id, func(c *bot.Config) error { c.Name = "stolen"; return nil })
			return err
		},
		"publish": func(p identity.Principal, id int64) error { _, err := e.svc.Publish(ctx, p, id, nil); return err },
		"delete":  func(p identity.Principal, id int64) error { return e.svc.Delete(ctx, p, id) },
		"variables": func(p identity.Principal, id int64) error {
			_, err := e.svc.UserVariables(ctx, p, id, user, nil)
			return err
		},
		"set variables": func(p identity.Principal, id int64) error {
			return e.svc.SetUserVariables(ctx, p, id, user, []variable.KV{{Keyword: "city", Value: "Oslo"}})
		},
		"reset variables": func(p identity.Principal, id int64) error { return e.svc.ResetUserVariables(ctx, p, id, user, nil) },
		"resolve": func(p identity.Principal, id int64) error {
			_, _, _, err := e.svc.ResolveForChat(ctx, p, id, false)
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			for _, p := range []identity.Principal{e.stranger, restricted} {
				wantErr(t, call(p, b.ID), errs.ErrNotFound, fmt.Sprintf("bot %d not found", b.ID))
			}
			wantErr(t, call(e.owner, 999), errs.ErrNotFound, "bot 999 not found")
		})
	}
	got, err := e.svc.Get(ctx, e.owner, b.ID)
	mustNot(t, err)
	if got.Draft.Name != "Private" || got.PublishedVersion != 1 || got.DraftRevision != 1 {
		t.Errorf("bot changed: %+v", got)
	}
	items, _ := e.svc.UserVariables(ctx, e.owner, b.ID, user, nil)
	if items[0].Value != "Paris" {
		t.Errorf("city = %q, want the default", items[0].Value)
	}
}

func TestScopes(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	b := e.create(t, withVariables("Scoped"))
	chatOnly := withScopes(e.owner, identity.ScopeChat)
	_, err := e.svc.Get(ctx, chatOnly, b.ID)
	wantErr(t, err, errs.ErrForbidden, `"bot" scope`)
	_, err = e.svc.UserVariables(ctx, chatOnly, b.ID, botapp.EndUser{UserID: "u"}, nil)
	wantErr(t, err, errs.ErrForbidden, `"bot" scope`)
	_, _, _, err = e.svc.ResolveForChat(ctx, withScopes(e.owner, identity.ScopeBot), b.ID, true)
	wantErr(t, err, errs.ErrForbidden, `"chat" scope`)
	_, _, _, err = e.svc.ResolveForChat(ctx, chatOnly, b.ID, true)
	mustNot(t, err)
}

func TestDeleteNeedsCreatorOrAdmin(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ownerBot := e.create(t, bot.Config{Name: "owner's"})
	wantErr(t, e.svc.Delete(ctx, e.member, ownerBot.ID), errs.ErrForbidden, "creator or an admin")
	memberBot, err := e.svc.Create(ctx, e.member, e.ws.ID, bot.Config{Name: "member's"})
	mustNot(t, err)
	mustNot(t, e.svc.Delete(ctx, e.member, memberBot.ID))
	mustNot(t, e.svc.Delete(ctx, e.owner, ownerBot.ID))
	_, err = e.svc.Get(ctx, e.owner, ownerBot.ID)
	wantErr(t, err, errs.ErrNotFound, "not found")
}
