package config

import (
	"strings"
	"testing"
	"time"
)

func TestCacheSettings(t *testing.T) {
	cfg, err := Load(envOf(map[string]string{"PERGOLA_CACHE_ENTRIES": "500", "PERGOLA_CACHE_BOT_VERSIONS": "20", "PERGOLA_CACHE_TTL": "0"}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Cache != (Cache{Entries: 500, BotVersions: 20, TTL: 0}) {
		t.Fatalf("cache settings = %+v", cfg.Cache)
	}
	if def := Defaults().Cache; def.TTL != 10*time.Second || def.Entries != 10_000 || def.BotVersions != 1_000 {
		t.Fatalf("default cache settings = %+v", def)
	}
}

func TestBadCacheSettingsNameTheSetting(t *testing.T) {
	cases := map[string]map[string]string{
		"PERGOLA_CACHE_ENTRIES":      {"PERGOLA_CACHE_ENTRIES": "0"},
		"PERGOLA_CACHE_BOT_VERSIONS": {"PERGOLA_CACHE_BOT_VERSIONS": "many"},
		"PERGOLA_CACHE_TTL":          {"PERGOLA_CACHE_TTL": "-1s"},
	}
	for setting, env := range cases {
		t.Run(setting, func(t *testing.T) {
			_, err := Load(envOf(env))
			if err == nil || !strings.Contains(err.Error(), setting) {
				t.Fatalf("error %v does not name %s", err, setting)
			}
		})
	}
	if _, err := Load(envOf(map[string]string{"PERGOLA_CACHE_TTL": "soon"})); err == nil || !strings.Contains(err.Error(), "such as 10s") {
		t.Fatalf("a TTL that is not a duration: %v; want the error to show one", err)
	}
}
