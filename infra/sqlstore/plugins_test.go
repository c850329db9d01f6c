package sqlstore

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/plugin"
)

func TestPluginStore(t *testing.T) { forEachBackend(t, testPluginStore) }

// fullPlugin sets every field of a plugin, so a round trip through the
// stored documents loses nothing unnoticed.
func fullPlugin(ws, creator int64, name string) *plugin.Plugin {
	return &plugin.Plugin{
		WorkspaceID: ws, CreatorID: creator, Kind: plugin.KindOpenAPI, Name: name, Description: "pets",
		Auth: plugin.Auth{Type: plugin.AuthOAuth2Client, TokenURL: "https://id.x/token", ClientID: "cid",
			ClientSecret: "s3cret-value", Scopes: []string{"read"}, ClientAuth: plugin.ClientAuthBody},
		Draft: plugin.Spec{Source: "openapi: 3.0.3", Tools: []plugin.Tool{{
			Name: "getPet", OperationID: "getPet", Description: "one pet",
			Schema: map[string]any{"type": "object", "properties": map[string]any{"id": map[string]any{"type": "integer"}}},
			Method: "GET", ServerURL: "https://x.io", Path: "/pets/{id}",
			Params: []plugin.Param{{Name: "id", In: plugin.InPath, Required: true, Style: "simple"}},
			Body:   &plugin.Body{MediaType: "application/json", Required: true, Fields: []string{"a"}},
		}}},
		Enabled: true, DisabledTools: []string{"old"},
	}
}

func newStoredPlugin(t *testing.T, db *DB, ws, creator int64, name string) *plugin.Plugin {
	t.Helper()
	p := fullPlugin(ws, creator, name)
	mustNot(t, db.Plugins().CreatePlugin(context.Background(), p))
	return p
}

func testPluginStore(t *testing.T, db *DB) {
	ctx := context.Background()
	store := db.Plugins()
	ada := newUser(t, db, "ada@x.io")
	wsA := newWorkspace(t, db, "A", ada.ID)
	wsB := newWorkspace(t, db, "B", ada.ID)

	t.Run("create and get keep every field, auth sealed", func(t *testing.T) {
		p := newStoredPlugin(t, db, wsA.ID, ada.ID, "Pets")
		if p.ID == 0 || p.DraftRevision != 1 || p.IsPublished() || p.CreatedAt.IsZero() {
			t.Fatalf("created = %+v", p)
		}
		got, err := store.GetPlugin(ctx, p.ID)
		mustNot(t, err)
		want := *p
		want.Draft.Source = ""
		if diff := cmp.Diff(&want, got); diff != "" {
			t.Errorf("GetPlugin (-want +got):\n%s", diff)
		}
		src, err := store.GetSource(ctx, p.ID, 0)
		mustNot(t, err)
		if src != "openapi: 3.0.3" {
			t.Errorf("source = %q", src)
		}
		var raw string
		mustNot(t, db.gorm.Raw("SELECT auth FROM plugins WHERE id = ?", p.ID).Scan(&raw).Error)
		if raw == "" || strings.Contains(raw, "s3cret") || strings.Contains(raw, "cid") {
			t.Errorf("auth stored in clear: %q", raw)
		}
		head, err := store.GetHead(ctx, p.ID)
		mustNot(t, err)
		want.Draft = plugin.Spec{Tools: []plugin.Tool{}}
		if diff := cmp.Diff(&want, head); diff != "" {
			t.Errorf("GetHead (-want +got):\n%s", diff)
		}
		_, err = store.GetPlugin(ctx, 4242)
		wantErr(t, err, errs.ErrNotFound, "plugin 4242 not found")
		_, err = store.GetHead(ctx, 4242)
		wantErr(t, err, errs.ErrNotFound, "plugin 4242 not found")
		_, err = store.GetSource(ctx, 4242, 0)
		wantErr(t, err, errs.ErrNotFound, "plugin 4242 not found")
	})

	t.Run("create refuses", func(t *testing.T) {
		newStoredPlugin(t, db, wsA.ID, ada.ID, "Taken")
		err := store.CreatePlugin(ctx, fullPlugin(wsA.ID, ada.ID, "TAKEN"))
		wantErr(t, err, errs.ErrConflict, `a plugin named "TAKEN" already exists`)
		mustNot(t, store.CreatePlugin(ctx, fullPlugin(wsB.ID, ada.ID, "Taken")))
		err = store.CreatePlugin(ctx, fullPlugin(777, ada.ID, "x"))
		wantErr(t, err, errs.ErrNotFound, "workspace 777 not found")
	})

	t.Run("update", func(t *testing.T) { testPluginUpdate(t, db, wsA.ID, wsB.ID, ada.ID) })
	t.Run("stdio", func(t *testing.T) { testPluginStdio(t, db, wsA.ID, ada.ID) })
	t.Run("list", func(t *testing.T) { testPluginList(t, db, ada.ID) })
	t.Run("publish", func(t *testing.T) { testPluginPublish(t, db, wsA.ID, wsB.ID, ada.ID) })
	t.Run("governance", func(t *testing.T) { testPluginGovernance(t, db, wsA.ID, ada.ID) })
	t.Run("catalog", func(t *testing.T) { testPluginCatalog(t, db, wsA.ID, ada.ID) })
	t.Run("stats", func(t *testing.T) { testPluginStats(t, db, wsA.ID, ada.ID) })
	t.Run("delete", func(t *testing.T) { testPluginDelete(t, db, wsA.ID, wsB.ID, ada.ID) })
	t.Run("deleting the workspace deletes its plugins", func(t *testing.T) {
		ws := newWorkspace(t, db, "Doomed", ada.ID)
		p := newStoredPlugin(t, db, ws.ID, ada.ID, "Doomed")
		mustNot(t, db.Workspaces().DeleteWorkspace(ctx, ws.ID))
		_, err := store.GetPlugin(ctx, p.ID)
		wantErr(t, err, errs.ErrNotFound, "not found")
	})
}

