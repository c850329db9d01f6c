package sqlstore

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/app"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

func TestAppStore(t *testing.T) { forEachBackend(t, testAppStore) }

func testAppStore(t *testing.T, db *DB) {
	ctx := context.Background()
	store := db.Apps()
	ada := newUser(t, db, "ada@x.io")
	wsA := newWorkspace(t, db, "A", ada.ID)
	wsB := newWorkspace(t, db, "B", ada.ID)
	shop := &app.App{WorkspaceID: wsA.ID, CreatorID: ada.ID, Name: "shop", Description: "a shop", Variables: []app.Variable{
		{Name: "greeting", Type: app.TypeString, Default: "hi"}, {Name: "visits", Type: app.TypeInteger, Default: int64(0)},
		{Name: "cart", Type: app.TypeArray, Default: []any{"a", int64(2)}}, {Name: "prefs", Type: app.TypeObject}},
		Conversations: []string{"Support", "Orders"}}
	mustNot(t, store.CreateApp(ctx, shop))

	t.Run("create and get keep every field, typed defaults included", func(t *testing.T) {
		got, err := store.GetApp(ctx, shop.ID)
		mustNot(t, err)
		if diff := cmp.Diff(shop, got); diff != "" {
			t.Errorf("GetApp (-created +got):\n%s", diff)
		}
		_, err = store.GetApp(ctx, 424242)
		wantErr(t, err, errs.ErrNotFound, "app 424242 not found")
	})

	t.Run("names are unique per workspace, ignoring case", func(t *testing.T) {
		wantErr(t, store.CreateApp(ctx, &app.App{WorkspaceID: wsA.ID, Name: "SHOP"}), errs.ErrConflict, "already has an app named SHOP")
		mustNot(t, store.CreateApp(ctx, &app.App{WorkspaceID: wsB.ID, Name: "shop"}))
		wantErr(t, store.CreateApp(ctx, &app.App{WorkspaceID: 777, Name: "x"}), errs.ErrNotFound, "workspace 777 not found")
	})

	t.Run("list and update stay in the workspace", func(t *testing.T) {
		list, total, err := store.ListApps(ctx, wsA.ID, identity.Page{Number: 1, Size: 10})
		mustNot(t, err)
		if total != 1 || len(list) != 1 || list[0].ID != shop.ID {
			t.Fatalf("list = %d %+v", total, list)
		}
		_, err = store.UpdateApp(ctx, wsB.ID, shop.ID, func(a *app.App) error { a.Name = "stolen"; return nil })
		wantErr(t, err, errs.ErrNotFound, "not found")
		got, err := store.UpdateApp(ctx, wsA.ID, shop.ID, func(a *app.App) error { a.Description = "the shop"; return nil })
		mustNot(t, err)
		if got.Description != "the shop" || got.Name != "shop" || len(got.Variables) != 4 || len(got.Conversations) != 2 {
			t.Fatalf("updated = %+v", got)
		}
		got, err = store.UpdateApp(ctx, wsA.ID, shop.ID, func(a *app.App) error { a.Conversations = nil; return nil })
		mustNot(t, err)
		if again, _ := store.GetApp(ctx, shop.ID); len(got.Conversations) != 0 || len(again.Conversations) != 0 {
			t.Fatalf("conversation templates after clearing them: %v, stored %v", got.Conversations, again.Conversations)
		}
	})

	t.Run("values per end user, typed, replaced atomically", func(t *testing.T) {
		ann, bo := app.Scope{AppID: shop.ID, ConnectorID: "api", UserID: "ann"}, app.Scope{AppID: shop.ID, ConnectorID: "api", UserID: "bo"}
		mustNot(t, store.SetValues(ctx, ann, map[string]any{"visits": int64(3), "cart": []any{"x"}, "prefs": map[string]any{"n": 1.5}}))
		mustNot(t, store.SetValues(ctx, ann, map[string]any{"visits": int64(4)}))
		got, err := store.Values(ctx, ann)
		mustNot(t, err)
		want := map[string]any{"visits": int64(4), "cart": []any{"x"}, "prefs": map[string]any{"n": 1.5}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("values of ann (-want +got):\n%s", diff)
		}
		if got, _ := store.Values(ctx, bo); len(got) != 0 {
			t.Errorf("bo sees %v", got)
		}
		wantErr(t, store.SetValues(ctx, app.Scope{AppID: 999, UserID: "ann"}, map[string]any{"x": 1}), errs.ErrNotFound, "app 999 not found")
	})

	t.Run("deleting values names them, within the scope", func(t *testing.T) {
		ann, bo := app.Scope{AppID: shop.ID, ConnectorID: "api", UserID: "ann"}, app.Scope{AppID: shop.ID, ConnectorID: "api", UserID: "bo"}
		mustNot(t, store.SetValues(ctx, bo, map[string]any{"visits": int64(9)}))
		mustNot(t, store.DeleteValues(ctx, ann, []string{"visits", "unknown"}))
		if got, _ := store.Values(ctx, ann); len(got) != 2 || got["visits"] != nil {
			t.Fatalf("ann after deleting visits: %v", got)
		}
		mustNot(t, store.DeleteValues(ctx, ann, nil))
		if got, _ := store.Values(ctx, ann); len(got) != 0 {
			t.Fatalf("ann after deleting all: %v", got)
		}
		if got, _ := store.Values(ctx, bo); got["visits"] != int64(9) {
			t.Fatalf("bo's values went too: %v", got)
		}
	})

	t.Run("delete removes the app and its values", func(t *testing.T) {
		wantErr(t, store.DeleteApp(ctx, wsB.ID, shop.ID), errs.ErrNotFound, "not found")
		mustNot(t, store.DeleteApp(ctx, wsA.ID, shop.ID))
		var n int64
		mustNot(t, db.Gorm().Model(&appValueRow{}).Where("app_id = ?", shop.ID).Count(&n).Error)
		if n != 0 {
			t.Errorf("%d values left behind", n)
		}
	})
}

