package webchat

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/pergola-ai/pergola/application/chat"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
)

const secret = "site-secret-0123456789abcdef"

type fixture struct {
	svc    *Service
	events *events
	chats  *chats
	lim    *limiter
	open   *channel.Channel // anonymous users, 2 messages a minute
	signed *channel.Channel // end_user_secret set
	now    time.Time
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{events: newEvents(), chats: &chats{}, lim: &limiter{}, now: time.Unix(1_800_000_000, 0)}
	f.open = &channel.Channel{ID: 7, BotID: 1, Kind: channel.KindWeb, Status: channel.StatusActive,
		Settings: channel.Settings{"messages_per_minute": "2"}}
	f.signed = &channel.Channel{ID: 8, BotID: 1, Kind: channel.KindWeb, Status: channel.StatusActive,
		Settings: channel.Settings{"end_user_secret": secret}}
	f.svc = New(Deps{Channels: channels{list: map[int64]*channel.Channel{7: f.open, 8: f.signed}}, Events: f.events,
		Bots: published{}, Chats: f.chats, Messages: nil, Limiter: f.lim, AnonKey: []byte("anon-key-0123456789abcdef012345"),
		Now: func() time.Time { return f.now }})
	return f
}

func (f *fixture) sign(t *testing.T, method jwt.SigningMethod, claims jwt.MapClaims) string {
	t.Helper()
	tok, err := jwt.NewWithClaims(method, claims).SignedString([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestIdentifySiteTokens(t *testing.T) {
	f := newFixture(t)
	exp := func(d time.Duration) int64 { return f.now.Add(d).Unix() }
	cases := []struct {
		name   string
		method jwt.SigningMethod
		claims jwt.MapClaims
		want   string // "" means accepted as web:bob
	}{
		{"an hour", jwt.SigningMethodHS256, jwt.MapClaims{"sub": "bob", "aud": "8", "exp": exp(time.Hour)}, ""},
		{"aud as a list", jwt.SigningMethodHS256, jwt.MapClaims{"sub": "bob", "aud": []string{"9", "8"}, "exp": exp(time.Hour)}, ""},
		{"24 hours, within the leeway", jwt.SigningMethodHS256, jwt.MapClaims{"sub": "bob", "aud": "8", "exp": exp(24*time.Hour + 30*time.Second)}, ""},
		{"expired within the leeway", jwt.SigningMethodHS256, jwt.MapClaims{"sub": "bob", "aud": "8", "exp": exp(-30 * time.Second)}, ""},
		{"25 hours", jwt.SigningMethodHS256, jwt.MapClaims{"sub": "bob", "aud": "8", "exp": exp(25 * time.Hour)}, "at most 24 hours"},
		{"expired", jwt.SigningMethodHS256, jwt.MapClaims{"sub": "bob", "aud": "8", "exp": exp(-2 * time.Minute)}, "expired"},
		{"issued in the future", jwt.SigningMethodHS256, jwt.MapClaims{"sub": "bob", "aud": "8", "exp": exp(time.Hour), "iat": exp(10 * time.Minute)}, "not valid yet"},
		{"HS384", jwt.SigningMethodHS384, jwt.MapClaims{"sub": "bob", "aud": "8", "exp": exp(time.Hour)}, "signature does not match"},
		{"no sub", jwt.SigningMethodHS256, jwt.MapClaims{"aud": "8", "exp": exp(time.Hour)}, "no sub"},
		{"no aud", jwt.SigningMethodHS256, jwt.MapClaims{"sub": "bob", "exp": exp(time.Hour)}, `has no aud: set aud to "8"`},
		{"no exp", jwt.SigningMethodHS256, jwt.MapClaims{"sub": "bob", "aud": "8"}, "has no exp"},
		{"exp as a string of digits", jwt.SigningMethodHS256, jwt.MapClaims{"sub": "bob", "aud": "8", "exp": fmt.Sprint(exp(time.Hour))}, "exp must be a number"},
		{"exp as a word", jwt.SigningMethodHS256, jwt.MapClaims{"sub": "bob", "aud": "8", "exp": "tomorrow"}, `exp must be a number of seconds since 1970 (a JSON number such as 1767225600), got "tomorrow"`},
		{"iat as a string", jwt.SigningMethodHS256, jwt.MapClaims{"sub": "bob", "aud": "8", "exp": exp(time.Hour), "iat": "now"}, "iat must be a number"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			eu, err := f.svc.Identify(f.signed, f.sign(t, tc.method, tc.claims))
			if tc.want == "" {
				if err != nil || eu.ID != "web:bob" || eu.Anonymous {
					t.Fatalf("Identify = %+v, %v; want web:bob", eu, err)
				}
				return
			}
			if !errors.Is(err, errs.ErrUnauthenticated) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Identify = %v; want unauthenticated saying %q", err, tc.want)
			}
		})
	}
}

func TestIdentifyRefusesUnsignedTokens(t *testing.T) {
	f := newFixture(t)
	none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{"sub": "bob", "aud": "8", "exp": f.now.Add(time.Hour).Unix()}).
		SignedString(jwt.UnsafeAllowNoneSignatureType)
	if _, err := f.svc.Identify(f.signed, none); !errors.Is(err, errs.ErrUnauthenticated) {
		t.Fatalf("alg none = %v; want refused", err)
	}
}

