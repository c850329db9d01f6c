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

func TestTokenStore(t *testing.T) { forEachBackend(t, testTokenStore) }

func testTokenStore(t *testing.T, db *DB) {
	ctx := context.Background()
	tokens := db.Tokens()
	ada := newUser(t, db, "ada@x.io")
	bob := newUser(t, db, "bob@x.io")
	expires := time.Date(2031, 2, 3, 4, 5, 6, 789_654_321, time.FixedZone("X", 3600))

	pat := &identity.Token{
		UserID: ada.ID, Kind: identity.TokenPAT, Name: "ci", Hash: identity.HashSecret("s1"), Hint: "pat_abc…",
		Scopes: []string{identity.ScopeBot, identity.ScopeChat}, WorkspaceIDs: []int64{7, 9}, ExpiresAt: &expires,
	}
	mustNot(t, tokens.CreateToken(ctx, pat))

	t.Run("get by hash", func(t *testing.T) {
		if pat.ID <= 0 || pat.CreatedAt.IsZero() {
			t.Fatalf("CreateToken left ID %d, CreatedAt %v", pat.ID, pat.CreatedAt)
		}
		if want := time.Date(2031, 2, 3, 3, 5, 6, 789_000_000, time.UTC); !pat.ExpiresAt.Equal(want) || pat.ExpiresAt.Location() != time.UTC {
			t.Errorf("ExpiresAt = %v, want it in UTC to the millisecond: %v", pat.ExpiresAt, want)
		}
		got, err := tokens.GetTokenByHash(ctx, pat.Hash)
		mustNot(t, err)
		if diff := cmp.Diff(pat, got); diff != "" {
			t.Errorf("GetTokenByHash (-created +got):\n%s", diff)
		}
		_, err = tokens.GetTokenByHash(ctx, identity.HashSecret("unknown"))
		wantErr(t, err, errs.ErrNotFound, "token with this secret not found")
	})

	t.Run("create conflicts and missing user", func(t *testing.T) {
		err := tokens.CreateToken(ctx, &identity.Token{UserID: bob.ID, Kind: identity.TokenPAT, Hash: pat.Hash})
		wantErr(t, err, errs.ErrConflict, "already exists")
		err = tokens.CreateToken(ctx, &identity.Token{UserID: 999, Kind: identity.TokenPAT, Hash: identity.HashSecret("s9")})
		wantErr(t, err, errs.ErrNotFound, "user 999 not found")
	})

	session := &identity.Token{UserID: ada.ID, Kind: identity.TokenSession, Hash: identity.HashSecret("s2"), Scopes: []string{identity.ScopeAll}}
	mustNot(t, tokens.CreateToken(ctx, session))
	bobs := &identity.Token{UserID: bob.ID, Kind: identity.TokenPAT, Hash: identity.HashSecret("s3")}
	mustNot(t, tokens.CreateToken(ctx, bobs))

	t.Run("list by user and kind", func(t *testing.T) {
		tests := []struct {
			user int64
			kind identity.TokenKind
			want []identity.Token
		}{
			{ada.ID, "", []identity.Token{*pat, *session}},
			{ada.ID, identity.TokenPAT, []identity.Token{*pat}},
			{ada.ID, identity.TokenSession, []identity.Token{*session}},
			{bob.ID, "", []identity.Token{*bobs}},
			{999, "", nil},
		}
		for _, tc := range tests {
			t.Run(fmt.Sprintf("user %d kind %q", tc.user, tc.kind), func(t *testing.T) {
				got, err := tokens.ListTokensOfUser(ctx, tc.user, tc.kind)
				mustNot(t, err)
				if diff := cmp.Diff(tc.want, got, cmpEmpty); diff != "" {
					t.Errorf("ListTokensOfUser (-want +got):\n%s", diff)
				}
			})
		}
	})

	t.Run("revoke is scoped to the token's user", func(t *testing.T) {
		at := time.Now()
		wantErr(t, tokens.RevokeToken(ctx, bob.ID, pat.ID, at), errs.ErrNotFound, fmt.Sprintf("token %d not found", pat.ID))
		got, _ := tokens.GetTokenByHash(ctx, pat.Hash)
		if err := got.Usable(at); err != nil || got.RevokedAt != nil {
			t.Fatalf("after another user's revoke: Usable = %v, RevokedAt = %v", err, got.RevokedAt)
		}

		mustNot(t, tokens.RevokeToken(ctx, ada.ID, pat.ID, at))
		mustNot(t, tokens.RevokeToken(ctx, ada.ID, pat.ID, at.Add(time.Hour)))
		got, _ = tokens.GetTokenByHash(ctx, pat.Hash)
		if got.Usable(at) == nil || got.RevokedAt == nil || !got.RevokedAt.Equal(dbTime(at)) {
			t.Errorf("RevokedAt = %v, want the first revocation %v", got.RevokedAt, dbTime(at))
		}
		wantErr(t, tokens.RevokeToken(ctx, ada.ID, 12345, at), errs.ErrNotFound, "token 12345 not found")
	})

	t.Run("touch", func(t *testing.T) {
		now := time.Now()
		// The repeated time changes nothing in the row yet must not read as
		// a missing token.
		for _, at := range []time.Time{now, now.Add(time.Minute), now.Add(time.Minute)} {
			mustNot(t, tokens.TouchToken(ctx, session.ID, at))
			got, _ := tokens.GetTokenByHash(ctx, session.Hash)
			if got.LastUsedAt == nil || !got.LastUsedAt.Equal(dbTime(at)) {
				t.Errorf("LastUsedAt = %v, want %v", got.LastUsedAt, dbTime(at))
			}
		}
		wantErr(t, tokens.TouchToken(ctx, 12345, now), errs.ErrNotFound, "token 12345 not found")
	})

	t.Run("concurrent create and touch", func(t *testing.T) {
		const workers, each = 20, 5
		var wg sync.WaitGroup
		errc := make(chan error, workers*each*2)
		for w := range workers {
			wg.Go(func() {
				for i := range each {
					tok := &identity.Token{UserID: bob.ID, Kind: identity.TokenSession, Hash: identity.HashSecret(fmt.Sprintf("c-%d-%d", w, i))}
					errc <- tokens.CreateToken(ctx, tok)
					errc <- tokens.TouchToken(ctx, tok.ID, time.Now())
				}
			})
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			if err != nil {
				t.Fatalf("concurrent write failed: %v", err)
			}
		}
		got, err := tokens.ListTokensOfUser(ctx, bob.ID, identity.TokenSession)
		mustNot(t, err)
		if len(got) != workers*each {
			t.Errorf("stored %d session tokens, want %d", len(got), workers*each)
		}
	})
}
