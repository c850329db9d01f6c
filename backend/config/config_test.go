package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func envOf(m map[string]string) Lookup {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestLoadDefaults(t *testing.T) {
	cfg, err := Load(envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != ":8888" || cfg.DataDir != "./data" || cfg.DBDSN != "" || cfg.RedisAddr != "" {
		t.Fatalf("unexpected defaults: %+v", cfg)
	}
}

func TestLoadEnvOverridesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pergola.yaml")
	if err := os.WriteFile(path, []byte("addr: \":9000\"\ndata_dir: /tmp/x\negress_allow: [10.0.0.0/8]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(envOf(map[string]string{"PERGOLA_CONFIG_FILE": path, "PERGOLA_ADDR": "127.0.0.1:7000"}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != "127.0.0.1:7000" || cfg.DataDir != "/tmp/x" || len(cfg.EgressAllow) != 1 {
		t.Fatalf("got %+v", cfg)
	}
}

func TestBadSettingsNameTheSetting(t *testing.T) {
	cases := map[string]map[string]string{
		"PERGOLA_ADDR":             {"PERGOLA_ADDR": "8888"},
		"PERGOLA_REDIS_ADDR":       {"PERGOLA_REDIS_ADDR": "localhost"},
		"PERGOLA_REDIS_PREFIX":     {"PERGOLA_REDIS_PREFIX": "pergola"},
		"PERGOLA_REDIS_DB":         {"PERGOLA_REDIS_DB": "-1"},
		"PERGOLA_SECRET_KEY":       {"PERGOLA_DB_DSN": "root@tcp(127.0.0.1:3306)/pergola"},
		"PERGOLA_EGRESS_ALLOW":     {"PERGOLA_EGRESS_ALLOW": "10.0.0.0/99"},
		"PERGOLA_LOG_LEVEL":        {"PERGOLA_LOG_LEVEL": "loud"},
		"PERGOLA_MAX_BODY_BYTES":   {"PERGOLA_MAX_BODY_BYTES": "lots"},
		"PERGOLA_RATE_LIMIT":       {"PERGOLA_RATE_LIMIT": "-1"},
		"PERGOLA_CODE_PARALLEL":    {"PERGOLA_CODE_PARALLEL": "-2"},
		"PERGOLA_CODE_SANDBOX":     {"PERGOLA_CODE_SANDBOX": "docker"},
		"PERGOLA_BOOTSTRAP_TOKEN":  {"PERGOLA_BOOTSTRAP_TOKEN": "x"},
		"PERGOLA_CONFIG_FILE":      {"PERGOLA_CONFIG_FILE": "/nonexistent/pergola.yaml"},
		"PERGOLA_TRACES_RETENTION": {"PERGOLA_TRACES_RETENTION": "10m"},
		"PERGOLA_FAIR_SHARE":       {"PERGOLA_FAIR_SHARE": "1.5"},
		"PERGOLA_MODEL_PARALLEL":   {"PERGOLA_MODEL_PARALLEL": "-1"},
		"PERGOLA_MODEL_WAIT":       {"PERGOLA_MODEL_WAIT": "soon"},
		"PERGOLA_CODE_NICE":        {"PERGOLA_CODE_NICE": "20"},
		"PERGOLA_PYTHON_WARM_MAX":  {"PERGOLA_PYTHON_WARM": "4", "PERGOLA_PYTHON_WARM_MAX": "3"},
		"PERGOLA_MAX_HANDOFFS":     {"PERGOLA_MAX_HANDOFFS": "0"},
	}
	for setting, env := range cases {
		t.Run(setting, func(t *testing.T) {
			_, err := Load(envOf(env))
			if err == nil || !strings.Contains(err.Error(), setting) {
				t.Fatalf("error %v does not name %s", err, setting)
			}
		})
	}
}

func TestRedactedHidesSecrets(t *testing.T) {
	cfg := Defaults()
	cfg.DBDSN = "pergola:hunter2@tcp(db:3306)/pergola"
	cfg.SecretKey = "k3y"
	cfg.BootstrapToken = "pat_secret"
	var b strings.Builder
	for _, a := range cfg.Redacted() {
		b.WriteString(toString(a) + " ")
	}
	joined := b.String()
	for _, secret := range []string{"hunter2", "k3y", "pat_secret"} {
		if strings.Contains(joined, secret) {
			t.Fatalf("redacted config leaks %q: %s", secret, joined)
		}
	}
	if !strings.Contains(joined, "pergola:[redacted]@tcp(db:3306)/pergola") {
		t.Fatalf("DSN not shown redacted: %s", joined)
	}
}

func toString(a any) string {
	switch v := a.(type) {
	case string:
		return v
	case []string:
		return strings.Join(v, ",")
	}
	return ""
}

func TestLoadModels(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "models.yaml")
	_ = os.WriteFile(good, []byte(`models:
  - id: gpt-4o-mini
    name: GPT-4o mini
    provider: openai
    base_url: https://api.openai.com/v1
    api_key_env: OPENAI_API_KEY
    model: gpt-4o-mini
    capabilities: {tools: true, vision: false, json: true}
    context_window: 128000
`), 0o600)
	ms, err := LoadModels(good, envOf(map[string]string{"OPENAI_API_KEY": "sk-test"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || ms[0].APIKey != "sk-test" || !ms[0].Capabilities.Tools || ms[0].ContextWindow != 128000 || ms[0].Source != "file" {
		t.Fatalf("got %+v", ms)
	}
	if _, err := LoadModels(good, envOf(nil)); err == nil || !strings.Contains(err.Error(), "models[0].api_key_env") {
		t.Fatalf("missing env var not reported by field: %v", err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	_ = os.WriteFile(bad, []byte("models:\n  - id: a\n    provider: openai\n    model: x\n  - id: b\n    provider: claude-ish\n    model: y\n"), 0o600)
	if _, err := LoadModels(bad, envOf(nil)); err == nil || !strings.Contains(err.Error(), "models[1].provider") {
		t.Fatalf("bad provider not reported by field: %v", err)
	}
}

// TestRedisPrefixAndDB checks the defaults a deployment shares Redis with,
// that both settings are read, and which prefixes are refused.
func TestRedisPrefixAndDB(t *testing.T) {
	cfg, err := Load(envOf(nil))
	if err != nil || cfg.RedisPrefix != "pergola:" || cfg.RedisDB != 0 {
		t.Fatalf("defaults: prefix %q db %d, %v; want pergola: and 0", cfg.RedisPrefix, cfg.RedisDB, err)
	}
	cfg, err = Load(envOf(map[string]string{"PERGOLA_REDIS_PREFIX": "acme:staging:", "PERGOLA_REDIS_DB": "3"}))
	if err != nil || cfg.RedisPrefix != "acme:staging:" || cfg.RedisDB != 3 {
		t.Fatalf("got prefix %q db %d, %v", cfg.RedisPrefix, cfg.RedisDB, err)
	}
	for _, bad := range []string{"", ":x", "pergola", "per gola:", "pergola*:", "a[b]:"} {
		_, err := Load(envOf(map[string]string{"PERGOLA_REDIS_PREFIX": bad}))
		if err == nil || !strings.Contains(err.Error(), "PERGOLA_REDIS_PREFIX") {
			t.Errorf("prefix %q: error %v; want one naming PERGOLA_REDIS_PREFIX", bad, err)
		}
	}
}
