package redis

import (
	"context"
	"errors"
	"fmt"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// Cache is a key-value cache in Redis, shared by every process using the
// same Redis and prefix. It is safe for concurrent use.
type Cache struct {
	client goredis.UniversalClient
	keys   keyspace
}

// NewCache returns a Cache keeping its entries under prefix + "cache:".
func NewCache(client goredis.UniversalClient, prefix string) *Cache {
	return &Cache{client: client, keys: keyspace(prefix)}
}

// Get returns the value stored under key and true, or false if there is none
// or it has expired. An empty key returns errs.ErrInvalid; Redis failures
// match errs.ErrUnavailable.
func (c *Cache) Get(ctx context.Context, key string) ([]byte, bool, error) {
	if err := checkName("key", key); err != nil {
		return nil, false, fmt.Errorf("cache get: %w", err)
	}
	val, err := c.client.Get(ctx, c.keys.name("cache", key)).Bytes()
	switch {
	case errors.Is(err, goredis.Nil):
		return nil, false, nil
	case err != nil:
		return nil, false, fail("cache get", err)
	}
	return val, true, nil
}

// Set stores val under key, replacing any value and its expiry. A ttl of 0
// means no expiry; a negative ttl or an empty key returns errs.ErrInvalid.
// Redis failures match errs.ErrUnavailable.
func (c *Cache) Set(ctx context.Context, key string, val []byte, ttl time.Duration) error {
	if err := check(key, ttl); err != nil {
		return fmt.Errorf("cache set: %w", err)
	}
	if err := c.client.Set(ctx, c.keys.name("cache", key), val, ttl).Err(); err != nil {
		return fail("cache set", err)
	}
	return nil
}

// SetNX stores val under key only if no value is there, and reports whether
// it did. Errors are as for Set.
func (c *Cache) SetNX(ctx context.Context, key string, val []byte, ttl time.Duration) (bool, error) {
	if err := check(key, ttl); err != nil {
		return false, fmt.Errorf("cache setnx: %w", err)
	}
	ok, err := c.client.SetNX(ctx, c.keys.name("cache", key), val, ttl).Result()
	if err != nil {
		return false, fail("cache setnx", err)
	}
	return ok, nil
}

// Delete removes keys; missing keys are not an error. It deletes them one
// command per key in a single pipeline, so keys may live in different
// Cluster slots. Redis failures match errs.ErrUnavailable.
func (c *Cache) Delete(ctx context.Context, keys ...string) error {
	if len(keys) == 0 {
		return nil
	}
	_, err := c.client.Pipelined(ctx, func(p goredis.Pipeliner) error {
		for _, k := range keys {
			p.Del(ctx, c.keys.name("cache", k))
		}
		return nil
	})
	if err != nil {
		return fail("cache delete", err)
	}
	return nil
}

func check(key string, ttl time.Duration) error {
	if err := checkName("key", key); err != nil {
		return err
	}
	return checkTTL("ttl", ttl, true)
}