func TestAnonymousSessions(t *testing.T) {
	f := newFixture(t)
	s, err := f.svc.Session(context.Background(), f.open, "", "10.0.0.1")
	if err != nil || !strings.HasPrefix(s.EndUser.ID, "web:anon:") {
		t.Fatalf("Session = %+v, %v", s, err)
	}
	if _, err := f.svc.Identify(f.signed, s.Token); !errors.Is(err, errs.ErrUnauthenticated) || !strings.Contains(err.Error(), "another chat") {
		t.Fatalf("another channel's token = %v; want refused for its aud", err)
	}
	f.now = f.now.Add(200 * 24 * time.Hour)
	renewed, err := f.svc.Session(context.Background(), f.open, s.Token, "10.0.0.1")
	if err != nil || renewed.EndUser.ID != s.EndUser.ID || !renewed.EndUser.ExpiresAt.After(s.EndUser.ExpiresAt) {
		t.Fatalf("renewed = %+v, %v; want the same end user, later expiry", renewed, err)
	}
	f.now = f.now.Add(366 * 24 * time.Hour)
	if _, err := f.svc.Identify(f.open, renewed.Token); !errors.Is(err, errs.ErrUnauthenticated) || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("a year unused = %v; want expired", err)
	}
	if _, err := f.svc.Session(context.Background(), f.signed, "", "10.0.0.1"); !errors.Is(err, errs.ErrForbidden) {
		t.Fatalf("anonymous on a signed channel = %v; want forbidden", err)
	}
}

func TestSessionsPerAddress(t *testing.T) {
	f := newFixture(t)
	f.svc.d.SessionsPerMinute = 2
	for range 2 {
		if _, err := f.svc.Session(context.Background(), f.open, "", "10.0.0.1"); err != nil {
			t.Fatal(err)
		}
	}
	_, err := f.svc.Session(context.Background(), f.open, "", "10.0.0.1")
	var rl *RateLimitError
	if !errors.As(err, &rl) || !errors.Is(err, errs.ErrRateLimited) || rl.RetryAfterSeconds() != 30 {
		t.Fatalf("third session = %v; want rate limited for 30s", err)
	}
	if _, err := f.svc.Session(context.Background(), f.open, "", "10.0.0.2"); err != nil {
		t.Fatalf("another address = %v", err)
	}
}

// readAll reads a reply to its last part.
func readAll(t *testing.T, r *Reply) []Part {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var parts []Part
	for {
		p, ok := r.Next(ctx)
		if !ok {
			t.Fatalf("the reply did not end: %v", parts)
		}
		if parts = append(parts, p); p.Last() {
			return parts
		}
	}
}

