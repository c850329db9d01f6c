package identity_test

import (
	"context"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	identityapp "github.com/pergola-ai/pergola/application/identity"
	"github.com/pergola-ai/pergola/application/invalidation"
	"github.com/pergola-ai/pergola/infra/memory"
)

// BenchmarkAuthenticate measures Authenticate of a personal access token
// on each database: without caches (every call reads the token and the
// user), cold (the caches are emptied before each call, so each call also
// fills them) and warm.
func BenchmarkAuthenticate(b *testing.B) {
	for name, cfg := range storages() {
		b.Run(name, func(b *testing.B) {
			c := newCluster(b, cfg(b))
			_, _, secret, _ := c.signUp(b, "ada")
			plain := identityapp.New(c.db.Users(), c.db.Workspaces(), c.db.Tokens(), identityapp.WithPasswordCost(bcrypt.MinCost),
				identityapp.WithClock(func() time.Time { return c.now }))
			hub := invalidation.NewHub(memory.NewInvalidationBus(), invalidation.Options{TTL: time.Hour})
			s := identityapp.NewCachedStores(hub, 100, c.db.Users(), c.db.Workspaces(), c.db.Tokens())
			cached := identityapp.New(s.Users, s.Workspaces, s.Tokens, identityapp.WithClock(func() time.Time { return c.now }))
			run := func(b *testing.B, svc *identityapp.Service, before func()) {
				for b.Loop() {
					before()
					if _, err := svc.Authenticate(context.Background(), secret); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.Run("uncached", func(b *testing.B) { run(b, plain, func() {}) })
			b.Run("cold", func(b *testing.B) { run(b, cached, func() { hub.DropLocal(invalidation.All) }) })
			b.Run("warm", func(b *testing.B) { run(b, cached, func() {}) })
		})
	}
}
