package main

import (
	"context"
	"log/slog"
	"time"

	botapp "github.com/pergola-ai/pergola/application/bot"
	identityapp "github.com/pergola-ai/pergola/application/identity"
	"github.com/pergola-ai/pergola/application/invalidation"
	knowledgeapp "github.com/pergola-ai/pergola/application/knowledge"
	"github.com/pergola-ai/pergola/application/modelreg"
	workflowapp "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/backend/config"
	"github.com/pergola-ai/pergola/infra/memory"
	"github.com/pergola-ai/pergola/infra/redis"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// The staleness bound of the caches across processes on Redis: a process
// serves cached entries only while a ping it sent at most cacheLease ago
// has been answered on its subscription, and Redis delivers every message
// published before a ping ahead of that ping's answer. So a change is
// dropped everywhere, or the cache bypassed, within cacheLease of Redis
// receiving its publication. Pinging every busPing keeps a healthy
// subscription well inside the lease.
const (
	cacheLease = 750 * time.Millisecond
	busPing    = 250 * time.Millisecond
)

// caches holds the hub that keeps this process's caches fresh.
type caches struct {
	hub *invalidation.Hub
	cfg config.Cache
}

// newCaches starts the invalidation hub: on Redis pub/sub over the
// server's shared client when Redis is configured (shared.redis), in
// process otherwise. Its stop is added to cleanups, which run before the
// shared client closes. It does not fail: until the Redis subscription
// answers, the caches are bypassed.
func newCaches(ctx context.Context, cfg config.Config, shared *kv, log *slog.Logger, cleanups *[]func()) *caches {
	var bus invalidation.Bus = memory.NewInvalidationBus()
	opts := invalidation.Options{TTL: cfg.Cache.TTL, Log: log}
	if shared.redis != nil {
		bus = redis.NewInvalidationBus(shared.redis, cfg.RedisPrefix, redis.InvalidationOptions{Ping: busPing})
		opts.Lease = cacheLease
	}
	hub := invalidation.NewHub(bus, opts)
	hctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() { defer close(done); hub.Run(hctx) }()
	*cleanups = append(*cleanups, func() { cancel(); <-done })
	return &caches{hub: hub, cfg: cfg.Cache}
}

// knowledgeBases returns the knowledge base store with the recalls'
// reads of bases cached.
func (c *caches) knowledgeBases(db *sqlstore.DB) *knowledgeapp.CachedBases {
	return knowledgeapp.NewCachedBases(db.Knowledge(), c.hub, c.cfg.Entries)
}

// identity returns the identity use cases over cached stores.
func (c *caches) identity(db *sqlstore.DB) *identityapp.Service {
	s := identityapp.NewCachedStores(c.hub, c.cfg.Entries, db.Users(), db.Workspaces(), db.Tokens())
	return identityapp.New(s.Users, s.Workspaces, s.Tokens)
}

// models returns the stored models with the one a chat turn reads cached.
func (c *caches) models(db *sqlstore.DB) *modelreg.CachedStore {
	return modelreg.NewCachedStore(db.Models(), c.hub, c.cfg.Entries)
}

// bots returns the option that caches published bot versions.
func (c *caches) bots() botapp.Option { return botapp.WithCache(c.hub, c.cfg.BotVersions) }

// workflows returns the workflow store with the heads of published
// workflows cached (small: no definition).
func (c *caches) workflows(db *sqlstore.DB) *workflowapp.CachedStore {
	return workflowapp.NewCachedStore(db.Workflows(), c.hub, c.cfg.Entries)
}
