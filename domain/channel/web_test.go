package channel

import (
	"errors"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/errs"
)

func TestWebSettingsDefaults(t *testing.T) {
	spec := mustSpec(t, KindWeb)
	cases := []struct {
		name      string
		in        map[string]any
		anonymous bool
		perMinute int
	}{
		{"nothing set", map[string]any{}, true, 20},
		{"a secret turns anonymous users off", map[string]any{"end_user_secret": strings.Repeat("k", 16)}, false, 20},
		{"unless allowed", map[string]any{"end_user_secret": strings.Repeat("k", 16), "allow_anonymous": "true"}, true, 20},
		{"off without a secret", map[string]any{"allow_anonymous": "false", "messages_per_minute": "3"}, false, 3},
		{"JSON boolean and number", map[string]any{"allow_anonymous": false, "messages_per_minute": float64(7)}, false, 7},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := spec.Check(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			w := (&Channel{Kind: KindWeb, Settings: s}).Web()
			if w.AllowAnonymous != tc.anonymous || w.MessagesPerMinute != tc.perMinute {
				t.Errorf("Web() = %+v; want anonymous %v, %d a minute", w, tc.anonymous, tc.perMinute)
			}
		})
	}
}

func TestWebSettingsRefused(t *testing.T) {
	spec := mustSpec(t, KindWeb)
	cases := []struct {
		in    map[string]any
		field string
		text  string
	}{
		{map[string]any{"allow_anonymous": "yes"}, "settings.allow_anonymous", `must be "true" or "false"`},
		{map[string]any{"messages_per_minute": "0"}, "settings.messages_per_minute", "from 1 to 600"},
		{map[string]any{"messages_per_minute": "ten"}, "settings.messages_per_minute", "whole number"},
		{map[string]any{"messages_per_minute": 2.5}, "settings.messages_per_minute", "must be a string"},
		{map[string]any{"allow_anonymous": []any{true}}, "settings.allow_anonymous", "must be a string"},
		{map[string]any{"end_user_secret": "short"}, "settings.end_user_secret", "at least 16"},
	}
	for _, tc := range cases {
		_, err := spec.Check(tc.in)
		var fe *errs.FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(fe.Reason, tc.text) {
			t.Errorf("Check(%v) = %v; want %s saying %q", tc.in, err, tc.field, tc.text)
		}
	}
}

func TestWebAllowsOrigin(t *testing.T) {
	w := WebSettings{AllowedOrigins: []string{"https://Shop.example.com"}}
	if !w.AllowsOrigin("https://shop.example.com") || w.AllowsOrigin("https://evil.example.com") || w.AllowsOrigin("") {
		t.Error("listed origins only")
	}
	if !(WebSettings{AllowedOrigins: []string{"*"}}).AllowsOrigin("http://localhost:3000") {
		t.Error("* allows any origin")
	}
}
