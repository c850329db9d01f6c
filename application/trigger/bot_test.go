package trigger

import (
	"context"
	"strings"
	"testing"
	"time"

	channelapp "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/trigger"
)

// members lets everyone in.
type members struct{}

func (members) Authorize(_ context.Context, p identity.Principal, ws int64, _ identity.Role) (*identity.Member, error) {
	return &identity.Member{WorkspaceID: ws, UserID: p.UserID, Role: identity.RoleMember}, nil
}

// oneBot is bot 5, published, or deleted when gone.
type oneBot struct{ gone bool }

func (b oneBot) GetBot(context.Context, int64) (*bot.Bot, error) {
	if b.gone {
		return nil, errs.NotFound("bot", "5")
	}
	return &bot.Bot{ID: 5, WorkspaceID: 1, PublishedVersion: 2}, nil
}

func (b oneBot) ResolvePublished(context.Context, int64, string) (*bot.Bot, *bot.Version, error) {
	return &bot.Bot{ID: 5}, &bot.Version{Number: 2}, nil
}

// postBox records what was posted to channels.
type postBox struct{ posts []channelapp.PostRequest }

func (p *postBox) CheckPost(context.Context, int64, int64, string) error { return nil }

func (p *postBox) Post(_ context.Context, req channelapp.PostRequest) (*channel.Delivery, error) {
	p.posts = append(p.posts, req)
	return &channel.Delivery{ID: int64(len(p.posts)), EventID: req.EventID}, nil
}

// chatBox answers every chat at once (before Chat returns), in
// conversation 70 when asked for a new one.
type chatBox struct{ reqs []ChatRequest }

func (c *chatBox) Chat(_ context.Context, p identity.Principal, req ChatRequest, done func(error)) (int64, int64, error) {
	c.reqs = append(c.reqs, req)
	conv := req.ConversationID
	if conv == 0 {
		conv = 70
	}
	done(nil)
	return int64(100 + len(c.reqs)), conv, nil
}

// botSetup is a bot trigger due now, with the service around it.
func botSetup(b trigger.Bot, gone bool) (*Service, *memStore, *postBox, *chatBox, time.Time) {
	now := time.Date(2026, 1, 1, 8, 0, 0, 0, time.UTC)
	tick := now.Add(-time.Second)
	st := &memStore{t: trigger.Trigger{ID: 3, CreatorID: 9, Name: "plan", Kind: trigger.KindSchedule, Bot: b, Interval: time.Minute,
		Missed: trigger.MissedSkip, State: trigger.StateActive, NextRun: &tick}}
	posts, chats := &postBox{}, &chatBox{}
	svc := New(Deps{Store: st, Access: members{}, Bots: oneBot{gone: gone}, Channels: posts, Chats: chats,
		Now: func() time.Time { return now }})
	return svc, st, posts, chats, tick
}

func TestBotScheduleToChannel(t *testing.T) {
	svc, st, posts, _, tick := botSetup(trigger.Bot{BotID: 5, Prompt: "the day's plan", ChannelID: 8, ChatID: "-100"}, false)
	if n, err := svc.DispatchDue(context.Background()); n != 1 || err != nil {
		t.Fatalf("DispatchDue = %d, %v", n, err)
	}
	want := channelapp.PostRequest{BotID: 5, ChannelID: 8, ChatID: "-100", EventID: postEventID(3, tick), UserID: "trigger:3", Text: "the day's plan"}
	if len(posts.posts) != 1 || posts.posts[0] != want {
		t.Fatalf("posted %+v, want %+v", posts.posts, want)
	}
	if got := st.get(); got.LastStatus != trigger.StatusStarted {
		t.Errorf("after the post: %+v, want started", got)
	}
	svc.ChannelDone(context.Background(), &channel.Delivery{EventID: "5001", Status: channel.DeliveryDelivered, ChatID: 1})
	if got := st.get(); got.LastStatus != trigger.StatusStarted {
		t.Errorf("a platform's event changed the trigger: %+v", got)
	}
	svc.ChannelDone(context.Background(), &channel.Delivery{EventID: want.EventID, Status: channel.DeliveryDelivered, ChatID: 42})
	if got := st.get(); got.LastStatus != trigger.StatusSucceeded || got.LastRunID != 42 {
		t.Errorf("after delivery: %+v, want succeeded with chat 42", got)
	}
	svc.ChannelDone(context.Background(), &channel.Delivery{EventID: want.EventID, Status: channel.DeliveryDelivered, ChatID: 43,
		Apology: true, Error: "model unavailable"})
	if got := st.get(); got.LastStatus != trigger.StatusFailed || got.LastError != "model unavailable" {
		t.Errorf("after an apology: %+v, want failed saying why", got)
	}
}

func TestBotSchedulePausedWhenBotDeleted(t *testing.T) {
	svc, st, posts, _, _ := botSetup(trigger.Bot{BotID: 5, Prompt: "plan", ChannelID: 8, ChatID: "-100"}, true)
	if _, err := svc.DispatchDue(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := st.get()
	if got.State != trigger.StatePaused || !strings.Contains(got.PauseReason, "bot 5 was deleted") ||
		got.LastStatus != trigger.StatusFailed || len(posts.posts) != 0 {
		t.Errorf("trigger of a deleted bot = %+v, %d posts", got, len(posts.posts))
	}
}

func TestBotScheduleForEndUser(t *testing.T) {
	svc, st, _, chats, _ := botSetup(trigger.Bot{BotID: 5, Prompt: "plan", EndUser: "ann"}, false)
	for i := range 2 {
		if n, err := svc.DispatchDue(context.Background()); n != 1 || err != nil {
			t.Fatalf("tick %d: DispatchDue = %d, %v", i, n, err)
		}
		waitStatus(t, st, trigger.StatusSucceeded)
		next := svc.d.Now().Add(-time.Millisecond)
		st.mu.Lock()
		st.t.NextRun = &next
		st.mu.Unlock()
	}
	want := []ChatRequest{{BotID: 5, UserID: "ann", Prompt: "plan"}, {BotID: 5, ConversationID: 70, UserID: "ann", Prompt: "plan"}}
	if len(chats.reqs) != 2 || chats.reqs[0] != want[0] || chats.reqs[1] != want[1] {
		t.Errorf("chats %+v, want %+v (the second in the first one's conversation)", chats.reqs, want)
	}
	if got := st.get(); got.LastRunID != 102 || got.ConversationID != 70 {
		t.Errorf("trigger = %+v, want chat 102 in conversation 70", got)
	}
}

// waitStatus waits for the trigger's last status (a chat's end is
// recorded on a goroutine of its own).
func waitStatus(t *testing.T, st *memStore, want string) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Second); st.get().LastStatus != want; {
		if time.Now().After(deadline) {
			t.Fatalf("trigger = %+v, want status %s", st.get(), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
