package trigger

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	channelapp "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/trigger"
)

// fireBot runs a bot trigger's tick: its prompt is posted to its channel,
// or chatted for its end user. The outcome is recorded "started" first,
// then when the turn ends (see ChannelDone); a trigger whose bot, channel
// or publication is gone is paused saying why.
func (s *Service) fireBot(ctx context.Context, t *trigger.Trigger, tick, now time.Time) error {
	if err := s.botReady(ctx, t); err != nil {
		return s.botFailed(ctx, t, now, err)
	}
	if t.ToChannel() {
		return s.postToChannel(ctx, t, tick, now)
	}
	return s.chatForUser(ctx, t, now)
}

// botReady checks, before a turn, that t's bot still exists, published,
// and that its creator is still a member of the bot's workspace.
func (s *Service) botReady(ctx context.Context, t *trigger.Trigger) error {
	if s.d.Bots == nil {
		return errs.New(errs.ErrUnavailable, "bot triggers are not available in this process")
	}
	b, err := s.d.Bots.GetBot(ctx, t.Bot.BotID)
	if errors.Is(err, errs.ErrNotFound) {
		return errs.New(errs.ErrNotFound, "bot %d was deleted", t.Bot.BotID)
	}
	if err != nil {
		return err
	}
	if !b.IsPublished() {
		return errs.Forbidden("bot %d is not published", b.ID)
	}
	_, err = s.d.Access.Authorize(ctx, creator(t), b.WorkspaceID, identity.RoleMember)
	if errors.Is(err, errs.ErrForbidden) {
		return errs.Forbidden("the trigger's creator (user %d) is no longer a member of the bot's workspace", t.CreatorID)
	}
	return err
}

// postEventID is the channel event of a tick of trigger id: a tick is
// posted once whatever happens.
func postEventID(id int64, tick time.Time) string {
	return "trigger:" + strconv.FormatInt(id, 10) + ":" + strconv.FormatInt(tick.UnixMilli(), 10)
}

// postedBy reads the trigger of a channel event posted by postEventID.
func postedBy(eventID string) (int64, bool) {
	rest, ok := strings.CutPrefix(eventID, "trigger:")
	idText, _, ok2 := strings.Cut(rest, ":")
	id, err := strconv.ParseInt(idText, 10, 64)
	return id, ok && ok2 && err == nil
}

func (s *Service) postToChannel(ctx context.Context, t *trigger.Trigger, tick, now time.Time) error {
	if s.d.Channels == nil {
		return s.botFailed(ctx, t, now, errs.New(errs.ErrUnavailable, "channels do not post in this process"))
	}
	// Recorded before the post: the channel's worker records the end.
	if err := s.d.Store.Record(ctx, t.ID, trigger.Outcome{At: now, Status: trigger.StatusStarted}); err != nil {
		return err
	}
	_, err := s.d.Channels.Post(ctx, channelapp.PostRequest{BotID: t.Bot.BotID, ChannelID: t.Bot.ChannelID,
		ChatID: t.Bot.ChatID, EventID: postEventID(t.ID, tick), UserID: t.UserID(), Text: t.Bot.Prompt})
	if err != nil {
		return s.botFailed(ctx, t, now, err)
	}
	return nil
}

// ChannelDone records the outcome of a bot trigger's message once its
// channel is done with it (the channel runtime's RuntimeDeps.Done):
// delivered, or failed saying why. Other events are left alone.
func (s *Service) ChannelDone(ctx context.Context, d *channel.Delivery) {
	id, ok := postedBy(d.EventID)
	if !ok {
		return
	}
	o := trigger.Outcome{At: d.CreatedAt, RunID: d.ChatID, Status: trigger.StatusSucceeded}
	if d.Status == channel.DeliveryFailed || d.Apology {
		o.Status, o.Error = trigger.StatusFailed, d.Error
	}
	if err := s.d.Store.Record(ctx, id, o); err != nil && !errors.Is(err, errs.ErrNotFound) {
		s.d.Log.Warn("could not record a bot trigger's outcome", "trigger", id, "err", err)
	}
}

// chatForUser runs t's turn for its end user in its conversation (a new
// one the first time, or when that one was deleted).
func (s *Service) chatForUser(ctx context.Context, t *trigger.Trigger, now time.Time) error {
	if s.d.Chats == nil {
		return s.botFailed(ctx, t, now, errs.New(errs.ErrUnavailable, "bot chats are not available in this process"))
	}
	// started holds the end's record back until the start's is written.
	started := make(chan struct{})
	p := identity.Principal{UserID: t.CreatorID, Scopes: []string{identity.ScopeChat}}
	req := ChatRequest{BotID: t.Bot.BotID, ConversationID: t.ConversationID, UserID: t.UserID(), Prompt: t.Bot.Prompt}
	var chatID, convID int64
	done := func(err error) {
		go func() {
			<-started
			s.chatEnded(t.ID, trigger.Outcome{At: now, RunID: chatID, ConversationID: convID}, err)
		}()
	}
	var err error
	chatID, convID, err = s.d.Chats.Chat(ctx, p, req, done)
	if errors.Is(err, errs.ErrNotFound) && req.ConversationID != 0 {
		req.ConversationID = 0
		chatID, convID, err = s.d.Chats.Chat(ctx, p, req, done)
	}
	defer close(started)
	if err != nil {
		return s.botFailed(ctx, t, now, err)
	}
	return s.d.Store.Record(ctx, t.ID, trigger.Outcome{At: now, RunID: chatID, Status: trigger.StatusStarted, ConversationID: convID})
}

// chatEnded records how a bot trigger's chat ended.
func (s *Service) chatEnded(id int64, o trigger.Outcome, err error) {
	o.Status = trigger.StatusSucceeded
	if err != nil {
		o.Status, o.Error = trigger.StatusFailed, err.Error()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if rerr := s.d.Store.Record(ctx, id, o); rerr != nil && !errors.Is(rerr, errs.ErrNotFound) {
		s.d.Log.Warn("could not record a bot trigger's outcome", "trigger", id, "err", rerr)
	}
}

// botFailed records a turn that could not start and pauses t when its
// bot, channel or publication is gone.
// The failure is recorded before the pause, so that a paused trigger
// shows it.
func (s *Service) botFailed(ctx context.Context, t *trigger.Trigger, now time.Time, err error) error {
	rerr := s.d.Store.Record(ctx, t.ID, trigger.Outcome{At: now, Status: trigger.StatusFailed, Error: err.Error()})
	if reason := botGone(err); reason != "" {
		if perr := s.d.Store.SetState(ctx, t.ID, trigger.StatePaused, reason, nil); perr != nil {
			s.d.Log.Warn("could not pause a trigger", "trigger", t.ID, "err", perr)
		}
	}
	return errors.Join(err, rerr)
}

// botGone says why t cannot run any more, or "" when another tick may:
// its bot or channel is gone, or the bot is not published there.
func botGone(err error) string {
	var fe *errs.FieldError
	if errors.Is(err, errs.ErrNotFound) || errors.Is(err, errs.ErrForbidden) ||
		errors.As(err, &fe) && (fe.Field == "bot_id" || fe.Field == "channel_id" || fe.Field == "chat_id") {
		return "the bot cannot run: " + err.Error()
	}
	return ""
}
