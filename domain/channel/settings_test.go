package channel

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/errs"
)

func mustSpec(t *testing.T, k Kind) Spec {
	t.Helper()
	s, ok := SpecOf(k)
	if !ok {
		t.Fatalf("no spec for %s", k)
	}
	return s
}

func TestCheckFillsDefaultsAndTrims(t *testing.T) {
	got, err := mustSpec(t, KindLINE).Check(map[string]any{"channel_secret": "  sec  ", "channel_access_token": "tok"})
	if err != nil {
		t.Fatal(err)
	}
	want := Settings{"channel_secret": "sec", "channel_access_token": "tok", "api_base_url": LINEAPI}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestCheckRefuses(t *testing.T) {
	cases := []struct {
		name  string
		kind  Kind
		in    map[string]any
		field string
		text  string
	}{
		{"unknown", KindSlack, map[string]any{"token": "x"}, "settings.token", "use bot_token, signing_secret, api_base_url"},
		{"missing", KindSlack, map[string]any{"bot_token": "x"}, "settings.signing_secret", "is required for slack channels"},
		{"blank is missing", KindSlack, map[string]any{"bot_token": "x", "signing_secret": "  "}, "settings.signing_secret", "is required"},
		{"url scheme", KindLINE, map[string]any{"channel_secret": "a", "channel_access_token": "b", "api_base_url": "javascript:alert(1)"}, "settings.api_base_url", "absolute http(s) URL"},
		{"url credentials", KindWebhook, map[string]any{"secret": strings.Repeat("s", 16), "callback_url": "https://u:p@x.io"}, "settings.callback_url", "absolute http(s) URL"},
		{"too long", KindFeishu, map[string]any{"app_id": strings.Repeat("a", 2001)}, "settings.app_id", "at most 2000"},
		{"origins type", KindWeb, map[string]any{"allowed_origins": "https://a.io"}, "settings.allowed_origins", "must be a list"},
		{"origin with path", KindWeb, map[string]any{"allowed_origins": []any{"https://a.io", "https://b.io/x"}}, "settings.allowed_origins[1]", "no path"},
		{"masked new secret", KindSlack, map[string]any{"bot_token": MaskPrefix + "abcd", "signing_secret": "s"}, "settings.bot_token", "masked value"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := mustSpec(t, tc.kind).Check(tc.in)
			var fe *errs.FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(fe.Reason, tc.text) {
				t.Errorf("error = %v, want %s mentioning %q", err, tc.field, tc.text)
			}
		})
	}
}

func TestMergeKeepsSecretsAndRemovesOptional(t *testing.T) {
	spec := mustSpec(t, KindFeishu)
	stored := Settings{"app_id": "cli", "app_secret": "old-secret-value-1234", "verification_token": "vt", "encrypt_key": "ek", "api_base_url": "http://fake"}
	got, err := spec.Merge(stored, map[string]any{"app_secret": spec.Mask(stored)["app_secret"], "encrypt_key": nil, "api_base_url": nil})
	if err != nil {
		t.Fatal(err)
	}
	want := Settings{"app_id": "cli", "app_secret": "old-secret-value-1234", "verification_token": "vt", "api_base_url": FeishuAPI}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if stored["encrypt_key"] != "ek" {
		t.Error("Merge changed the stored settings")
	}
}

func TestMask(t *testing.T) {
	spec := mustSpec(t, KindTelegram)
	got := spec.Mask(Settings{"bot_token": "123456:ABCDEFGHIJ-wxyz", "secret_token": "short", "api_base_url": TelegramAPI})
	want := Settings{"bot_token": MaskPrefix + "wxyz", "secret_token": MaskPrefix, "api_base_url": TelegramAPI}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestEveryKindHasASpec(t *testing.T) {
	for _, k := range Kinds() {
		s := mustSpec(t, k)
		if len(s.Fields) == 0 {
			t.Errorf("%s has no settings", k)
		}
	}
	if _, ok := SpecOf("irc"); ok {
		t.Error("irc has a spec")
	}
	if got := KindNames(); got != "discord, feishu, lark, line, slack, telegram, web, webhook" {
		t.Errorf("KindNames = %q", got)
	}
}
