package channel

import (
	"errors"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

func TestUpstreamErrorMasksSecretsAndCuts(t *testing.T) {
	c := &channel.Channel{Kind: channel.KindTelegram, Settings: channel.Settings{"bot_token": "123:SECRET-token", "secret_token": "hook-secret"}}
	echo := errs.Invalid("settings.bot_token", "telegram getMe: token 123:SECRET-token refused; %s", strings.Repeat("<html>", 500))
	err := upstreamError(echo, c)
	if strings.Contains(err.Error(), "SECRET") || !strings.Contains(err.Error(), "[the channel's bot_token]") {
		t.Fatalf("the secret is not masked: %v", err)
	}
	if n := len([]rune(err.Error())); n > maxUpstreamError+1 {
		t.Fatalf("the error is %d characters long", n)
	}
	var fe *errs.FieldError
	if !errors.Is(err, errs.ErrInvalid) || !errors.As(err, &fe) || fe.Field != "settings.bot_token" {
		t.Fatalf("the error lost its kind: %#v", err)
	}
	if upstreamError(nil, c) != nil {
		t.Fatal("nil became an error")
	}
	plain := errs.Unauthenticated("telegram getMe: Unauthorized")
	if upstreamError(plain, c) != plain {
		t.Fatal("a clean error was wrapped")
	}
}