func TestSendRecordsTheDeliveryBeforeTheEnd(t *testing.T) {
	f := newFixture(t)
	s, _ := f.svc.Session(context.Background(), f.open, "", "10.0.0.1")
	r, err := f.svc.Send(context.Background(), f.open, SendInput{Token: s.Token, Text: "hi", MessageID: "m1"})
	if err != nil {
		t.Fatal(err)
	}
	parts := readAll(t, r)
	if last := parts[len(parts)-1]; last.Kind != PartDone || last.Text != "echo: hi" {
		t.Fatalf("parts = %+v", parts)
	}
	d := f.events.get("m1")
	if d.Status != channel.DeliveryDelivered || d.Answer != "echo: hi" || d.EndUser != s.EndUser.ID || d.ConversationID != 101 {
		t.Fatalf("delivery when the stream ended = %+v", d)
	}
	again, err := f.svc.Send(context.Background(), f.open, SendInput{Token: s.Token, Text: "hi", MessageID: "m1"})
	if err != nil || !again.Replayed || readAll(t, again)[1].Text != "echo: hi" || len(f.chats.reqs) != 1 {
		t.Fatalf("sent again = %+v, %v; want the stored answer without a new chat", again, err)
	}
}

func TestConversationFollowsTheEndUser(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	s, _ := f.svc.Session(ctx, f.open, "", "10.0.0.1")
	send := func(id string) {
		r, err := f.svc.Send(ctx, f.open, SendInput{Token: s.Token, Text: id, MessageID: id})
		if err != nil {
			t.Fatal(err)
		}
		readAll(t, r)
	}
	send("a")
	send("b")
	if err := f.svc.Reset(ctx, f.open, s.Token); err != nil {
		t.Fatal(err)
	}
	f.lim.counts = nil
	send("c")
	got := []int64{f.chats.reqs[0].ConversationID, f.chats.reqs[1].ConversationID, f.chats.reqs[2].ConversationID}
	if got[0] != 0 || got[1] != 101 || got[2] != 0 || f.events.convs[s.EndUser.ID] != 102 {
		t.Fatalf("conversations asked for = %v, mapped to %d; want new, 101, new after the reset, mapped to 102", got, f.events.convs[s.EndUser.ID])
	}
}

func TestRateLimitFailsOpen(t *testing.T) {
	f := newFixture(t)
	s, _ := f.svc.Session(context.Background(), f.open, "", "10.0.0.1")
	f.lim.broken = true
	for i := range 3 {
		r, err := f.svc.Send(context.Background(), f.open, SendInput{Token: s.Token, Text: "hi"})
		if err != nil {
			t.Fatalf("message %d with the limiter down = %v", i, err)
		}
		readAll(t, r)
	}
}

func TestTurnSinkJoinsAnswers(t *testing.T) {
	s := newTurnSink()
	answer := func(id int64, text string) *conversation.Message {
		return &conversation.Message{ID: id, Type: conversation.TypeAnswer, Content: text}
	}
	s.Send(chat.Event{Kind: chat.EventMessageDelta, Message: answer(1, "a")})
	s.Send(chat.Event{Kind: chat.EventMessageDelta, Message: &conversation.Message{ID: 2, Type: conversation.TypeFunctionCall, Content: "{}"}})
	s.Send(chat.Event{Kind: chat.EventMessageDone, Message: answer(1, "a")})
	s.Send(chat.Event{Kind: chat.EventMessageDone, Message: answer(3, "b")}) // no deltas: a workflow's text
	s.Send(chat.Event{Kind: chat.EventMessageDone, Message: &conversation.Message{ID: 4, Type: conversation.TypeFollowUp, Content: "More?"}})
	s.Send(chat.Event{Kind: chat.EventChatCompleted})
	var got []string
	for len(s.q.items) > 0 {
		p, _ := s.q.next(context.Background())
		got = append(got, string(p.Kind)+":"+p.Text)
	}
	text, err := s.result()
	if strings.Join(got, "|") != "delta:a|delta:\n\n|delta:b|follow_up:More?" || text != "a\n\nb" || err != nil {
		t.Fatalf("parts %q, result %q, %v", got, text, err)
	}
}
