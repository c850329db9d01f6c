package kvtest

import (
	"bytes"
	"context"
	"testing"
	"time"
)

// Cache is the contract of memory.Cache and redis.Cache.
type Cache interface {
	Get(ctx context.Context, key string) ([]byte, bool, error)
	Set(ctx context.Context, key string, val []byte, ttl time.Duration) error
	SetNX(ctx context.Context, key string, val []byte, ttl time.Duration) (bool, error)
	Delete(ctx context.Context, keys ...string) error
}

// TestCache runs the Cache contract; newCache returns an empty cache for
// one subtest.
func TestCache(t *testing.T, newCache func(t *testing.T) Cache) {
	cases := []struct {
		name string
		run  func(t *testing.T, c Cache)
	}{
		{"set then get", cacheSetGet},
		{"ttl expires", cacheTTLExpires},
		{"set replaces value and ttl", cacheSetReplaces},
		{"setnx only when absent", cacheSetNX},
		{"setnx after expiry", cacheSetNXAfterExpiry},
		{"delete", cacheDelete},
		{"values are copied", cacheCopies},
		{"invalid arguments", cacheInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, newCache(t))
		})
	}
}

func wantValue(t *testing.T, c Cache, key string, want []byte) {
	t.Helper()
	got, ok, err := c.Get(background(t), key)
	noErr(t, "get "+key, err)
	if !ok || !bytes.Equal(got, want) {
		t.Fatalf("get %s = %q, %v; want %q, true", key, got, ok, want)
	}
}

func present(t *testing.T, c Cache, key string) bool {
	t.Helper()
	_, ok, err := c.Get(background(t), key)
	noErr(t, "get "+key, err)
	return ok
}

func cacheSetGet(t *testing.T, c Cache) {
	ctx := background(t)
	if present(t, c, "missing") {
		t.Fatal("get of a key never set reports a value")
	}
	noErr(t, "set", c.Set(ctx, "k", []byte("v1"), 0))
	wantValue(t, c, "k", []byte("v1"))
	noErr(t, "set empty", c.Set(ctx, "empty", []byte{}, 0))
	wantValue(t, c, "empty", []byte{})
}

func cacheTTLExpires(t *testing.T, c Cache) {
	ctx := background(t)
	noErr(t, "set forever", c.Set(ctx, "forever", []byte("f"), 0))
	noErr(t, "set short", c.Set(ctx, "short", []byte("s"), short))
	eventually(t, "the short-lived key to expire", func() bool { return !present(t, c, "short") })
	wantValue(t, c, "forever", []byte("f"))
}

func cacheSetReplaces(t *testing.T, c Cache) {
	ctx := background(t)
	noErr(t, "set with ttl", c.Set(ctx, "k", []byte("old"), short))
	noErr(t, "set without ttl", c.Set(ctx, "k", []byte("new"), 0))
	noErr(t, "set clock", c.Set(ctx, "clock", []byte("c"), short))
	eventually(t, "the clock key to expire", func() bool { return !present(t, c, "clock") })
	wantValue(t, c, "k", []byte("new"))
}

func cacheSetNX(t *testing.T, c Cache) {
	ctx := background(t)
	ok, err := c.SetNX(ctx, "k", []byte("first"), 0)
	noErr(t, "setnx", err)
	if !ok {
		t.Fatal("setnx of an absent key reports false")
	}
	ok, err = c.SetNX(ctx, "k", []byte("second"), 0)
	noErr(t, "setnx again", err)
	if ok {
		t.Fatal("setnx of a present key reports true")
	}
	wantValue(t, c, "k", []byte("first"))
	noErr(t, "delete", c.Delete(ctx, "k"))
	ok, err = c.SetNX(ctx, "k", []byte("third"), 0)
	noErr(t, "setnx after delete", err)
	if !ok {
		t.Fatal("setnx after delete reports false")
	}
	wantValue(t, c, "k", []byte("third"))
}

func cacheSetNXAfterExpiry(t *testing.T, c Cache) {
	ctx := background(t)
	ok, err := c.SetNX(ctx, "k", []byte("a"), short)
	noErr(t, "setnx", err)
	if !ok {
		t.Fatal("setnx of an absent key reports false")
	}
	eventually(t, "setnx to succeed once the first value expired", func() bool {
		ok, err := c.SetNX(ctx, "k", []byte("b"), 0)
		noErr(t, "setnx", err)
		return ok
	})
	wantValue(t, c, "k", []byte("b"))
}

func cacheDelete(t *testing.T, c Cache) {
	ctx := background(t)
	for _, k := range []string{"a", "b", "c"} {
		noErr(t, "set "+k, c.Set(ctx, k, []byte(k), 0))
	}
	noErr(t, "delete a, b and a missing key", c.Delete(ctx, "a", "b", "missing"))
	noErr(t, "delete nothing", c.Delete(ctx))
	if present(t, c, "a") || present(t, c, "b") {
		t.Fatal("deleted keys still have values")
	}
	wantValue(t, c, "c", []byte("c"))
}

func cacheCopies(t *testing.T, c Cache) {
	ctx := background(t)
	in := []byte("value")
	noErr(t, "set", c.Set(ctx, "k", in, 0))
	in[0] = 'X'
	got, _, err := c.Get(ctx, "k")
	noErr(t, "get", err)
	got[0] = 'Y'
	wantValue(t, c, "k", []byte("value"))
}

func cacheInvalid(t *testing.T, c Cache) {
	ctx := background(t)
	wantInvalid(t, "set with negative ttl", c.Set(ctx, "k", []byte("v"), -time.Second))
	_, err := c.SetNX(ctx, "k", []byte("v"), -time.Second)
	wantInvalid(t, "setnx with negative ttl", err)
	wantInvalid(t, "set with empty key", c.Set(ctx, "", []byte("v"), 0))
	_, _, err = c.Get(ctx, "")
	wantInvalid(t, "get with empty key", err)
}
