package channel

import (
	"context"
	"encoding/json"
	"time"

	"github.com/pergola-ai/pergola/domain/channel"
)

// Inbound is one HTTP request a platform sent to a channel's webhook URL,
// /channels/{kind}/{channel_id}, as it arrived: the raw body is what
// signatures are computed over.
type Inbound struct {
	Header   func(name string) string
	Body     []byte
	Received time.Time
}

// Event is one message of an end user that the bot should answer.
type Event struct {
	// ID is the platform's id of the event (Slack event_id, Telegram
	// update_id, Feishu header.event_id, LINE webhookEventId, Discord
	// interaction id, our event_id): a retried event is answered once.
	ID string
	// UserID is the platform's id of the person; the bot's end user is
	// "{kind}:{UserID}".
	UserID string
	// ConversationKey names the chat or thread the message belongs to;
	// one key is one conversation of the bot.
	ConversationKey string
	// Text is the message, with the bot's own mention removed.
	Text string
	// NotText marks a message the bot cannot read (a sticker, a file): it
	// gets a polite answer saying what the bot reads.
	NotText bool
	// Reply is where and how to answer, in the kind's own terms (chat id
	// and message id, thread ts, reply token, interaction token …); it is
	// stored with the event and handed back to Deliver.
	Reply json.RawMessage
}

// Reaction is what the webhook endpoint answers the platform at once,
// and the events to process after that answer.
type Reaction struct {
	Status      int    // 0: 200
	ContentType string // "": application/json when Body is set
	Body        []byte // e.g. a url_verification challenge, a Discord PONG or deferral
	Events      []Event
}

// Adapter is one kind's side of the conversation with its platform:
// reading what the platform sends and answering through its API.
type Adapter interface {
	// Receive verifies the request as the platform signs it and parses
	// it. A missing, wrong or stale signature is errs.ErrUnauthenticated
	// (401, nothing stored); a malformed body errs.ErrInvalid. Events the
	// bot must not answer (its own messages, other bots, group messages
	// that do not mention it) are left out.
	Receive(ctx context.Context, c *channel.Channel, in Inbound) (Reaction, error)
	// Deliver sends the bot's answer to where reply says, split at the
	// platform's length limit and converted to its text dialect, through
	// the guarded egress client, once: the runtime retries a failed
	// send, with backoff, honouring the wait an error asks for through a
	// RetryAfter() time.Duration method (429, Retry-After). A refused
	// token is errs.ErrUnauthenticated with the platform's words (the
	// channel is then marked failing).
	Deliver(ctx context.Context, c *channel.Channel, reply json.RawMessage, text string) error
}

// PartSender is an Adapter that sends a long answer as several messages,
// one platform call each. The runtime then sends the parts itself and
// records how many went out, so that a retry after a failure resumes at
// the first part not sent instead of sending the others again.
type PartSender interface {
	Adapter
	// Parts cuts an answer, Markdown, into the messages it is sent as,
	// each within the platform's limit once converted; blank answers
	// have no parts.
	Parts(text string) []string
	// SendPart sends part i (from 0) of an answer, Markdown, converted
	// to the platform's dialect, to where reply says, once (as Deliver:
	// the runtime retries). It returns the handle of the message made,
	// as JSON of at most MaxHandle bytes: what Edit takes.
	SendPart(ctx context.Context, c *channel.Channel, reply json.RawMessage, i int, text string) (json.RawMessage, error)
}

// Streamer is a PartSender whose platform lets the bot edit a message it
// sent (Slack chat.update, Telegram editMessageText, Discord's original
// interaction response, Feishu/Lark message update): the answer's first
// message is posted as soon as the model wrote some text and grows in
// place, at most one edit per RuntimeDeps.EditInterval; the final edit
// carries the whole first part, and the other parts follow as new
// messages.
type Streamer interface {
	PartSender
	// Edit replaces the text of the message handle names (as SendPart
	// returned it for part 0) with text, Markdown converted to the
	// platform's dialect, once. A rate limit is an error with a
	// RetryAfter() time.Duration method, or errs.ErrRateLimited; the
	// runtime skips that edit.
	Edit(ctx context.Context, c *channel.Channel, reply, handle json.RawMessage, text string) error
	// MaxEdits is how many times the platform lets one message be
	// edited; 0 means no limit. The runtime keeps the last for the
	// final text.
	MaxEdits() int
}

// MaxHandle bounds a message handle, in bytes (the deliveries store it).
const MaxHandle = 1000