func TestAppConversationNames(t *testing.T) { forEachBackend(t, testAppConversationNames) }

func testAppConversationNames(t *testing.T, db *DB) {
	ctx := context.Background()
	store := db.Apps()
	ada := newUser(t, db, "ada@x.io")
	ws := newWorkspace(t, db, "A", ada.ID)
	shop := &app.App{WorkspaceID: ws.ID, Name: "shop"}
	mustNot(t, store.CreateApp(ctx, shop))
	newConv := func(name string) int64 {
		c := &conversation.Conversation{WorkspaceID: ws.ID, Name: name}
		mustNot(t, db.Conversations().CreateConversation(ctx, c))
		return c.ID
	}
	ann, bo := app.Scope{AppID: shop.ID, ConnectorID: "api", UserID: "ann"}, app.Scope{AppID: shop.ID, ConnectorID: "api", UserID: "bo"}
	trip := newConv("trip")
	mustNot(t, store.NameConversation(ctx, ann, "trip", trip))
	wantErr(t, store.NameConversation(ctx, ann, "trip", newConv("x")), errs.ErrConflict, "a conversation named trip exists")
	mustNot(t, store.NameConversation(ctx, bo, "trip", newConv("trip")))
	if id, err := store.ConversationID(ctx, ann, "trip"); err != nil || id != trip {
		t.Fatalf("ann's trip = %d, %v; want %d", id, err, trip)
	}
	mustNot(t, store.NameConversation(ctx, ann, "work", newConv("work")))
	wantErr(t, store.RenameConversation(ctx, ann, "work", "trip"), errs.ErrConflict, "named trip exists")
	wantErr(t, store.RenameConversation(ctx, ann, "nope", "x"), errs.ErrNotFound, "not found")
	mustNot(t, store.RenameConversation(ctx, ann, "work", "office"))
	list, err := store.NamedConversations(ctx, ann)
	mustNot(t, err)
	if len(list) != 2 || list[0].Name != "trip" || list[1].Name != "office" {
		t.Fatalf("ann's conversations = %+v", list)
	}
	mustNot(t, db.Conversations().DeleteConversation(ctx, ws.ID, trip))
	if id, _ := store.ConversationID(ctx, ann, "trip"); id != 0 {
		t.Fatalf("a deleted conversation keeps its name (%d)", id)
	}
	mustNot(t, store.UnnameConversation(ctx, ann, "office"))
	if list, _ := store.NamedConversations(ctx, ann); len(list) != 0 {
		t.Fatalf("left: %+v", list)
	}
}
