package channel

import (
	"context"
	"log/slog"
	"strconv"
	"time"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// EventTopic is the queue topic of inbound channel events.
const EventTopic = "channel-events"

// Publications tells which bot version a channel serves;
// *application/bot.Service implements it.
type Publications interface {
	// ResolvePublished returns errs.ErrForbidden when the bot was never
	// published to connector.
	ResolvePublished(ctx context.Context, botID int64, connector string) (*bot.Bot, *bot.Version, error)
}

// TurnRequest is one end user's message for the bot of a channel.
type TurnRequest struct {
	BotID          int64
	ChannelID      string // the connector id
	ConversationID int64  // 0: a new conversation
	UserID         string // "{kind}:{platform user id}"
	Text           string
	// Progress, when set, is called with the answer's text so far each
	// time the model adds to it (the answers of the turn joined as the
	// final TurnAnswer.Text joins them). It is called on the chat's own
	// goroutines and must return at once.
	Progress func(text string)
}

// TurnAnswer is the bot's answer to a TurnRequest.
type TurnAnswer struct {
	ChatID         int64
	ConversationID int64
	Text           string
}

// Turns runs a chat turn on the version published to a channel and waits
// for its answer; the chat runtime's StartForChannel behind it stores the
// chat and its messages like any chat.
type Turns interface {
	Answer(ctx context.Context, req TurnRequest) (TurnAnswer, error)
}

// Publisher puts a message on a topic of the work queue.
type Publisher interface {
	Publish(ctx context.Context, topic string, payload []byte) (string, error)
}

// Inline is an Adapter that can answer an event in the response to the
// platform's request itself (our webhook without callback_url): the
// runtime then processes the event before answering.
type Inline interface {
	// AnswersInline reports whether events of c are answered inline.
	AnswersInline(c *channel.Channel) bool
	// InlineReaction renders the response carrying d's outcome.
	InlineReaction(c *channel.Channel, d *channel.Delivery) (Reaction, error)
}

// RuntimeDeps is what the channels' runtime needs.
type RuntimeDeps struct {
	Channels channel.Store
	Events   channel.EventStore
	Bots     Publications
	Turns    Turns
	Queue    Publisher
	Adapters map[channel.Kind]Adapter
	Log      *slog.Logger
	Now      func() time.Time
	// DeliveryAttempts bounds the sends of one answer; 0 means 4.
	DeliveryAttempts int
	// Backoff is the wait before the second send, doubled after each
	// failure (at most 30s); 0 means 500ms. A platform's Retry-After
	// wins.
	Backoff time.Duration
	// TurnAttempts bounds the chat turns tried for one event when the
	// model is unavailable, before the end user gets the apology; 0
	// means 3.
	TurnAttempts int
	// TurnBackoff is the wait before the second turn, doubled after each
	// failure; 0 means 3s.
	TurnBackoff time.Duration
	// RetryWindow bounds the age of an event (from its receipt) at which
	// a turn or a send is still tried again; 0 means 2 minutes.
	RetryWindow time.Duration
	// EditInterval is the least time between two sends of a streamed
	// answer (the first message and its edits); 0 means 1s, about what
	// the platforms' rate limits allow per chat.
	EditInterval time.Duration
	// Locker serializes the events of one platform conversation across
	// processes (infra/memory.Locker in one process, infra/redis.Locker
	// shared); nil locks within this process only.
	Locker Locker
	// LockTTL is how long a conversation's lock outlives a process that
	// died holding it; it is renewed while held. 0 means 30s.
	LockTTL time.Duration
	// Shares, when set, gives each workspace its share of the workers
	// of this process (see takeShare).
	Shares Gate
	// Done, when set, is told of each event once it is done (delivered
	// or failed), by the process that processed it; it must not block.
	Done func(ctx context.Context, d *channel.Delivery)
}

// Runtime receives the events platforms post to channels, answers them
// with the channel's published bot and delivers the answers.
type Runtime struct{ d RuntimeDeps }

// NewRuntime returns the channels' runtime.
func NewRuntime(d RuntimeDeps) *Runtime {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.DeliveryAttempts <= 0 {
		d.DeliveryAttempts = 4
	}
	if d.Backoff <= 0 {
		d.Backoff = 500 * time.Millisecond
	}
	if d.TurnAttempts <= 0 {
		d.TurnAttempts = 3
	}
	if d.TurnBackoff <= 0 {
		d.TurnBackoff = 3 * time.Second
	}
	if d.RetryWindow <= 0 {
		d.RetryWindow = 2 * time.Minute
	}
	if d.EditInterval <= 0 {
		d.EditInterval = time.Second
	}
	if d.Locker == nil {
		d.Locker = newLocalLocker()
	}
	if d.LockTTL <= 0 {
		d.LockTTL = 30 * time.Second
	}
	return &Runtime{d: d}
}

// target loads the channel an inbound request names and checks that it
// serves: an unknown channel or one of another kind is errs.ErrNotFound,
// a disabled one errs.ErrConflict, a bot not published to it
// errs.ErrForbidden.
func (r *Runtime) target(ctx context.Context, kind string, id int64) (*channel.Channel, Adapter, error) {
	c, err := r.d.Channels.GetChannel(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	if string(c.Kind) != kind {
		return nil, nil, errs.NotFound("channel", strconv.FormatInt(id, 10))
	}
	a, err := r.serving(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	return c, a, nil
}

// serving returns the adapter of channel c when c takes events: its kind
// is served, it is enabled and its bot is published to it.
func (r *Runtime) serving(ctx context.Context, c *channel.Channel) (Adapter, error) {
	a, ok := r.d.Adapters[c.Kind]
	if !ok {
		return nil, errs.New(errs.ErrNotFound, "%s channels do not take events in this version of Pergola", c.Kind)
	}
	if !c.Serves() {
		return nil, errs.Conflict("channel %d is disabled; enable it with PATCH /api/bots/%d/channels/%d {\"status\":\"active\"}", c.ID, c.BotID, c.ID)
	}
	if _, _, err := r.d.Bots.ResolvePublished(ctx, c.BotID, c.ConnectorID()); err != nil {
		return nil, err
	}
	return a, nil
}