func testPluginUpdate(t *testing.T, db *DB, ws, otherWS, creator int64) {
	ctx := context.Background()
	store := db.Plugins()
	p := newStoredPlugin(t, db, ws, creator, "Before")
	newStoredPlugin(t, db, ws, creator, "Other")
	db.now = func() time.Time { return time.Now().Add(time.Hour) }
	defer func() { db.now = time.Now }()

	got, err := store.UpdatePlugin(ctx, ws, p.ID, func(x *plugin.Plugin) error {
		if x.Draft.Source != "openapi: 3.0.3" {
			t.Errorf("fn sees source %q", x.Draft.Source)
		}
		x.Name, x.Auth, x.Draft.Source = "After", plugin.Auth{Type: plugin.AuthBearer, Token: "t"}, "v2"
		x.Enabled, x.PublishedVersion, x.WorkspaceID = false, 9, otherWS // ignored
		return nil
	})
	mustNot(t, err)
	if got.Name != "After" || got.DraftRevision != 2 || !got.Enabled || got.PublishedVersion != 0 || got.WorkspaceID != ws ||
		got.Auth.Token != "t" || !got.UpdatedAt.After(p.UpdatedAt) {
		t.Errorf("updated = %+v", got)
	}
	stored, _ := store.GetPlugin(ctx, p.ID)
	got.Draft.Source = ""
	if diff := cmp.Diff(got, stored); diff != "" {
		t.Errorf("stored (-answer +stored):\n%s", diff)
	}
	_, err = store.UpdatePlugin(ctx, ws, p.ID, func(x *plugin.Plugin) error { x.Name = "lost"; return errFromFn })
	if err != errFromFn {
		t.Fatalf("error = %v, want fn's own", err)
	}
	_, err = store.UpdatePlugin(ctx, ws, p.ID, func(x *plugin.Plugin) error { x.Name = "other"; return nil })
	wantErr(t, err, errs.ErrConflict, `a plugin named "other" already exists`)
	_, err = store.UpdatePlugin(ctx, otherWS, p.ID, func(*plugin.Plugin) error { return nil })
	wantErr(t, err, errs.ErrNotFound, "not found")
	again, _ := store.GetPlugin(ctx, p.ID)
	if again.Name != "After" {
		t.Errorf("a failed update changed the plugin: %+v", again)
	}
}

func testPluginList(t *testing.T, db *DB, creator int64) {
	ctx := context.Background()
	store := db.Plugins()
	ws := newWorkspace(t, db, "Lists", creator)
	for i, name := range []string{"one", "two", "three"} {
		db.now = func() time.Time { return time.Date(2025, 1, 1, 0, i, 0, 0, time.UTC) }
		newStoredPlugin(t, db, ws.ID, creator, name)
	}
	db.now = time.Now
	list, total, err := store.ListPlugins(ctx, plugin.ListFilter{WorkspaceID: ws.ID, Offset: 1, Limit: 1})
	mustNot(t, err)
	if total != 3 || len(list) != 1 || list[0].Name != "two" || list[0].Draft.Source != "" || len(list[0].Draft.Tools) != 1 {
		t.Fatalf("page = %d %+v", total, list)
	}
	mustNot(t, store.SyncBuiltin(ctx, &plugin.Plugin{ID: 11, Name: "clock", Draft: plugin.Spec{Tools: []plugin.Tool{{Name: "now"}}}}))
	cat, n, err := store.ListPlugins(ctx, plugin.ListFilter{Catalog: true})
	mustNot(t, err)
	if n != 1 || cat[0].ID != 11 || !cat[0].IsCatalog() {
		t.Fatalf("catalog = %+v", cat)
	}
	_, all, err := store.ListPlugins(ctx, plugin.ListFilter{})
	mustNot(t, err)
	if all < 4 {
		t.Fatalf("all = %d", all)
	}
}

