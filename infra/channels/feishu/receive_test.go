package feishu

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/feishu/feishufake"
)

func p2p(id, text string) feishufake.Message {
	return feishufake.Message{EventID: id, SenderOpenID: "ou_ann", MessageID: "om_" + id, ChatID: "oc_ann", ChatType: "p2p", Text: text}
}

func TestReceiveVerifiesEncryptedRequests(t *testing.T) {
	r := newRig(t, true)
	event := r.sub.MessageEvent(testAppID, p2p("ev1", "hello"))
	forged, forgedHeaders := r.sub.Wire(event, "not-the-encrypt-key")
	cases := []struct {
		name string
		in   func() ([]byte, map[string]string)
		want string // "" accepted
	}{
		{"signed now", func() ([]byte, map[string]string) { return r.sub.Wire(event, testKey) }, ""},
		{"forged signature", func() ([]byte, map[string]string) { return forged, forgedHeaders }, "does not match"},
		{"unsigned event", func() ([]byte, map[string]string) { return feishufake.Encrypt(testKey, event), nil }, "missing the X-Lark-Signature"},
		{"encrypted with another key", func() ([]byte, map[string]string) {
			other := feishufake.Subscription{VerificationToken: testToken, EncryptKey: "another-key"}
			body, h := other.Wire(event, "another-key")
			h[SignatureHeader] = feishufake.Sign(h[TimestampHeader], h[NonceHeader], testKey, body)
			return body, h
		}, "does not open"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body, h := tc.in()
			re, err := r.kind.Receive(context.Background(), r.ch, inbound(body, h))
			if tc.want == "" {
				if err != nil || len(re.Events) != 1 || re.Events[0].Text != "hello" {
					t.Fatalf("Receive = %+v, %v; want the event", re, err)
				}
				return
			}
			if !errors.Is(err, errs.ErrUnauthenticated) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Receive error = %v; want unauthenticated, %q", err, tc.want)
			}
		})
	}
}

func TestReceiveRefusesStaleSignatures(t *testing.T) {
	r := newRig(t, true)
	event := r.sub.MessageEvent(testAppID, p2p("ev1", "hello"))
	_, err := r.kind.Receive(context.Background(), r.ch, signedAt(event, testKey, r.now.Add(-6*time.Minute)))
	if !errors.Is(err, errs.ErrUnauthenticated) || !strings.Contains(err.Error(), "stale") {
		t.Fatalf("a 6-minute-old signature: %v; want unauthenticated, stale", err)
	}
	if _, err := r.kind.Receive(context.Background(), r.ch, signedAt(event, testKey, r.now.Add(-4*time.Minute))); err != nil {
		t.Fatalf("a 4-minute-old signature: %v; want accepted", err)
	}
}

func TestReceiveChecksTheVerificationToken(t *testing.T) {
	for _, encrypted := range []bool{false, true} {
		r := newRig(t, encrypted)
		wrong := feishufake.Subscription{VerificationToken: "wrong-token", EncryptKey: r.sub.EncryptKey}
		body, h := wrong.Wire(wrong.MessageEvent(testAppID, p2p("ev1", "hi")), r.sub.EncryptKey)
		_, err := r.kind.Receive(context.Background(), r.ch, inbound(body, h))
		if !errors.Is(err, errs.ErrUnauthenticated) || !strings.Contains(err.Error(), "verification_token") {
			t.Fatalf("encrypted=%v: wrong token gave %v; want unauthenticated naming verification_token", encrypted, err)
		}
		body, h = wrong.Wire(wrong.Challenge("c1"), r.sub.EncryptKey)
		if _, err := r.kind.Receive(context.Background(), r.ch, inbound(body, h)); !errors.Is(err, errs.ErrUnauthenticated) {
			t.Fatalf("encrypted=%v: a challenge with the wrong token gave %v; want unauthenticated", encrypted, err)
		}
	}
}

func TestReceiveAnswersTheChallenge(t *testing.T) {
	r := newRig(t, false)
	re, err := r.kind.Receive(context.Background(), r.ch, inbound(r.sub.Challenge("chal-1"), nil))
	if err != nil || string(re.Body) != `{"challenge":"chal-1"}` || len(re.Events) != 0 {
		t.Fatalf("challenge = %+v %s, %v", re, re.Body, err)
	}
	enc := newRig(t, true)
	re, err = enc.kind.Receive(context.Background(), enc.ch, inbound(feishufake.Encrypt(testKey, enc.sub.Challenge("chal-2")), nil))
	if err != nil || string(re.Body) != `{"challenge":"chal-2"}` {
		t.Fatalf("encrypted, unsigned challenge = %s, %v; want answered", re.Body, err)
	}
}

func TestReceiveRefusesMalformedAndEncryptedWithoutKey(t *testing.T) {
	r := newRig(t, false)
	if _, err := r.kind.Receive(context.Background(), r.ch, inbound([]byte(`not json`), nil)); !errors.Is(err, errs.ErrInvalid) {
		t.Fatalf("not JSON: %v; want invalid", err)
	}
	if _, err := r.kind.Receive(context.Background(), r.ch, inbound([]byte(`{"hello":1}`), nil)); !errors.Is(err, errs.ErrInvalid) {
		t.Fatalf("no type or header: %v; want invalid", err)
	}
	body := feishufake.Encrypt(testKey, r.sub.Challenge("c"))
	if _, err := r.kind.Receive(context.Background(), r.ch, inbound(body, nil)); !errors.Is(err, errs.ErrUnauthenticated) || !strings.Contains(err.Error(), "encrypt_key") {
		t.Fatalf("encrypted body, no key: %v; want unauthenticated naming encrypt_key", err)
	}
}
