package identity_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	identityapp "github.com/pergola-ai/pergola/application/identity"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// TestMemberRules checks who may change whom in a team workspace, and that
// a refused change leaves the members as they were.
func TestMemberRules(t *testing.T) {
	const (
		owner  = identity.RoleOwner
		admin  = identity.RoleAdmin
		member = identity.RoleMember
	)
	start := map[string]identity.Role{"olga": owner, "adam": admin, "mia": member, "max": member}
	with := func(changes map[string]identity.Role) map[string]identity.Role {
		out := map[string]identity.Role{}
		for k, v := range start {
			out[k] = v
		}
		for k, v := range changes {
			if v == "" {
				delete(out, k)
			} else {
				out[k] = v
			}
		}
		return out
	}
	ctx := context.Background()
	cases := []struct {
		name  string
		setup func(e *env, tm *team) error // runs before the members are read
		act   func(e *env, tm *team) error
		want  error
		after map[string]identity.Role // when act succeeds; "" removes
	}{
		{
			name: "the last owner cannot demote herself",
			act: func(e *env, tm *team) error {
				return e.svc.SetMemberRole(ctx, tm.olga.p, tm.ws.ID, tm.olga.ID, admin)
			},
			want: errs.ErrConflict,
		},
		{
			name: "the last owner cannot leave",
			act:  func(e *env, tm *team) error { return e.svc.RemoveMember(ctx, tm.olga.p, tm.ws.ID, tm.olga.ID) },
			want: errs.ErrConflict,
		},
		{
			name: "with a second owner the first can step down",
			setup: func(e *env, tm *team) error {
				return e.svc.SetMemberRole(ctx, tm.olga.p, tm.ws.ID, tm.mia.ID, owner)
			},
			act: func(e *env, tm *team) error {
				return e.svc.SetMemberRole(ctx, tm.olga.p, tm.ws.ID, tm.olga.ID, member)
			},
			after: with(map[string]identity.Role{"olga": member, "mia": owner}),
		},
		{
			name: "with a second owner the first can leave",
			setup: func(e *env, tm *team) error {
				return e.svc.SetMemberRole(ctx, tm.olga.p, tm.ws.ID, tm.mia.ID, owner)
			},
			act:   func(e *env, tm *team) error { return e.svc.RemoveMember(ctx, tm.olga.p, tm.ws.ID, tm.olga.ID) },
			after: with(map[string]identity.Role{"olga": "", "mia": owner}),
		},
		{
			name: "an owner can remove another owner",
			setup: func(e *env, tm *team) error {
				return e.svc.SetMemberRole(ctx, tm.olga.p, tm.ws.ID, tm.mia.ID, owner)
			},
			act:   func(e *env, tm *team) error { return e.svc.RemoveMember(ctx, tm.olga.p, tm.ws.ID, tm.mia.ID) },
			after: with(map[string]identity.Role{"mia": ""}),
		},
		{
			name: "an admin cannot grant owner",
			act: func(e *env, tm *team) error {
				return e.svc.SetMemberRole(ctx, tm.adam.p, tm.ws.ID, tm.mia.ID, owner)
			},
			want: errs.ErrForbidden,
		},
		{
			name: "an admin cannot make herself owner",
			act: func(e *env, tm *team) error {
				return e.svc.SetMemberRole(ctx, tm.adam.p, tm.ws.ID, tm.adam.ID, owner)
			},
			want: errs.ErrForbidden,
		},
		{
			name: "an admin cannot take away owner",
			act: func(e *env, tm *team) error {
				return e.svc.SetMemberRole(ctx, tm.adam.p, tm.ws.ID, tm.olga.ID, admin)
			},
			want: errs.ErrForbidden,
		},
		{
			name: "an admin cannot take away owner even from a second owner",
			setup: func(e *env, tm *team) error {
				return e.svc.SetMemberRole(ctx, tm.olga.p, tm.ws.ID, tm.mia.ID, owner)
			},
			act: func(e *env, tm *team) error {
				return e.svc.SetMemberRole(ctx, tm.adam.p, tm.ws.ID, tm.mia.ID, member)
			},
			want: errs.ErrForbidden,
		},
		{
			name: "an admin cannot add an owner",
			act: func(e *env, tm *team) error {
				_, err := e.svc.AddMember(ctx, tm.adam.p, tm.ws.ID, tm.otto.Email, owner)
				return err
			},
			want: errs.ErrForbidden,
		},
		{
			name: "an admin cannot remove an owner",
			act:  func(e *env, tm *team) error { return e.svc.RemoveMember(ctx, tm.adam.p, tm.ws.ID, tm.olga.ID) },
			want: errs.ErrForbidden,
		},
		{
			name: "an admin can add a member, the e-mail in any case",
			act: func(e *env, tm *team) error {
				_, err := e.svc.AddMember(ctx, tm.adam.p, tm.ws.ID, " OTTO@Example.com ", member)
				return err
			},
			after: with(map[string]identity.Role{"otto": member}),
		},
		{
			name: "adding an unregistered e-mail is invalid",
			act: func(e *env, tm *team) error {
				_, err := e.svc.AddMember(ctx, tm.adam.p, tm.ws.ID, "nobody@example.com", member)
				return err
			},
			want: errs.ErrInvalid,
		},
		{
			name: "adding someone twice conflicts",
			act: func(e *env, tm *team) error {
				_, err := e.svc.AddMember(ctx, tm.olga.p, tm.ws.ID, tm.mia.Email, admin)
				return err
			},
			want: errs.ErrConflict,
		},
		{
			name: "an admin can promote a member to admin",
			act: func(e *env, tm *team) error {
				return e.svc.SetMemberRole(ctx, tm.adam.p, tm.ws.ID, tm.mia.ID, admin)
			},
			after: with(map[string]identity.Role{"mia": admin}),
		},
		{
			name:  "an admin can remove a member",
			act:   func(e *env, tm *team) error { return e.svc.RemoveMember(ctx, tm.adam.p, tm.ws.ID, tm.max.ID) },
			after: with(map[string]identity.Role{"max": ""}),
		},
		{
			name:  "a member can leave",
			act:   func(e *env, tm *team) error { return e.svc.RemoveMember(ctx, tm.mia.p, tm.ws.ID, tm.mia.ID) },
			after: with(map[string]identity.Role{"mia": ""}),
		},
		{
			name:  "an admin can leave",
			act:   func(e *env, tm *team) error { return e.svc.RemoveMember(ctx, tm.adam.p, tm.ws.ID, tm.adam.ID) },
			after: with(map[string]identity.Role{"adam": ""}),
		},
		{
			name: "a member cannot remove others",
			act:  func(e *env, tm *team) error { return e.svc.RemoveMember(ctx, tm.mia.p, tm.ws.ID, tm.max.ID) },
			want: errs.ErrForbidden,
		},
		{
			name: "a member cannot remove the owner",
			act:  func(e *env, tm *team) error { return e.svc.RemoveMember(ctx, tm.mia.p, tm.ws.ID, tm.olga.ID) },
			want: errs.ErrForbidden,
		},
		{
			name: "a member cannot change roles",
			act: func(e *env, tm *team) error {
				return e.svc.SetMemberRole(ctx, tm.mia.p, tm.ws.ID, tm.mia.ID, admin)
			},
			want: errs.ErrForbidden,
		},
		{
			name: "a member cannot add members",
			act: func(e *env, tm *team) error {
				_, err := e.svc.AddMember(ctx, tm.mia.p, tm.ws.ID, tm.otto.Email, member)
				return err
			},
			want: errs.ErrForbidden,
		},
		{
			name: "an outsider cannot remove anyone",
			act:  func(e *env, tm *team) error { return e.svc.RemoveMember(ctx, tm.otto.p, tm.ws.ID, tm.max.ID) },
			want: errs.ErrForbidden,
		},
		{
			name: "an outsider cannot list the members",
			act: func(e *env, tm *team) error {
				_, err := e.svc.ListMembers(ctx, tm.otto.p, tm.ws.ID)
				return err
			},
			want: errs.ErrForbidden,
		},
		{
			name: "removing a non-member is not found",
			act:  func(e *env, tm *team) error { return e.svc.RemoveMember(ctx, tm.olga.p, tm.ws.ID, tm.otto.ID) },
			want: errs.ErrNotFound,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			tm := e.team(t)
			if tc.setup != nil {
				if err := tc.setup(e, tm); err != nil {
					t.Fatalf("setup: %v", err)
				}
			}
			before := e.roles(t, tm.ws.ID)
			err := tc.act(e, tm)
			wantKind(t, err, tc.want)
			want := tc.after
			if tc.want != nil {
				want = before
			}
			if diff := cmp.Diff(want, e.roles(t, tm.ws.ID)); diff != "" {
				t.Fatalf("members after (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDeleteWorkspaceRules checks that only an owner deletes, and only team
// workspaces; a refused deletion leaves the workspace and its members.
func TestDeleteWorkspaceRules(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		who  func(tm *team) person
		ws   func(tm *team) int64
		want error
	}{
		{"a personal workspace cannot be deleted", func(tm *team) person { return tm.olga },
			func(tm *team) int64 { return tm.olga.personal.ID }, errs.ErrConflict},
		{"an admin cannot delete a team workspace", func(tm *team) person { return tm.adam },
			func(tm *team) int64 { return tm.ws.ID }, errs.ErrForbidden},
		{"a member cannot delete a team workspace", func(tm *team) person { return tm.mia },
			func(tm *team) int64 { return tm.ws.ID }, errs.ErrForbidden},
		{"an outsider cannot delete a team workspace", func(tm *team) person { return tm.otto },
			func(tm *team) int64 { return tm.ws.ID }, errs.ErrForbidden},
		{"the owner deletes a team workspace", func(tm *team) person { return tm.olga },
			func(tm *team) int64 { return tm.ws.ID }, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			tm := e.team(t)
			id := tc.ws(tm)
			before := e.roles(t, id)
			err := e.svc.DeleteWorkspace(ctx, tc.who(tm).p, id)
			wantKind(t, err, tc.want)
			_, getErr := e.db.Workspaces().GetWorkspace(ctx, id)
			if tc.want == nil {
				wantKind(t, getErr, errs.ErrNotFound)
				if left := e.roles(t, id); len(left) != 0 {
					t.Fatalf("members left behind: %v", left)
				}
				return
			}
			if getErr != nil {
				t.Fatalf("workspace gone after a refused deletion: %v", getErr)
			}
			if diff := cmp.Diff(before, e.roles(t, id)); diff != "" {
				t.Fatalf("members after (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBotScopeCannotManageWorkspaces shows that a token with only the bot
// scope, even of the owner, changes neither the workspace nor its members.
func TestBotScopeCannotManageWorkspaces(t *testing.T) {
	ctx := context.Background()
	newName := "renamed"
	cases := []struct {
		name string
		act  func(e *env, tm *team, bot identity.Principal) error
	}{
		{"update the workspace", func(e *env, tm *team, bot identity.Principal) error {
			_, err := e.svc.UpdateWorkspace(ctx, bot, tm.ws.ID, identityapp.WorkspaceInput{Name: &newName})
			return err
		}},
		{"delete the workspace", func(e *env, tm *team, bot identity.Principal) error {
			return e.svc.DeleteWorkspace(ctx, bot, tm.ws.ID)
		}},
		{"create a workspace", func(e *env, tm *team, bot identity.Principal) error {
			_, err := e.svc.CreateWorkspace(ctx, bot, identityapp.WorkspaceInput{Name: &newName})
			return err
		}},
		{"add a member", func(e *env, tm *team, bot identity.Principal) error {
			_, err := e.svc.AddMember(ctx, bot, tm.ws.ID, tm.otto.Email, identity.RoleMember)
			return err
		}},
		{"change a role", func(e *env, tm *team, bot identity.Principal) error {
			return e.svc.SetMemberRole(ctx, bot, tm.ws.ID, tm.mia.ID, identity.RoleAdmin)
		}},
		{"remove a member", func(e *env, tm *team, bot identity.Principal) error {
			return e.svc.RemoveMember(ctx, bot, tm.ws.ID, tm.mia.ID)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			tm := e.team(t)
			_, bot := e.token(t, tm.olga.p, identityapp.CreateTokenInput{Scopes: []string{identity.ScopeBot}})
			before := e.roles(t, tm.ws.ID)
			wantKind(t, tc.act(e, tm, bot), errs.ErrForbidden)
			ws, err := e.db.Workspaces().GetWorkspace(ctx, tm.ws.ID)
			if err != nil {
				t.Fatalf("workspace gone: %v", err)
			}
			if ws.Name != tm.ws.Name {
				t.Fatalf("workspace renamed to %q", ws.Name)
			}
			if diff := cmp.Diff(before, e.roles(t, tm.ws.ID)); diff != "" {
				t.Fatalf("members after (-want +got):\n%s", diff)
			}
			list, total, err := e.db.Workspaces().ListWorkspacesOfUser(ctx, tm.olga.ID, identity.Page{Number: 1, Size: 10})
			if err != nil || total != 2 || len(list) != 2 {
				t.Fatalf("olga's workspaces = %v, %d, %v; want her personal and team ones", list, total, err)
			}
		})
	}
}
