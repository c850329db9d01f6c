package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ChannelRetries says how a channel event is tried again when its turn
// or its send fails. A turn that failed because the model was
// unavailable is tried up to TurnAttempts times, TurnBackoff apart
// (doubling), before the end user gets the apology; a send the platform
// refused for a while (unreachable, 5xx, 429) is tried up to
// SendAttempts times, SendBackoff apart (doubling, at most 30s; the
// platform's Retry-After wins). No try is planned once the event would
// be older than RetryWindow, counted from its receipt.
type ChannelRetries struct {
	TurnAttempts int           `yaml:"channel_turn_attempts"`
	TurnBackoff  time.Duration `yaml:"channel_turn_backoff"`
	SendAttempts int           `yaml:"channel_send_attempts"`
	SendBackoff  time.Duration `yaml:"channel_send_backoff"`
	RetryWindow  time.Duration `yaml:"channel_retry_window"`
}

// DefaultChannelRetries returns the default retries of channel events.
func DefaultChannelRetries() ChannelRetries {
	return ChannelRetries{TurnAttempts: 3, TurnBackoff: 3 * time.Second, SendAttempts: 5, SendBackoff: time.Second,
		RetryWindow: 2 * time.Minute}
}

func applyChannelRetriesEnv(c *ChannelRetries, env Lookup) error {
	ints := map[string]*int{"PERGOLA_CHANNEL_TURN_ATTEMPTS": &c.TurnAttempts, "PERGOLA_CHANNEL_SEND_ATTEMPTS": &c.SendAttempts}
	for key, dst := range ints {
		if v, ok := env(key); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("%s: must be an integer, got %q", key, v)
			}
			*dst = n
		}
	}
	durations := map[string]*time.Duration{"PERGOLA_CHANNEL_TURN_BACKOFF": &c.TurnBackoff,
		"PERGOLA_CHANNEL_SEND_BACKOFF": &c.SendBackoff, "PERGOLA_CHANNEL_RETRY_WINDOW": &c.RetryWindow}
	for key, dst := range durations {
		if v, ok := env(key); ok {
			d, err := time.ParseDuration(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("%s: must be a duration such as 2s, got %q", key, v)
			}
			*dst = d
		}
	}
	return nil
}

func (c ChannelRetries) validate() error {
	switch {
	case c.TurnAttempts < 1 || c.TurnAttempts > 10:
		return fmt.Errorf("PERGOLA_CHANNEL_TURN_ATTEMPTS: must be 1 (no retry) to 10 chat turns per event, got %d", c.TurnAttempts)
	case c.SendAttempts < 1 || c.SendAttempts > 20:
		return fmt.Errorf("PERGOLA_CHANNEL_SEND_ATTEMPTS: must be 1 (no retry) to 20 sends per answer, got %d", c.SendAttempts)
	case c.TurnBackoff < 10*time.Millisecond || c.TurnBackoff > time.Minute:
		return fmt.Errorf("PERGOLA_CHANNEL_TURN_BACKOFF: must be between 10ms and 1m, got %s", c.TurnBackoff)
	case c.SendBackoff < 10*time.Millisecond || c.SendBackoff > 30*time.Second:
		return fmt.Errorf("PERGOLA_CHANNEL_SEND_BACKOFF: must be between 10ms and 30s, got %s", c.SendBackoff)
	case c.RetryWindow < 100*time.Millisecond || c.RetryWindow > time.Hour:
		return fmt.Errorf("PERGOLA_CHANNEL_RETRY_WINDOW: must be between 100ms and 1h, got %s", c.RetryWindow)
	}
	return nil
}
