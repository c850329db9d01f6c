package telegram

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/egress"
)

func TestCheckCredentialsAcceptsAWorkingToken(t *testing.T) {
	r := newRig(t)
	if err := r.kind.CheckCredentials(context.Background(), r.ch); err != nil {
		t.Fatal(err)
	}
	if got := r.fake.Calls(); len(got) != 1 || got[0] != "getMe" {
		t.Fatalf("calls = %v, want [getMe]", got)
	}
}

func TestCheckCredentialsNamesARefusedToken(t *testing.T) {
	r := newRig(t)
	r.ch.Settings["bot_token"] = "999:wrong"
	err := r.kind.CheckCredentials(context.Background(), r.ch)
	var fe *errs.FieldError
	if !errors.As(err, &fe) || fe.Field != "settings.bot_token" || !strings.Contains(fe.Reason, "Unauthorized") {
		t.Fatalf("err = %v, want a settings.bot_token error quoting Telegram's Unauthorized", err)
	}
	if strings.Contains(err.Error(), "999:wrong") {
		t.Fatalf("the error shows the token: %v", err)
	}
}

func TestRegisterWebhookSendsTheURLAndSecretToken(t *testing.T) {
	r := newRig(t)
	url := "https://pergola.example.com/channels/telegram/7"
	if err := r.kind.RegisterWebhook(context.Background(), r.ch, url); err != nil {
		t.Fatal(err)
	}
	hook := r.fake.Webhook()
	if hook.URL != url || hook.SecretToken != testSecret || len(hook.AllowedUpdates) != 1 || hook.AllowedUpdates[0] != "message" {
		t.Fatalf("webhook = %+v", hook)
	}
}

func TestRegisterWebhookReportsTelegramsRefusal(t *testing.T) {
	r := newRig(t)
	err := r.kind.RegisterWebhook(context.Background(), r.ch, "http://insecure.example.com/hook")
	if !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), "HTTPS URL must be provided") {
		t.Fatalf("err = %v", err)
	}
}

func TestValidateWantsATokenShapedLikeBotFathers(t *testing.T) {
	k := New(nil)
	for _, bad := range []string{"", "abc", "123:has space", ":AAH"} {
		var fe *errs.FieldError
		if err := k.Validate(channel.Settings{"bot_token": bad}); !errors.As(err, &fe) || fe.Field != "settings.bot_token" {
			t.Fatalf("Validate(%q) = %v", bad, err)
		}
	}
	if err := k.Validate(channel.Settings{"bot_token": testToken}); err != nil {
		t.Fatal(err)
	}
}

func TestCheckCredentialsNamesAnAPIBaseTheGuardRefuses(t *testing.T) {
	r := newRig(t)
	guard, err := egress.New(egress.Config{})
	if err != nil {
		t.Fatal(err)
	}
	err = New(guard.Client()).CheckCredentials(context.Background(), r.ch)
	var fe *errs.FieldError
	if !errors.As(err, &fe) || fe.Field != "settings.api_base_url" || !strings.Contains(fe.Reason, "loopback") {
		t.Fatalf("err = %v, want settings.api_base_url saying the loopback address is refused", err)
	}
}
