package sqlstore

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

func TestWorkspaceStore(t *testing.T) { forEachBackend(t, testWorkspaceStore) }

func testWorkspaceStore(t *testing.T, db *DB) {
	ctx := context.Background()
	store := db.Workspaces()
	ada := newUser(t, db, "ada@x.io")
	bob := newUser(t, db, "bob@x.io")

	t.Run("create makes the owner a member", func(t *testing.T) {
		ws := &identity.Workspace{Name: "Lab", Description: "d", Kind: identity.WorkspacePersonal, OwnerID: ada.ID}
		mustNot(t, store.CreateWorkspace(ctx, ws))
		got, err := store.GetWorkspace(ctx, ws.ID)
		mustNot(t, err)
		if diff := cmp.Diff(ws, got); diff != "" {
			t.Errorf("GetWorkspace (-created +got):\n%s", diff)
		}
		m, err := store.GetMember(ctx, ws.ID, ada.ID)
		mustNot(t, err)
		want := &identity.Member{WorkspaceID: ws.ID, UserID: ada.ID, Role: identity.RoleOwner, CreatedAt: ws.CreatedAt, UserEmail: "ada@x.io", UserName: "ada"}
		if diff := cmp.Diff(want, m); diff != "" {
			t.Errorf("owner membership (-want +got):\n%s", diff)
		}
	})

	t.Run("create with an unknown owner writes nothing", func(t *testing.T) {
		_, before, _ := store.ListAllWorkspaces(ctx, identity.Page{})
		err := store.CreateWorkspace(ctx, &identity.Workspace{Name: "Ghost", Kind: identity.WorkspaceTeam, OwnerID: 424242})
		wantErr(t, err, errs.ErrNotFound, "user 424242 not found")
		_, after, _ := store.ListAllWorkspaces(ctx, identity.Page{})
		if after != before {
			t.Errorf("workspaces went from %d to %d", before, after)
		}
	})

	t.Run("not found", func(t *testing.T) {
		_, err := store.GetWorkspace(ctx, 999)
		wantErr(t, err, errs.ErrNotFound, "workspace 999 not found")
		_, err = store.UpdateWorkspace(ctx, 999, func(*identity.Workspace) error { return nil })
		wantErr(t, err, errs.ErrNotFound, "workspace 999 not found")
		wantErr(t, store.DeleteWorkspace(ctx, 999), errs.ErrNotFound, "workspace 999 not found")
	})

	t.Run("update", func(t *testing.T) {
		ws := newWorkspace(t, db, "Old", ada.ID)
		got, err := store.UpdateWorkspace(ctx, ws.ID, func(w *identity.Workspace) error {
			w.Name, w.Description = "New", "described"
			return nil
		})
		mustNot(t, err)
		stored, _ := store.GetWorkspace(ctx, ws.ID)
		want := *ws
		want.Name, want.Description, want.UpdatedAt = "New", "described", got.UpdatedAt
		if diff := cmp.Diff(&want, stored); diff != "" {
			t.Errorf("stored workspace (-want +got):\n%s", diff)
		}

		_, err = store.UpdateWorkspace(ctx, ws.ID, func(w *identity.Workspace) error { w.Name = "Lost"; return errFromFn })
		if err != errFromFn {
			t.Fatalf("UpdateWorkspace error = %v, want fn's own error", err)
		}
		again, _ := store.GetWorkspace(ctx, ws.ID)
		if diff := cmp.Diff(stored, again); diff != "" {
			t.Errorf("workspace changed though fn failed (-before +after):\n%s", diff)
		}
	})

	t.Run("members", func(t *testing.T) {
		ws := newWorkspace(t, db, "Team", ada.ID)
		mustNot(t, store.AddMember(ctx, &identity.Member{WorkspaceID: ws.ID, UserID: bob.ID, Role: identity.RoleMember, UserName: "ignored"}))
		err := store.AddMember(ctx, &identity.Member{WorkspaceID: ws.ID, UserID: bob.ID, Role: identity.RoleAdmin})
		wantErr(t, err, errs.ErrConflict, "already a member")
		err = store.AddMember(ctx, &identity.Member{WorkspaceID: ws.ID, UserID: 777, Role: identity.RoleMember})
		wantErr(t, err, errs.ErrNotFound, "user 777 not found")
		err = store.AddMember(ctx, &identity.Member{WorkspaceID: 888, UserID: bob.ID, Role: identity.RoleMember})
		wantErr(t, err, errs.ErrNotFound, "workspace 888 not found")

		mustNot(t, store.SetMemberRole(ctx, ws.ID, bob.ID, identity.RoleAdmin))
		mustNot(t, store.SetMemberRole(ctx, ws.ID, bob.ID, identity.RoleAdmin)) // unchanged is not missing
		wantErr(t, store.SetMemberRole(ctx, ws.ID, 777, identity.RoleAdmin), errs.ErrNotFound, "membership of user 777")

		got, err := store.ListMembers(ctx, ws.ID)
		mustNot(t, err)
		want := []identity.Member{
			{WorkspaceID: ws.ID, UserID: ada.ID, Role: identity.RoleOwner, UserEmail: "ada@x.io", UserName: "ada"},
			{WorkspaceID: ws.ID, UserID: bob.ID, Role: identity.RoleAdmin, UserEmail: "bob@x.io", UserName: "bob"},
		}
		if diff := cmp.Diff(want, got, ignoreMemberTime); diff != "" {
			t.Errorf("ListMembers (-want +got):\n%s", diff)
		}

		mustNot(t, store.RemoveMember(ctx, ws.ID, bob.ID))
		wantErr(t, store.RemoveMember(ctx, ws.ID, bob.ID), errs.ErrNotFound, "membership of user")
		_, err = store.GetMember(ctx, ws.ID, bob.ID)
		wantErr(t, err, errs.ErrNotFound, "membership of user")
	})

	t.Run("workspaces of a user", func(t *testing.T) {
		carol := newUser(t, db, "carol@x.io")
		dan := newUser(t, db, "dan@x.io")
		own1 := newWorkspace(t, db, "C1", carol.ID)
		joined := newWorkspace(t, db, "D1", dan.ID)
		own2 := newWorkspace(t, db, "C2", carol.ID)
		newWorkspace(t, db, "D2", dan.ID) // not carol's
		mustNot(t, store.AddMember(ctx, &identity.Member{WorkspaceID: joined.ID, UserID: carol.ID, Role: identity.RoleMember}))

		want := []identity.MembershipView{
			{Workspace: *own1, Role: identity.RoleOwner},
			{Workspace: *joined, Role: identity.RoleMember},
			{Workspace: *own2, Role: identity.RoleOwner},
		}
		tests := []struct {
			name     string
			page     identity.Page
			from, to int
		}{
			{"all", identity.Page{}, 0, 3},
			{"first page", identity.Page{Number: 1, Size: 2}, 0, 2},
			{"second page", identity.Page{Number: 2, Size: 2}, 2, 3},
			{"past the end", identity.Page{Number: 3, Size: 2}, 0, 0},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				got, total, err := store.ListWorkspacesOfUser(ctx, carol.ID, tc.page)
				mustNot(t, err)
				if diff := cmp.Diff(want[tc.from:tc.to], got, cmpEmpty); diff != "" || total != 3 {
					t.Errorf("total %d, want 3; page (-want +got):\n%s", total, diff)
				}
			})
		}
	})

	t.Run("delete removes members", func(t *testing.T) {
		ws := newWorkspace(t, db, "Doomed", ada.ID)
		mustNot(t, store.AddMember(ctx, &identity.Member{WorkspaceID: ws.ID, UserID: bob.ID, Role: identity.RoleMember}))
		mustNot(t, store.DeleteWorkspace(ctx, ws.ID))
		if members, _ := store.ListMembers(ctx, ws.ID); len(members) != 0 {
			t.Errorf("members left after delete: %v", members)
		}
		views, _, _ := store.ListWorkspacesOfUser(ctx, bob.ID, identity.Page{})
		for _, v := range views {
			if v.Workspace.ID == ws.ID {
				t.Errorf("deleted workspace still listed for bob")
			}
		}
		wantErr(t, store.DeleteWorkspace(ctx, ws.ID), errs.ErrNotFound, "not found")
	})

	t.Run("list all", func(t *testing.T) {
		all, total, err := store.ListAllWorkspaces(ctx, identity.Page{})
		mustNot(t, err)
		second, total2, err := store.ListAllWorkspaces(ctx, identity.Page{Number: 2, Size: 1})
		mustNot(t, err)
		if total != int64(len(all)) || total2 != total || len(second) != 1 || second[0].ID != all[1].ID {
			t.Errorf("all: %d of total %d; page 2 of size 1: %v of total %d", len(all), total, second, total2)
		}
	})
}

var ignoreMemberTime = cmpopts.IgnoreFields(identity.Member{}, "CreatedAt")
