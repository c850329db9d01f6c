package config

import (
	"fmt"
	"strconv"
	"strings"
)

// Metrics bounds the labels of the per-workspace, per-bot, per-workflow
// and per-tool Prometheus series: the first N distinct values seen keep
// their own label, later ones share "other".
type Metrics struct {
	MaxWorkspaces int `yaml:"metrics_max_workspaces"`
	MaxBots       int `yaml:"metrics_max_bots"`
	MaxWorkflows  int `yaml:"metrics_max_workflows"`
	MaxTools      int `yaml:"metrics_max_tools"` // distinct (plugin, tool) pairs
	// Bots, when set, lists the only bot ids with series of their own.
	Bots []string `yaml:"metrics_bots"`
}

// DefaultMetrics returns the default bounds.
func DefaultMetrics() Metrics {
	return Metrics{MaxWorkspaces: 100, MaxBots: 100, MaxWorkflows: 100, MaxTools: 200}
}

// maxMetricLabels bounds every PERGOLA_METRICS_MAX_*.
const maxMetricLabels = 10_000

func applyMetricsEnv(m *Metrics, env Lookup) error {
	ints := map[string]*int{"PERGOLA_METRICS_MAX_WORKSPACES": &m.MaxWorkspaces, "PERGOLA_METRICS_MAX_BOTS": &m.MaxBots,
		"PERGOLA_METRICS_MAX_WORKFLOWS": &m.MaxWorkflows, "PERGOLA_METRICS_MAX_TOOLS": &m.MaxTools}
	for key, dst := range ints {
		if v, ok := env(key); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("%s: must be an integer, got %q", key, v)
			}
			*dst = n
		}
	}
	if v, ok := env("PERGOLA_METRICS_BOTS"); ok {
		m.Bots = splitList(v)
	}
	return nil
}

func (m Metrics) validate() error {
	for key, n := range map[string]int{"PERGOLA_METRICS_MAX_WORKSPACES": m.MaxWorkspaces, "PERGOLA_METRICS_MAX_BOTS": m.MaxBots,
		"PERGOLA_METRICS_MAX_WORKFLOWS": m.MaxWorkflows, "PERGOLA_METRICS_MAX_TOOLS": m.MaxTools} {
		if n < 0 || n > maxMetricLabels {
			return fmt.Errorf("%s: must be between 0 (all \"other\") and %d label values, got %d", key, maxMetricLabels, n)
		}
	}
	for _, id := range m.Bots {
		if n, err := strconv.ParseInt(id, 10, 64); err != nil || n <= 0 {
			return fmt.Errorf("PERGOLA_METRICS_BOTS: must be bot ids separated by commas, got %q", id)
		}
	}
	return nil
}
