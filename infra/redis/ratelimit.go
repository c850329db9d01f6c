package redis

import (
	"context"
	"crypto/rand"
	"fmt"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/pergola-ai/pergola/domain/errs"
)

// slidingLogScript keeps one sorted-set member per allowed call, scored by
// Redis's own clock in microseconds so that processes with skewed clocks
// agree. It returns {1, 0} if allowed, else {0, microseconds to wait}.
const slidingLogScript = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local window, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local n = redis.call('ZCARD', KEYS[1])
if n < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000))
  return {1, 0}
end
local oldest = redis.call('ZRANGE', KEYS[1], n - limit, n - limit, 'WITHSCORES')
return {0, tonumber(oldest[2]) + window - now}`

// RateLimiter limits calls per key with a sliding-window log, atomically
// across processes (one Lua script per call): a call is allowed if fewer
// than limit calls were allowed for the key in the window ending now.
// Refused calls are not counted. It keeps one sorted-set member per allowed
// call, so it suits limits up to a few thousand per window. It is safe for
// concurrent use.
type RateLimiter struct {
	client goredis.UniversalClient
	keys   keyspace
	script *goredis.Script
}

// NewRateLimiter returns a RateLimiter keeping its logs under prefix +
// "rate:".
func NewRateLimiter(client goredis.UniversalClient, prefix string) *RateLimiter {
	return &RateLimiter{client: client, keys: keyspace(prefix), script: goredis.NewScript(slidingLogScript)}
}

// Allow reports whether one more call for key fits in limit calls per
// window, recording it if so. When it does not, retryAfter is how long until
// it would (always positive). An empty key or a non-positive limit or window
// returns errs.ErrInvalid; Redis failures match errs.ErrUnavailable.
func (r *RateLimiter) Allow(ctx context.Context, key string, limit int, window time.Duration) (bool, time.Duration, error) {
	if err := checkLimitArgs(key, limit, window); err != nil {
		return false, 0, fmt.Errorf("rate limit %q: %w", key, err)
	}
	window = max(window, time.Microsecond)
	res, err := r.script.Run(ctx, r.client, []string{r.keys.name("rate", key)},
		window.Microseconds(), limit, rand.Text()).Int64Slice()
	if err != nil {
		return false, 0, fail(fmt.Sprintf("rate limit %q", key), err)
	}
	if res[0] == 1 {
		return true, 0, nil
	}
	return false, max(time.Duration(res[1])*time.Microsecond, time.Microsecond), nil
}

func checkLimitArgs(key string, limit int, window time.Duration) error {
	if err := checkName("key", key); err != nil {
		return err
	}
	if limit <= 0 {
		return errs.Invalid("limit", "must be positive, got %d", limit)
	}
	return checkTTL("window", window, false)
}
