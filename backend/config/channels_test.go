package config

import (
	"strings"
	"testing"
	"time"
)

func TestChannelRetrySettings(t *testing.T) {
	if d := Defaults().ChannelRetries; d.TurnAttempts != 3 || d.SendAttempts != 5 || d.RetryWindow != 2*time.Minute {
		t.Fatalf("defaults = %+v", d)
	}
	cfg, err := Load(envOf(map[string]string{"PERGOLA_CHANNEL_TURN_ATTEMPTS": "2", "PERGOLA_CHANNEL_TURN_BACKOFF": "50ms",
		"PERGOLA_CHANNEL_SEND_ATTEMPTS": "7", "PERGOLA_CHANNEL_SEND_BACKOFF": "20ms", "PERGOLA_CHANNEL_RETRY_WINDOW": "10s"}))
	if err != nil {
		t.Fatal(err)
	}
	want := ChannelRetries{TurnAttempts: 2, TurnBackoff: 50 * time.Millisecond, SendAttempts: 7, SendBackoff: 20 * time.Millisecond,
		RetryWindow: 10 * time.Second}
	if cfg.ChannelRetries != want {
		t.Fatalf("channel retries = %+v, want %+v", cfg.ChannelRetries, want)
	}
	for key, value := range map[string]string{"PERGOLA_CHANNEL_TURN_ATTEMPTS": "0", "PERGOLA_CHANNEL_SEND_ATTEMPTS": "21",
		"PERGOLA_CHANNEL_TURN_BACKOFF": "soon", "PERGOLA_CHANNEL_SEND_BACKOFF": "1ms", "PERGOLA_CHANNEL_RETRY_WINDOW": "2h"} {
		_, err := Load(envOf(map[string]string{key: value}))
		if err == nil || !strings.HasPrefix(err.Error(), key+":") {
			t.Errorf("%s=%s: error %v, want one naming the setting", key, value, err)
		}
	}
}
