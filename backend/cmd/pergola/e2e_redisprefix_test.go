package main

import (
	"context"
	"strings"
	"testing"

	goredis "github.com/redis/go-redis/v9"

	"github.com/pergola-ai/pergola/infra/testenv"
)

// TestRedisKeysStayUnderThePrefixAndDB starts the server on Redis database
// 1 with its own PERGOLA_REDIS_PREFIX: after a request, its rate-limit keys
// are under that prefix in database 1 and its chat-cancel channel under the prefix, nothing
// of it is in database 0, and database 1 has nothing under the default
// prefix pergola:.
func TestRedisKeysStayUnderThePrefixAndDB(t *testing.T) {
	addr := testenv.RedisAddr(t)
	prefix := testenv.RedisPrefix(t, 1)
	s := startServer(t, map[string]string{"PERGOLA_REDIS_ADDR": addr, "PERGOLA_REDIS_DB": "1", "PERGOLA_REDIS_PREFIX": prefix})
	s.call(t, "GET", "/api/me", bootstrapToken, nil).must(t, 200)

	ctx := context.Background()
	db1 := goredis.NewClient(&goredis.Options{Addr: addr, DB: 1})
	defer db1.Close()
	db0 := goredis.NewClient(&goredis.Options{Addr: addr})
	defer db0.Close()
	keys := scanAll(t, db1, prefix+"*")
	if !hasPrefixed(keys, prefix+"rate:") {
		t.Fatalf("database 1 has no rate-limit key under %s: %v", prefix, keys)
	}
	if stray := scanAll(t, db0, prefix+"*"); len(stray) > 0 {
		t.Fatalf("keys under the prefix landed in database 0: %v", stray)
	}
	if stray := scanAll(t, db1, "pergola:*"); len(stray) > 0 {
		t.Fatalf("keys under the default prefix in database 1: %v", stray)
	}
	channels, err := db1.PubSubChannels(ctx, prefix+"*").Result()
	if err != nil || len(channels) == 0 {
		t.Fatalf("no pub/sub channel under %s: %v, %v", prefix, channels, err)
	}
}

func scanAll(t *testing.T, c *goredis.Client, pattern string) []string {
	t.Helper()
	var keys []string
	iter := c.Scan(context.Background(), 0, pattern, 1000).Iterator()
	for iter.Next(context.Background()) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	return keys
}

func hasPrefixed(keys []string, p string) bool {
	for _, k := range keys {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}
