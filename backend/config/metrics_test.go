package config

import (
	"fmt"
	"strings"
	"testing"
)

func TestMetricsBounds(t *testing.T) {
	cfg, err := Load(envOf(map[string]string{"PERGOLA_METRICS_MAX_BOTS": "5", "PERGOLA_METRICS_BOTS": "7, 9"}))
	if err != nil {
		t.Fatal(err)
	}
	if m := cfg.Metrics; m.MaxBots != 5 || m.MaxWorkspaces != 100 || m.MaxTools != 200 || fmt.Sprint(m.Bots) != "[7 9]" {
		t.Fatalf("metrics settings = %+v", m)
	}
	for env, want := range map[string]string{
		"PERGOLA_METRICS_MAX_BOTS=-1":        "PERGOLA_METRICS_MAX_BOTS: must be between 0",
		"PERGOLA_METRICS_MAX_TOOLS=1000000":  "PERGOLA_METRICS_MAX_TOOLS: must be between 0",
		"PERGOLA_METRICS_MAX_WORKFLOWS=many": "PERGOLA_METRICS_MAX_WORKFLOWS: must be an integer",
		"PERGOLA_METRICS_BOTS=12,bot-a":      `PERGOLA_METRICS_BOTS: must be bot ids separated by commas, got "bot-a"`,
		"PERGOLA_METRICS_MAX_WORKSPACES=-5":  "PERGOLA_METRICS_MAX_WORKSPACES: must be between 0",
	} {
		k, v, _ := strings.Cut(env, "=")
		if _, err := Load(envOf(map[string]string{k: v})); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", env, err, want)
		}
	}
}
