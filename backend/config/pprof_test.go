package config

import (
	"strings"
	"testing"
)

// TestPprofAddr keeps the profiling listener off by default and on the
// loopback interface when asked for.
func TestPprofAddr(t *testing.T) {
	cfg, err := Load(envOf(map[string]string{}))
	if err != nil || cfg.PprofAddr != "" {
		t.Fatalf("default: %q, %v; want no listener", cfg.PprofAddr, err)
	}
	for _, ok := range []string{"127.0.0.1:6060", "localhost:0", "[::1]:6060"} {
		cfg, err := Load(envOf(map[string]string{"PERGOLA_PPROF_ADDR": ok}))
		if err != nil || cfg.PprofAddr != ok {
			t.Errorf("%q: %q, %v", ok, cfg.PprofAddr, err)
		}
	}
	for _, bad := range []string{":6060", "0.0.0.0:6060", "10.0.0.1:6060", "6060", "example.com:6060"} {
		_, err := Load(envOf(map[string]string{"PERGOLA_PPROF_ADDR": bad}))
		if err == nil || !strings.Contains(err.Error(), "PERGOLA_PPROF_ADDR") {
			t.Errorf("%q: error %v, want one naming PERGOLA_PPROF_ADDR", bad, err)
		}
	}
}
