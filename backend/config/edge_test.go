package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestEdgeDefaultsAndOverrides(t *testing.T) {
	cfg, err := Load(envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg.Edge, DefaultEdge()) || cfg.Edge.ReadHeaderTimeout != 10*time.Second || cfg.Edge.MaxHeaderBytes != 64<<10 || cfg.Edge.AuthFailures != 30 {
		t.Fatalf("edge defaults: %+v", cfg.Edge)
	}
	path := filepath.Join(t.TempDir(), "pergola.yaml")
	if err := os.WriteFile(path, []byte("read_header_timeout: 3s\nmax_header_bytes: 8192\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err = Load(envOf(map[string]string{"PERGOLA_CONFIG_FILE": path, "PERGOLA_IDLE_TIMEOUT": "2m",
		"PERGOLA_READ_TIMEOUT": "30s", "PERGOLA_AUTH_FAILURES_PER_MIN": "0", "PERGOLA_TRUSTED_PROXIES": "10.0.0.0/8,192.0.2.1"}))
	if err != nil {
		t.Fatal(err)
	}
	want := Edge{ReadHeaderTimeout: 3 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 8192,
		TrustedProxies: []string{"10.0.0.0/8", "192.0.2.1"}}
	if !reflect.DeepEqual(cfg.Edge, want) {
		t.Fatalf("edge %+v, want %+v", cfg.Edge, want)
	}
}

func TestBadEdgeSettingsNameTheSetting(t *testing.T) {
	cases := map[string]map[string]string{
		"PERGOLA_READ_HEADER_TIMEOUT":   {"PERGOLA_READ_HEADER_TIMEOUT": "0s"},
		"PERGOLA_READ_HEADER_TIMEOUT:":  {"PERGOLA_READ_HEADER_TIMEOUT": "ten"},
		"PERGOLA_READ_TIMEOUT":          {"PERGOLA_READ_TIMEOUT": "5s"},
		"PERGOLA_IDLE_TIMEOUT":          {"PERGOLA_IDLE_TIMEOUT": "-1s"},
		"PERGOLA_MAX_HEADER_BYTES":      {"PERGOLA_MAX_HEADER_BYTES": "100"},
		"PERGOLA_MAX_HEADER_BYTES:":     {"PERGOLA_MAX_HEADER_BYTES": "big"},
		"PERGOLA_AUTH_FAILURES_PER_MIN": {"PERGOLA_AUTH_FAILURES_PER_MIN": "-1"},
		"PERGOLA_TRUSTED_PROXIES":       {"PERGOLA_TRUSTED_PROXIES": "10.0.0.0/8,proxy.local"},
	}
	for name, env := range cases {
		_, err := Load(envOf(env))
		if err == nil || !strings.HasPrefix(err.Error(), strings.TrimSuffix(name, ":")+":") {
			t.Errorf("%v: error %v, want one naming the setting", env, err)
		}
	}
}