func testPluginPublish(t *testing.T, db *DB, ws, otherWS, creator int64) {
	ctx := context.Background()
	store := db.Plugins()
	p := newStoredPlugin(t, db, ws, creator, "Published")
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := store.PublishPlugin(ctx, ws, &plugin.Version{PluginID: p.ID, Spec: p.Draft, PublisherID: creator}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	got, _ := store.GetPlugin(ctx, p.ID)
	if got.PublishedVersion != 4 || got.PublishedAt == nil {
		t.Fatalf("published = %+v", got)
	}
	v, err := store.GetVersion(ctx, p.ID, 2)
	mustNot(t, err)
	want := p.Draft
	want.Source = ""
	if diff := cmp.Diff(want, v.Spec); diff != "" || v.Label() != "2" {
		t.Errorf("version 2 spec (-want +got):\n%s", diff)
	}
	src, err := store.GetSource(ctx, p.ID, 3)
	mustNot(t, err)
	if src != p.Draft.Source {
		t.Errorf("source of version 3 = %q", src)
	}
	vs, err := store.ListVersions(ctx, p.ID)
	mustNot(t, err)
	if len(vs) != 4 || vs[0].Number != 4 || vs[3].Number != 1 {
		t.Errorf("versions = %+v", vs)
	}
	_, err = store.GetVersion(ctx, p.ID, 9)
	wantErr(t, err, errs.ErrNotFound, "version 9 of plugin")
	_, err = store.GetSource(ctx, p.ID, 9)
	wantErr(t, err, errs.ErrNotFound, "version 9 of plugin")
	err = store.PublishPlugin(ctx, otherWS, &plugin.Version{PluginID: p.ID, Spec: p.Draft})
	wantErr(t, err, errs.ErrNotFound, "not found")
}

func testPluginGovernance(t *testing.T, db *DB, ws, creator int64) {
	ctx := context.Background()
	store := db.Plugins()
	p := newStoredPlugin(t, db, ws, creator, "Governed")
	got, err := store.SetGovernance(ctx, p.ID, func(x *plugin.Plugin) error {
		x.Enabled, x.DisabledTools, x.Name = false, []string{"getPet"}, "ignored"
		return nil
	})
	mustNot(t, err)
	stored, _ := store.GetPlugin(ctx, p.ID)
	if stored.Enabled || stored.Name != "Governed" || stored.DraftRevision != 1 || !cmp.Equal(stored.DisabledTools, []string{"getPet"}) {
		t.Errorf("stored = %+v", stored)
	}
	if diff := cmp.Diff(stored, got); diff != "" {
		t.Errorf("answer (-stored +answer):\n%s", diff)
	}
	_, err = store.SetGovernance(ctx, 999, func(*plugin.Plugin) error { return nil })
	wantErr(t, err, errs.ErrNotFound, "plugin 999 not found")
}

func testPluginDelete(t *testing.T, db *DB, ws, otherWS, creator int64) {
	ctx := context.Background()
	store := db.Plugins()
	p := newStoredPlugin(t, db, ws, creator, "Deleted")
	mustNot(t, store.PublishPlugin(ctx, ws, &plugin.Version{PluginID: p.ID, Spec: p.Draft}))
	mustNot(t, store.AddStats(ctx, []plugin.ToolStats{{PluginID: p.ID, Tool: "getPet", Calls: 1, LastCalledAt: time.Now()}}))
	wantErr(t, store.DeletePlugin(ctx, otherWS, p.ID), errs.ErrNotFound, "not found")
	mustNot(t, store.DeletePlugin(ctx, ws, p.ID))
	_, err := store.GetPlugin(ctx, p.ID)
	wantErr(t, err, errs.ErrNotFound, "not found")
	vs, _ := store.ListVersions(ctx, p.ID)
	stats, _ := store.ListStats(ctx, []int64{p.ID})
	if len(vs) != 0 || len(stats) != 0 {
		t.Errorf("left behind: %d versions, %d stats", len(vs), len(stats))
	}
	wantErr(t, store.DeletePlugin(ctx, ws, p.ID), errs.ErrNotFound, "not found")
}
