package bot_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	botapp "github.com/pergola-ai/pergola/application/bot"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

func TestPublish(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	b := e.create(t, bot.Config{Name: "v1"})

	_, _, err := e.svc.Online(ctx, e.owner, b.ID)
	wantErr(t, err, errs.ErrNotFound, "is not published; publish it first")
	_, _, _, err = e.svc.ResolveForChat(ctx, e.owner, b.ID, false)
	wantField(t, err, "bot_id", "is not published; publish it first")

	v1, err := e.svc.Publish(ctx, e.member, b.ID, nil)
	mustNot(t, err)
	if v1.Number != 1 || !cmp.Equal(v1.Connectors, []string{"1024"}) || v1.PublisherID != e.member.UserID {
		t.Errorf("version 1 = %+v, want number 1 on the API connector", v1)
	}
	_, err = e.svc.Update(ctx, e.owner, b.ID, func(c *bot.Config) error { c.Name = "v2"; return nil })
	mustNot(t, err)
	v2, err := e.svc.Publish(ctx, e.owner, b.ID, []string{"999", "1024", "999"})
	mustNot(t, err)
	if v2.Number != 2 || !cmp.Equal(v2.Connectors, []string{"999", "1024"}) {
		t.Errorf("version 2 = %+v", v2)
	}
	_, err = e.svc.Update(ctx, e.owner, b.ID, func(c *bot.Config) error { c.Name = "draft"; return nil })
	mustNot(t, err)

	got, online, err := e.svc.Online(ctx, e.owner, b.ID)
	mustNot(t, err)
	if online.Number != 2 || online.Config.Name != "v2" || got.Draft.Name != "draft" {
		t.Errorf("online = %d %q, draft %q; want version 2 named v2 and the draft apart", online.Number, online.Config.Name, got.Draft.Name)
	}
	old, err := e.svc.GetVersion(ctx, e.owner, b.ID, 1)
	mustNot(t, err)
	if old.Config.Name != "v1" {
		t.Errorf("version 1 is named %q, want v1", old.Config.Name)
	}
	_, err = e.svc.GetVersion(ctx, e.owner, b.ID, 9)
	wantErr(t, err, errs.ErrNotFound, "version 9 of bot")
	list, err := e.svc.ListVersions(ctx, e.owner, b.ID)
	mustNot(t, err)
	if len(list) != 2 || list[0].Number != 2 {
		t.Errorf("versions = %+v, want 2 then 1", list)
	}
}

func TestPublishRefuses(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	b := e.create(t, bot.Config{Name: "x", Model: bot.ModelSettings{ModelID: "plain"}})
	_, err := e.svc.Publish(ctx, e.owner, b.ID, []string{"1024", "482431"})
	wantField(t, err, "connector_ids", `"482431" is not available; use 1024 (API) or 999 (Chat SDK)`)

	e.models.remove("plain")
	_, err = e.svc.Publish(ctx, e.owner, b.ID, nil)
	wantField(t, err, "model.model_id", `"plain" does not exist`)
	got, _ := e.svc.Get(ctx, e.owner, b.ID)
	if got.IsPublished() {
		t.Error("a refused publish published the bot")
	}

	custom := botapp.New(e.db.Bots(), e.db.Variables(), nil, e.models, botapp.WithConnectors("1024", "slack"))
	_, err = custom.Publish(ctx, e.owner, b.ID, []string{"999"})
	wantField(t, err, "connector_ids", "use 1024 (API) or slack")
}

func TestResolveForChat(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	b := e.create(t, withVariables("published"))
	_, err := e.svc.Publish(ctx, e.owner, b.ID, nil)
	mustNot(t, err)
	_, err = e.svc.Update(ctx, e.owner, b.ID, func(c *bot.Config) error { c.Name = "draft"; return nil })
	mustNot(t, err)

	got, cfg, version, err := e.svc.ResolveForChat(ctx, e.member, b.ID, false)
	mustNot(t, err)
	if version != 1 || cfg.Name != "published" || got.ID != b.ID {
		t.Errorf("published: version %d config %q", version, cfg.Name)
	}
	got, cfg, version, err = e.svc.ResolveForChat(ctx, e.member, b.ID, true)
	mustNot(t, err)
	if version != 0 || cfg.Name != "draft" || got.DraftRevision != 2 {
		t.Errorf("draft: version %d config %q revision %d", version, cfg.Name, got.DraftRevision)
	}
}

func TestList(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	never := e.create(t, bot.Config{Name: "never"})
	done := e.create(t, bot.Config{Name: "done"})
	edited := e.create(t, bot.Config{Name: "edited"})
	for _, b := range []*bot.Bot{done, edited} {
		_, err := e.svc.Publish(ctx, e.owner, b.ID, nil)
		mustNot(t, err)
	}
	_, err := e.svc.Update(ctx, e.owner, edited.ID, func(c *bot.Config) error { c.Prompt = "new"; return nil })
	mustNot(t, err)

	names := func(which botapp.Publication, page identity.Page) ([]string, int64) {
		t.Helper()
		list, total, err := e.svc.List(ctx, e.member, e.ws.ID, which, page)
		mustNot(t, err)
		var out []string
		for _, b := range list {
			out = append(out, b.Draft.Name)
		}
		return out, total
	}
	all := identity.Page{Number: 1, Size: 10}
	for _, c := range []struct {
		which botapp.Publication
		want  []string
	}{
		{botapp.AnyPublication, []string{"edited", "done", "never"}},
		{botapp.Published, []string{"edited", "done"}},
		{botapp.Unpublished, []string{"never"}},
		{botapp.EditedSincePublish, []string{"edited"}},
	} {
		if got, total := names(c.which, all); !cmp.Equal(got, c.want) || total != int64(len(c.want)) {
			t.Errorf("list %d = %v (%d), want %v", c.which, got, total, c.want)
		}
	}
	if got, total := names(botapp.Published, identity.Page{Number: 2, Size: 1}); !cmp.Equal(got, []string{"done"}) || total != 2 {
		t.Errorf("page 2 of published = %v (%d)", got, total)
	}
	_, _, err = e.svc.List(ctx, e.stranger, e.ws.ID, botapp.AnyPublication, all)
	wantErr(t, err, errs.ErrForbidden, "not a member")
	_ = never
}
