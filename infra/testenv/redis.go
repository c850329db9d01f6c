package testenv

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisAddr returns the address of the test Redis after checking that it
// answers.
func RedisAddr(t testing.TB) string {
	t.Helper()
	addr := os.Getenv("PERGOLA_TEST_REDIS_ADDR")
	if addr == "" {
		addr = "127.0.0.1:6379"
	}
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		unavailable(t, "Redis at "+addr, err)
	}
	return addr
}

// Redis returns a client of the test Redis and a key prefix unique to this
// test; keys under the prefix are deleted when the test ends.
func Redis(t testing.TB) (*redis.Client, string) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: RedisAddr(t)})
	prefix := newPrefix(t)
	t.Cleanup(func() {
		deleteUnder(t, c, prefix)
		_ = c.Close()
	})
	return c, prefix
}

// RedisPrefix returns a key prefix unique to this test, for a server that
// is given it as PERGOLA_REDIS_PREFIX; keys under it in Redis database db
// are deleted when the test ends. Call it before starting the server, so
// that the deletion runs after the server has stopped.
func RedisPrefix(t testing.TB, db int) string {
	t.Helper()
	addr := RedisAddr(t)
	prefix := newPrefix(t)
	t.Cleanup(func() {
		c := redis.NewClient(&redis.Options{Addr: addr, DB: db})
		deleteUnder(t, c, prefix)
		_ = c.Close()
	})
	return prefix
}

// newPrefix is pergola_test:<run>:<test name>:<suffix>:, the test name
// reduced to characters that are no glob metacharacters.
func newPrefix(t testing.TB) string {
	t.Helper()
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.' {
			return r
		}
		return '.'
	}, t.Name())
	return "pergola_test:" + Run(t) + ":" + name + ":" + Suffix() + ":"
}

// deleteUnder deletes the keys under prefix; a failure is the test's,
// since the keys are left behind.
func deleteUnder(t testing.TB, c *redis.Client, prefix string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	iter := c.Scan(ctx, 0, prefix+"*", 500).Iterator()
	for iter.Next(ctx) {
		if err := c.Del(ctx, iter.Val()).Err(); err != nil {
			t.Errorf("delete the test key %s: %v (it is left behind)", iter.Val(), err)
			return
		}
	}
	if err := iter.Err(); err != nil {
		t.Errorf("list the test keys under %s: %v (they are left behind)", prefix, err)
	}
}
