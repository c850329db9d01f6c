package main

import (
	"context"
	"fmt"
	"time"

	goredis "github.com/redis/go-redis/v9"

	channelapp "github.com/pergola-ai/pergola/application/channel"
	chatapp "github.com/pergola-ai/pergola/application/chat"
	"github.com/pergola-ai/pergola/backend/api/middleware"
	"github.com/pergola-ai/pergola/backend/api/ops"
	"github.com/pergola-ai/pergola/backend/config"
	"github.com/pergola-ai/pergola/infra/memory"
	"github.com/pergola-ai/pergola/infra/redis"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// kv is what processes share through Redis, or keep in memory on the
// embedded default: rate limits, the chat cancel broadcast and the queue
// of async workflow runs, the locks of channel conversations.
type kv struct {
	limiter middleware.Limiter
	bus     chatapp.Broadcaster
	queue   workflowQueue
	locker  channelapp.Locker
	redis   *goredis.Client // nil on the embedded default
	checks  []ops.Check
	close   func()
}

// openKV picks memory or Redis (when PERGOLA_REDIS_ADDR is set).
func openKV(ctx context.Context, cfg config.Config, db *sqlstore.DB) (*kv, error) {
	checks := []ops.Check{{Name: "database", Ping: db.Ping}}
	if cfg.RedisAddr == "" {
		return &kv{limiter: memory.NewRateLimiter(), bus: memory.NewPubSub(),
			queue:  memory.NewQueue(memory.QueueOptions{MaxBacklog: cfg.QueueMaxBacklog}),
			locker: memory.NewLocker(),
			checks: checks, close: func() {}}, nil
	}
	client := goredis.NewClient(&goredis.Options{Addr: cfg.RedisAddr, Password: cfg.RedisPassword, DB: cfg.RedisDB})
	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := client.Ping(pctx).Err(); err != nil {
		_ = client.Close()
		return nil, fmt.Errorf("PERGOLA_REDIS_ADDR: %s does not answer: %w", cfg.RedisAddr, err)
	}
	checks = append(checks, ops.Check{Name: "redis", Ping: func(ctx context.Context) error { return client.Ping(ctx).Err() }})
	p := cfg.RedisPrefix
	return &kv{limiter: redis.NewRateLimiter(client, p), bus: redis.NewPubSub(client, p),
		queue:  redis.NewQueue(client, p, redis.QueueOptions{MaxBacklog: int64(cfg.QueueMaxBacklog)}),
		locker: redis.NewLocker(client, p), redis: client,
		checks: checks, close: func() { _ = client.Close() }}, nil
}
