package config

import (
	"strings"
	"testing"
	"time"
)

// TestCodeDemoteAfter: long code is demoted after 200ms by default, 0
// turns it off, and a bad value names the setting and what it takes.
func TestCodeDemoteAfter(t *testing.T) {
	for env, want := range map[string]time.Duration{"": 200 * time.Millisecond, "0": 0, "1s": time.Second} {
		m := map[string]string{}
		if env != "" {
			m["PERGOLA_CODE_DEMOTE_AFTER"] = env
		}
		cfg, err := Load(envOf(m))
		if err != nil || cfg.Shares.CodeDemoteAfter != want {
			t.Errorf("PERGOLA_CODE_DEMOTE_AFTER=%q: got %s (%v), want %s", env, cfg.Shares.CodeDemoteAfter, err, want)
		}
	}
	for _, bad := range []string{"soon", "-1s", "11m"} {
		_, err := Load(envOf(map[string]string{"PERGOLA_CODE_DEMOTE_AFTER": bad}))
		if err == nil || !strings.Contains(err.Error(), "PERGOLA_CODE_DEMOTE_AFTER: must be") || !strings.Contains(err.Error(), "200ms") {
			t.Errorf("PERGOLA_CODE_DEMOTE_AFTER=%q: error %v does not say what to set", bad, err)
		}
	}
}
