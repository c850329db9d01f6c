package webchat

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"time"

	"github.com/pergola-ai/pergola/application/chat"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
)

// messageIDPattern is what a client's message id may look like (a UUID,
// a ULID, a counter).
var messageIDPattern = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,64}$`)

// SendInput is one message of an end user.
type SendInput struct {
	Token string // the end user's token
	Text  string
	// MessageID is the client's id of the message, optional: a message
	// sent again with the same id is answered once.
	MessageID string
}

// Send answers an end user's message on c with the version published to
// it, in the end user's conversation (a new one at first, or after
// Reset). The message is recorded as a delivery of the channel, its
// event id the client's message id when given. Errors: a bad token as
// Identify; bad text or message id errs.ErrInvalid; a channel that does
// not serve as Serving; past the channel's messages_per_minute a
// *RateLimitError; a message id already used by another message, or whose
// answer is still streaming, errs.ErrConflict. A message id already
// answered gets the stored answer again (Reply.Replayed).
func (s *Service) Send(ctx context.Context, c *channel.Channel, in SendInput) (*Reply, error) {
	eu, err := s.Identify(c, in.Token)
	if err != nil {
		return nil, err
	}
	if err := s.checkMessage(in); err != nil {
		return nil, err
	}
	if _, _, err := s.Serving(ctx, c); err != nil {
		return nil, err
	}
	key := "webchat:messages:" + c.ConnectorID() + ":" + eu.ID
	if err := s.limit(ctx, key, c.Web().MessagesPerMinute, "messages"); err != nil {
		return nil, err
	}
	d, created, err := s.d.Events.RecordEvent(ctx, newDelivery(c, eu, in))
	if err != nil {
		return nil, err
	}
	if !created {
		return replay(d, eu)
	}
	return s.answer(ctx, c, d)
}

// checkMessage checks an end user's message: text within the message
// limit every surface has, and a well-formed message id.
func (s *Service) checkMessage(in SendInput) error {
	if strings.TrimSpace(in.Text) == "" {
		return errs.Invalid("text", "is required: type a message")
	}
	if err := s.d.Limits.CheckText("text", in.Text); err != nil {
		return err
	}
	if in.MessageID != "" && !messageIDPattern.MatchString(in.MessageID) {
		return errs.Invalid("message_id", "must be 1 to 64 characters of A-Z, a-z, 0-9, _ . : - (a UUID will do), got %q", in.MessageID)
	}
	return nil
}

// newDelivery is the stored form of a new message.
func newDelivery(c *channel.Channel, eu EndUser, in SendInput) *channel.Delivery {
	id := in.MessageID
	if id == "" {
		id = "web-" + newAnonymousID()
	}
	return &channel.Delivery{ChannelID: c.ID, BotID: c.BotID, EventID: id, EndUser: eu.ID, ConversationKey: eu.ID,
		Text: in.Text, Status: channel.DeliveryReceived}
}

// replay answers a message sent again: its stored answer once done.
func replay(d *channel.Delivery, eu EndUser) (*Reply, error) {
	if d.EndUser != eu.ID {
		return nil, errs.Conflict("message_id %q was used for another message: give each message its own id", d.EventID)
	}
	if !d.Done() {
		return nil, errs.Conflict("message %q is being answered: retry in a few seconds for its answer", d.EventID)
	}
	r := &Reply{EventID: d.EventID, ChatID: d.ChatID, ConversationID: d.ConversationID, Replayed: true, parts: newPartQueue()}
	if d.Status == channel.DeliveryFailed {
		// The stored error is for the builder's deliveries view; the end
		// user learns only what to do.
		r.parts.push(Part{Kind: PartError, Err: errs.New(errs.ErrUnavailable, "message %q was not answered; send it again as a new message", d.EventID)})
		return r, nil
	}
	r.parts.push(Part{Kind: PartDelta, Text: d.Answer})
	r.parts.push(Part{Kind: PartDone, Text: d.Answer})
	return r, nil
}

// answer starts the chat turn of a recorded message in the end user's
// conversation and records its outcome when it ends.
func (s *Service) answer(ctx context.Context, c *channel.Channel, d *channel.Delivery) (*Reply, error) {
	ctx = context.WithoutCancel(ctx) // recorded: see it through even if the browser goes away
	convID, err := s.d.Events.Conversation(ctx, c.ID, d.ConversationKey)
	if err != nil {
		return nil, s.failed(d, err)
	}
	started, sink, err := s.start(ctx, c, d, convID)
	if errors.Is(err, errs.ErrNotFound) && convID != 0 {
		started, sink, err = s.start(ctx, c, d, 0) // the builder deleted it: a new one
	}
	if err != nil {
		return nil, s.failed(d, err)
	}
	s.mapConversation(ctx, c.ID, d.ConversationKey, convID, started.ConversationID)
	d = s.update(d, func(x *channel.Delivery) { x.ChatID, x.ConversationID = started.ID, started.ConversationID })
	go s.record(d, sink)
	return &Reply{EventID: d.EventID, ChatID: started.ID, ConversationID: started.ConversationID, parts: sink.q}, nil
}

// start runs the chat turn in conversation convID (0: a new one).
func (s *Service) start(ctx context.Context, c *channel.Channel, d *channel.Delivery, convID int64) (*conversation.Chat, *turnSink, error) {
	sink := newTurnSink()
	started, err := s.d.Chats.StartForChannel(ctx, chat.ChannelRequest{BotID: c.BotID, ChannelID: c.ConnectorID(),
		ConversationID: convID, UserID: d.EndUser, Text: d.Text}, sink)
	return started, sink, err
}

// mapConversation records the conversation the end user now talks in:
// the first one, one after a reset (the key maps to 0 then), or one
// replacing a deleted one.
func (s *Service) mapConversation(ctx context.Context, channelID int64, key string, was, now int64) {
	var err error
	switch {
	case was == now:
		return
	case was == 0:
		var got int64
		if got, err = s.d.Events.BindConversation(ctx, channelID, key, now); err == nil && got == 0 {
			_, err = s.d.Events.RebindConversation(ctx, channelID, key, 0, now)
		}
	default:
		_, err = s.d.Events.RebindConversation(ctx, channelID, key, was, now)
	}
	if err != nil {
		s.d.Log.Warn("webchat: could not map a conversation", "channel", channelID, "err", err)
	}
}

// record waits for the chat's end, records the delivery (the stream is
// the send, so an answered message is delivered) and only then ends the
// stream, so a client that saw the end and sends the message again gets
// the stored answer.
func (s *Service) record(d *channel.Delivery, sink *turnSink) {
	t := time.NewTimer(s.d.TurnTimeout)
	defer t.Stop()
	select {
	case <-sink.done:
	case <-t.C:
		sink.finish(errs.New(errs.ErrUnavailable, "the bot did not answer within %s", s.d.TurnTimeout))
	}
	answer, err := sink.result()
	if err != nil {
		s.failed(d, err)
		sink.q.push(Part{Kind: PartError, Err: err})
		return
	}
	s.update(d, func(x *channel.Delivery) {
		x.Status, x.Answer, x.Attempts, x.Error, x.LatencyMS = channel.DeliveryDelivered, answer, 1, "", s.since(x)
	})
	sink.q.push(Part{Kind: PartDone, Text: answer})
}

// failed records the delivery as failed with err and returns err.
func (s *Service) failed(d *channel.Delivery, err error) error {
	s.update(d, func(x *channel.Delivery) {
		x.Status, x.Error, x.LatencyMS = channel.DeliveryFailed, err.Error(), s.since(x)
	})
	return err
}

// update applies fn to the stored delivery, even when the request that
// made it has ended; when the store fails it logs and applies fn to the
// copy in hand.
func (s *Service) update(d *channel.Delivery, fn func(*channel.Delivery)) *channel.Delivery {
	out, err := s.d.Events.UpdateEvent(context.Background(), d.ID, func(x *channel.Delivery) error { fn(x); return nil })
	if err == nil {
		return out
	}
	s.d.Log.Error("webchat: could not record a message's progress", "event", d.ID, "err", err)
	cp := *d
	fn(&cp)
	return &cp
}

func (s *Service) since(d *channel.Delivery) int64 { return s.d.Now().Sub(d.CreatedAt).Milliseconds() }
