package feishu

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

func TestCheckCredentials(t *testing.T) {
	r := newRig(t, false)
	if err := r.kind.CheckCredentials(context.Background(), r.ch); err != nil {
		t.Fatal(err)
	}
	r.ch.Settings["app_secret"] = "wrong"
	err := r.kind.CheckCredentials(context.Background(), r.ch)
	if !errors.Is(err, errs.ErrInvalid) || !strings.HasPrefix(err.Error(), "settings.app_secret: ") || !strings.Contains(err.Error(), "code 10014: app secret invalid") {
		t.Fatalf("wrong secret: %v; want invalid naming settings.app_secret with the platform's words", err)
	}
	r.ch.Settings["api_base_url"] = "http://10.1.2.3" // private: refused by the guard
	if err := r.kind.CheckCredentials(context.Background(), r.ch); !errors.Is(err, errs.ErrInvalid) || !strings.HasPrefix(err.Error(), "settings.api_base_url: ") {
		t.Fatalf("a host the egress guard refuses: %v; want invalid naming settings.api_base_url", err)
	}
}

func TestTokensAreCachedAndRenewedBeforeExpiry(t *testing.T) {
	r := newRig(t, false)
	for range 3 {
		if _, err := r.kind.token(context.Background(), r.ch, false); err != nil {
			t.Fatal(err)
		}
	}
	r.now = r.now.Add(89 * time.Minute) // the fake's tokens last 2 h; renewed with 30 min left
	_, _ = r.kind.token(context.Background(), r.ch, false)
	if n := r.count(tokenPath); n != 1 {
		t.Fatalf("token fetched %d times within its lifetime; want once", n)
	}
	r.now = r.now.Add(2 * time.Minute)
	_, _ = r.kind.token(context.Background(), r.ch, false)
	if n := r.count(tokenPath); n != 2 {
		t.Fatalf("token fetched %d times; want renewed once 30 minutes remain", n)
	}
}

func TestValidateAndDefaults(t *testing.T) {
	k := New(nil)
	if err := k.Validate(channel.Settings{"app_id": "abc"}); !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), "settings.app_id") {
		t.Fatalf("app id without cli_: %v", err)
	}
	if b := base(&channel.Channel{Kind: channel.KindLark, Settings: channel.Settings{}}); b != channel.LarkAPI {
		t.Fatalf("lark default base %s", b)
	}
	if b := base(&channel.Channel{Kind: channel.KindFeishu, Settings: channel.Settings{"api_base_url": "http://x/"}}); b != "http://x" {
		t.Fatalf("base %s", b)
	}
}

func TestPlain(t *testing.T) {
	got := Plain("# Title\n- one\n- `two`\n```go\nx := 1\n```\n~~old~~ __new__")
	want := "Title\n• one\n• two\nx := 1\nold new"
	if got != want {
		t.Fatalf("Plain = %q; want %q", got, want)
	}
}
