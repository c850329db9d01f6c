package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Cache sizes the in-process caches of what every request reads (tokens,
// users, memberships, published bot versions, the heads of published
// workflows). Every process drops an
// entry within a second of a change made anywhere (through Redis pub/sub
// when PERGOLA_REDIS_ADDR is set); the TTL is only a safety net for a
// change whose publication failed.
type Cache struct {
	// Entries bounds each small cache: tokens, users, memberships and
	// workflow heads.
	Entries int `yaml:"cache_entries"`
	// BotVersions bounds the published bot versions kept decoded.
	BotVersions int `yaml:"cache_bot_versions"`
	// TTL is the longest an entry is served; 0 turns the caches off.
	TTL time.Duration `yaml:"cache_ttl"`
}

// DefaultCache returns the default cache sizes.
func DefaultCache() Cache {
	return Cache{Entries: 10_000, BotVersions: 1_000, TTL: 10 * time.Second}
}

func applyCacheEnv(c *Cache, env Lookup) error {
	ints := map[string]*int{"PERGOLA_CACHE_ENTRIES": &c.Entries, "PERGOLA_CACHE_BOT_VERSIONS": &c.BotVersions}
	for key, dst := range ints {
		if v, ok := env(key); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("%s: must be an integer, got %q", key, v)
			}
			*dst = n
		}
	}
	if v, ok := env("PERGOLA_CACHE_TTL"); ok {
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("PERGOLA_CACHE_TTL: must be a duration such as 10s (0 turns the caches off), got %q", v)
		}
		c.TTL = d
	}
	return nil
}

func (c Cache) validate() error {
	if c.Entries < 1 || c.Entries > 10_000_000 {
		return fmt.Errorf("PERGOLA_CACHE_ENTRIES: must be between 1 and 10000000 entries per cache, got %d", c.Entries)
	}
	if c.BotVersions < 1 || c.BotVersions > 1_000_000 {
		return fmt.Errorf("PERGOLA_CACHE_BOT_VERSIONS: must be between 1 and 1000000 versions, got %d", c.BotVersions)
	}
	if c.TTL < 0 || c.TTL > time.Hour {
		return fmt.Errorf("PERGOLA_CACHE_TTL: must be between 0 (caches off) and 1h, got %s", c.TTL)
	}
	return nil
}
