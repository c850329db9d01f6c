package config

import (
	"fmt"
	"strings"
	"time"
)

// Triggers are the settings of the trigger dispatcher.
type Triggers struct {
	// Poll is how often each process looks for due schedule ticks.
	Poll time.Duration `yaml:"trigger_poll"`
	// MinInterval is the shortest interval of a schedule (a minute; tests
	// allow seconds).
	MinInterval time.Duration `yaml:"trigger_min_interval"`
}

// DefaultTriggers polls every second, with intervals of a minute at least.
func DefaultTriggers() Triggers { return Triggers{Poll: time.Second, MinInterval: time.Minute} }

func applyTriggersEnv(t *Triggers, env Lookup) error {
	for key, dst := range map[string]*time.Duration{"PERGOLA_TRIGGER_POLL": &t.Poll,
		"PERGOLA_TRIGGER_MIN_INTERVAL": &t.MinInterval} {
		if v, ok := env(key); ok {
			d, err := time.ParseDuration(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("%s: must be a duration such as 1s, got %q", key, v)
			}
			*dst = d
		}
	}
	return nil
}

func (t Triggers) validate() error {
	if t.Poll < 10*time.Millisecond || t.Poll > time.Minute {
		return fmt.Errorf("PERGOLA_TRIGGER_POLL: must be 10ms to 1m, got %s", t.Poll)
	}
	if t.MinInterval < 100*time.Millisecond {
		return fmt.Errorf("PERGOLA_TRIGGER_MIN_INTERVAL: must be at least 100ms, got %s", t.MinInterval)
	}
	return nil
}
