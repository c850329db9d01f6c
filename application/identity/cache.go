package identity

import (
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/pergola-ai/pergola/application/invalidation"
	"github.com/pergola-ai/pergola/domain/identity"
)

// CachedStores are the identity stores with what every request reads kept
// in process: the token of a secret's hash, the user, and a membership.
// Every write through them that changes a cached entry invalidates it on
// the hub, so every process drops it (see package invalidation for the
// bound). Unknown tokens, users and memberships are never cached. Use all
// three together: each one's writes drop the others' entries.
type CachedStores struct {
	Tokens     identity.TokenStore
	Users      identity.UserStore
	Workspaces identity.WorkspaceStore
}

// caches holds the three caches the decorators share.
type caches struct {
	hub     *invalidation.Hub
	tokens  *invalidation.Cache[identity.Token]
	users   *invalidation.Cache[identity.User]
	members *invalidation.Cache[identity.Member]
}

// NewCachedStores wraps the stores with caches of at most size entries
// each, kept fresh by hub.
func NewCachedStores(hub *invalidation.Hub, size int, users identity.UserStore, workspaces identity.WorkspaceStore, tokens identity.TokenStore) CachedStores {
	c := &caches{hub: hub, tokens: invalidation.NewCache[identity.Token](hub, size),
		users: invalidation.NewCache[identity.User](hub, size), members: invalidation.NewCache[identity.Member](hub, size)}
	return CachedStores{
		Tokens:     cachedTokens{TokenStore: tokens, c: c},
		Users:      cachedUsers{UserStore: users, c: c},
		Workspaces: cachedWorkspaces{WorkspaceStore: workspaces, c: c},
	}
}

type cachedTokens struct {
	identity.TokenStore
	c *caches
}

// GetTokenByHash returns the token from the cache or the store. The
// caller gets its own copy.
func (s cachedTokens) GetTokenByHash(ctx context.Context, hash string) (*identity.Token, error) {
	t, err := s.c.tokens.Get(hash, func() (identity.Token, []string, error) {
		t, err := s.TokenStore.GetTokenByHash(ctx, hash)
		if err != nil {
			return identity.Token{}, nil, err
		}
		return *t, []string{invalidation.Token(t.ID), invalidation.User(t.UserID)}, nil
	})
	if err != nil {
		return nil, err
	}
	t.Scopes, t.WorkspaceIDs = slices.Clone(t.Scopes), slices.Clone(t.WorkspaceIDs)
	return &t, nil
}

// RevokeToken revokes the token and invalidates it everywhere.
func (s cachedTokens) RevokeToken(ctx context.Context, userID, tokenID int64, at time.Time) error {
	if err := s.TokenStore.RevokeToken(ctx, userID, tokenID, at); err != nil {
		return err
	}
	s.c.hub.Invalidate(ctx, invalidation.Token(tokenID))
	return nil
}

// TouchToken records the use and drops this process's entry, so its next
// read sees the new last-used time (and does not touch again for a
// while). Other processes need not hear of it: the time only spaces out
// their own touches.
func (s cachedTokens) TouchToken(ctx context.Context, tokenID int64, at time.Time) error {
	if err := s.TokenStore.TouchToken(ctx, tokenID, at); err != nil {
		return err
	}
	s.c.hub.DropLocal(invalidation.Token(tokenID))
	return nil
}

type cachedUsers struct {
	identity.UserStore
	c *caches
}

// GetUser returns the user from the cache or the store, as a copy.
func (s cachedUsers) GetUser(ctx context.Context, id int64) (*identity.User, error) {
	u, err := s.c.users.Get(strconv.FormatInt(id, 10), func() (identity.User, []string, error) {
		u, err := s.UserStore.GetUser(ctx, id)
		if err != nil {
			return identity.User{}, nil, err
		}
		return *u, []string{invalidation.User(id)}, nil
	})
	if err != nil {
		return nil, err
	}
	return &u, nil
}

// UpdateUser saves the change and invalidates what depends on the user:
// the user, its tokens (a disabled user's tokens stop working) and its
// memberships.
func (s cachedUsers) UpdateUser(ctx context.Context, id int64, fn func(*identity.User) error) (*identity.User, error) {
	u, err := s.UserStore.UpdateUser(ctx, id, fn)
	if err != nil {
		return nil, err
	}
	s.c.hub.Invalidate(ctx, invalidation.User(id))
	return u, nil
}

type cachedWorkspaces struct {
	identity.WorkspaceStore
	c *caches
}

// GetMember returns the membership from the cache or the store, as a
// copy. Not being a member is not cached.
func (s cachedWorkspaces) GetMember(ctx context.Context, workspaceID, userID int64) (*identity.Member, error) {
	key := strconv.FormatInt(workspaceID, 10) + ":" + strconv.FormatInt(userID, 10)
	m, err := s.c.members.Get(key, func() (identity.Member, []string, error) {
		m, err := s.WorkspaceStore.GetMember(ctx, workspaceID, userID)
		if err != nil {
			return identity.Member{}, nil, err
		}
		return *m, []string{invalidation.Member(workspaceID, userID), invalidation.Workspace(workspaceID), invalidation.User(userID)}, nil
	})
	if err != nil {
		return nil, err
	}
	return &m, nil
}

// SetMemberRole saves the role and invalidates the membership.
func (s cachedWorkspaces) SetMemberRole(ctx context.Context, workspaceID, userID int64, role identity.Role) error {
	if err := s.WorkspaceStore.SetMemberRole(ctx, workspaceID, userID, role); err != nil {
		return err
	}
	s.c.hub.Invalidate(ctx, invalidation.Member(workspaceID, userID))
	return nil
}

// RemoveMember removes the member and invalidates the membership.
func (s cachedWorkspaces) RemoveMember(ctx context.Context, workspaceID, userID int64) error {
	if err := s.WorkspaceStore.RemoveMember(ctx, workspaceID, userID); err != nil {
		return err
	}
	s.c.hub.Invalidate(ctx, invalidation.Member(workspaceID, userID))
	return nil
}

// DeleteWorkspace deletes the workspace and invalidates everything that
// depends on it: its memberships, and its bots' published versions.
func (s cachedWorkspaces) DeleteWorkspace(ctx context.Context, id int64) error {
	if err := s.WorkspaceStore.DeleteWorkspace(ctx, id); err != nil {
		return err
	}
	s.c.hub.Invalidate(ctx, invalidation.Workspace(id))
	return nil
}
