// Package redis holds the Redis implementations of Pergola's small
// coordination contracts: Cache, Locker, Queue (Redis Streams consumer
// groups), PubSub and RateLimiter. Several Pergola processes sharing one
// Redis share their caches, locks, work and event streams. Package memory
// has the single-process counterparts; package kvtest holds the contract
// suite both must pass.
//
// Every constructor takes a go-redis UniversalClient (a single node,
// Sentinel or Cluster client) and a prefix; all keys and channels are named
// prefix + kind + ":" + name, kind being cache, lock, queue, pubsub or rate.
// Every script and command touches one key, so Cluster works too.
//
// The shared value types (Lock, Message, ConsumeOptions, Subscription) are
// aliases of unnamed types declared identically in package memory, so both
// back ends satisfy one consumer-side interface.
//
// Errors from Redis that are not a reply to a bad command (a refused
// connection, a timeout) match errs.ErrUnavailable; a cancelled context
// gives the context's error.
package redis

import (
	"context"
	"errors"
	"fmt"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/pergola-ai/pergola/domain/errs"
)

// keyspace is the prefix every name lives under.
type keyspace string

func (p keyspace) name(kind, name string) string {
	return string(p) + kind + ":" + name
}

// fail wraps a go-redis error with the operation and, if Redis could not be
// reached or did not answer in time, errs.ErrUnavailable.
func fail(op string, err error) error {
	var reply goredis.Error
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded),
		errors.As(err, &reply) && !isTimeout(err):
		return fmt.Errorf("%s: %w", op, err)
	default:
		return fmt.Errorf("%s: %w: %w", op, errs.ErrUnavailable, err)
	}
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// ms converts a positive duration to whole milliseconds, at least 1.
func ms(d time.Duration) int64 {
	return max(d.Milliseconds(), 1)
}

func checkName(field, v string) error {
	if v == "" {
		return errs.Invalid(field, "must not be empty")
	}
	return nil
}

func checkTTL(field string, ttl time.Duration, zeroOK bool) error {
	if ttl < 0 || (ttl == 0 && !zeroOK) {
		return errs.Invalid(field, "must be positive, got %s", ttl)
	}
	return nil
}
