package line

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/egress"
)

// kindClient is the egress client allowing loopback.
func (r *rig) kindClient(t *testing.T) *http.Client {
	t.Helper()
	guard, err := egress.New(egress.Config{Allow: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	return guard.Client()
}

func TestCheckCredentialsAsksBotInfo(t *testing.T) {
	r := newRig(t)
	if err := r.kind.CheckCredentials(context.Background(), r.ch); err != nil {
		t.Fatal(err)
	}
	r.ch.Settings["channel_access_token"] = "wrong"
	err := r.kind.CheckCredentials(context.Background(), r.ch)
	var fe *errs.FieldError
	if !errors.As(err, &fe) || fe.Field != "settings.channel_access_token" || !strings.Contains(fe.Reason, "Authentication failed") {
		t.Fatalf("wrong token: err = %v; want a field error on channel_access_token with LINE's words", err)
	}
	if calls := r.fake.Calls(); calls[0] != "GET /v2/bot/info" {
		t.Fatalf("calls %v", calls)
	}
}

func TestCheckCredentialsRefusesAnAddressTheGuardRefuses(t *testing.T) {
	guard, err := egress.New(egress.Config{})
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t)
	err = New(guard.Client()).CheckCredentials(context.Background(), r.ch)
	var fe *errs.FieldError
	if !errors.As(err, &fe) || fe.Field != "settings.api_base_url" {
		t.Fatalf("loopback without allowance: err = %v; want a field error on api_base_url", err)
	}
}

func TestRegisterWebhookSetsTheEndpoint(t *testing.T) {
	r := newRig(t)
	if err := r.kind.RegisterWebhook(context.Background(), r.ch, "https://bots.example.com/channels/line/9"); err != nil {
		t.Fatal(err)
	}
	if got := r.fake.Webhook(); got != "https://bots.example.com/channels/line/9" {
		t.Fatalf("webhook = %q", got)
	}
	err := r.kind.RegisterWebhook(context.Background(), r.ch, "http://insecure.example.com/channels/line/9")
	if !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), "Invalid webhook endpoint URL") {
		t.Fatalf("http endpoint: err = %v; want ErrInvalid with LINE's words", err)
	}
}

func TestPlainRemovesMarkdown(t *testing.T) {
	cases := map[string]string{
		"# Title\n**bold** and *it* and _it_ and ~~gone~~":    "Title\nbold and it and it and gone",
		"see [the docs](https://x.io/a) or https://y.io":      "see the docs (https://x.io/a) or https://y.io",
		"- one\n* two\n> quoted":                              "• one\n• two\nquoted",
		"```go\nfmt.Println(a_b)\n```\nuse `snake_case_name`": "fmt.Println(a_b)\nuse snake_case_name",
		"![chart](https://x.io/c.png)":                        "https://x.io/c.png",
	}
	for in, want := range cases {
		if got := Plain(in); got != want {
			t.Errorf("Plain(%q) = %q, want %q", in, got, want)
		}
	}
}
