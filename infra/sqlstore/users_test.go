package sqlstore

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

func TestUserStore(t *testing.T) { forEachBackend(t, testUserStore) }

func testUserStore(t *testing.T, db *DB) {
	ctx := context.Background()
	users := db.Users()

	t.Run("create and get", func(t *testing.T) {
		before := time.Now().Add(-time.Second)
		u := &identity.User{Email: "ada@x.io", Name: "Ada", PasswordHash: "h", IsAdmin: true}
		mustNot(t, users.CreateUser(ctx, u))
		if u.ID <= 0 || u.CreatedAt.Before(before) || !u.UpdatedAt.Equal(u.CreatedAt) || u.CreatedAt.Location() != time.UTC {
			t.Fatalf("CreateUser left ID %d, CreatedAt %v, UpdatedAt %v", u.ID, u.CreatedAt, u.UpdatedAt)
		}
		got, err := users.GetUser(ctx, u.ID)
		mustNot(t, err)
		if diff := cmp.Diff(u, got); diff != "" {
			t.Errorf("GetUser (-created +got):\n%s", diff)
		}
		got, err = users.GetUserByEmail(ctx, "ADA@x.io")
		mustNot(t, err)
		if diff := cmp.Diff(u, got); diff != "" {
			t.Errorf("GetUserByEmail in upper case (-created +got):\n%s", diff)
		}
	})

	t.Run("email taken", func(t *testing.T) {
		for _, email := range []string{"ada@x.io", "Ada@X.io"} {
			err := users.CreateUser(ctx, &identity.User{Email: email, Name: "Other"})
			wantErr(t, err, errs.ErrConflict, "email "+email+" is already registered")
		}
	})

	t.Run("not found", func(t *testing.T) {
		_, err := users.GetUser(ctx, 999)
		wantErr(t, err, errs.ErrNotFound, "user 999 not found")
		_, err = users.GetUserByEmail(ctx, "nobody@x.io")
		wantErr(t, err, errs.ErrNotFound, "nobody@x.io")
		_, err = users.UpdateUser(ctx, 999, func(*identity.User) error { return nil })
		wantErr(t, err, errs.ErrNotFound, "user 999 not found")
	})

	t.Run("update", func(t *testing.T) {
		u := newUser(t, db, "bob@x.io")
		got, err := users.UpdateUser(ctx, u.ID, func(u *identity.User) error {
			u.Name, u.Disabled = "Robert", true
			u.ID, u.CreatedAt = 1, time.Time{} // ignored
			return nil
		})
		mustNot(t, err)
		want := *u
		want.Name, want.Disabled, want.UpdatedAt = "Robert", true, got.UpdatedAt
		if diff := cmp.Diff(&want, got); diff != "" {
			t.Errorf("UpdateUser result (-want +got):\n%s", diff)
		}
		if got.UpdatedAt.Before(u.UpdatedAt) {
			t.Errorf("UpdatedAt went back from %v to %v", u.UpdatedAt, got.UpdatedAt)
		}
		stored, _ := users.GetUser(ctx, u.ID)
		if diff := cmp.Diff(got, stored); diff != "" {
			t.Errorf("stored user (-returned +stored):\n%s", diff)
		}
	})

	t.Run("update rolled back when fn fails", func(t *testing.T) {
		u := newUser(t, db, "carol@x.io")
		_, err := users.UpdateUser(ctx, u.ID, func(u *identity.User) error {
			u.Name = "changed"
			return errFromFn
		})
		if err != errFromFn {
			t.Fatalf("UpdateUser error = %v, want fn's own error", err)
		}
		stored, _ := users.GetUser(ctx, u.ID)
		if diff := cmp.Diff(u, stored); diff != "" {
			t.Errorf("user changed though fn failed (-before +after):\n%s", diff)
		}
	})

	t.Run("update to a taken email", func(t *testing.T) {
		u := newUser(t, db, "dan@x.io")
		_, err := users.UpdateUser(ctx, u.ID, func(u *identity.User) error { u.Email = "ada@x.io"; return nil })
		wantErr(t, err, errs.ErrConflict, "email ada@x.io is already registered")
	})

	t.Run("concurrent updates are serialized", func(t *testing.T) {
		u := newUser(t, db, "erin@x.io")
		const n = 10
		var wg sync.WaitGroup
		errc := make(chan error, n)
		for range n {
			wg.Go(func() {
				_, err := users.UpdateUser(ctx, u.ID, func(u *identity.User) error { u.Name += "+"; return nil })
				errc <- err
			})
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			mustNot(t, err)
		}
		stored, _ := users.GetUser(ctx, u.ID)
		if want := u.Name + "++++++++++"; stored.Name != want {
			t.Errorf("name after %d concurrent appends = %q, want %q (a lost update)", n, stored.Name, want)
		}
	})

	t.Run("list, page and count", func(t *testing.T) {
		all, total, err := users.ListUsers(ctx, identity.Page{})
		mustNot(t, err)
		count, err := users.CountUsers(ctx)
		mustNot(t, err)
		if total != int64(len(all)) || count != total || total < 5 {
			t.Fatalf("ListUsers gave %d users, total %d; CountUsers %d", len(all), total, count)
		}
		for i := 1; i < len(all); i++ {
			if all[i].ID <= all[i-1].ID {
				t.Fatalf("users not in ID order: %d after %d", all[i].ID, all[i-1].ID)
			}
		}
		tests := []struct {
			page     identity.Page
			from, to int
		}{
			{identity.Page{Number: 1, Size: 2}, 0, 2},
			{identity.Page{Number: 2, Size: 2}, 2, 4},
			{identity.Page{Number: 0, Size: 3}, 0, 3},
			{identity.Page{Number: 100, Size: 2}, 0, 0},
		}
		for _, tc := range tests {
			t.Run(fmt.Sprintf("page %d size %d", tc.page.Number, tc.page.Size), func(t *testing.T) {
				got, total, err := users.ListUsers(ctx, tc.page)
				mustNot(t, err)
				want := all[tc.from:tc.to]
				if diff := cmp.Diff(want, got, cmpEmpty); diff != "" || total != int64(len(all)) {
					t.Errorf("total %d, want %d; page (-want +got):\n%s", total, len(all), diff)
				}
			})
		}
	})
}
