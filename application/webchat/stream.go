package webchat

import (
	"context"
	"strings"
	"sync"

	"github.com/pergola-ai/pergola/application/chat"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
)

// PartKind names a piece of a streamed answer.
type PartKind string

// The pieces of an answer: text as it grows, a follow-up question the bot
// suggests, and the end (done, or error when the bot did not answer).
const (
	PartDelta    PartKind = "delta"
	PartFollowUp PartKind = "follow_up"
	PartDone     PartKind = "done"
	PartError    PartKind = "error"
)

// Part is one piece of an answer. On PartDone, Text is the whole answer;
// on PartError, Err says why there is none.
type Part struct {
	Kind PartKind
	Text string
	Err  error
}

// Last reports whether nothing follows the part.
func (p Part) Last() bool { return p.Kind == PartDone || p.Kind == PartError }

// Reply is the answer to one message as it streams. The chat goes on,
// and its delivery is recorded, whether or not anybody reads the parts.
type Reply struct {
	EventID        string
	ChatID         int64
	ConversationID int64
	// Replayed is true for a message sent again with the same id: the
	// parts are the stored answer.
	Replayed bool
	parts    *partQueue
}

// Next waits for the next part; false when ctx ends first. The last part
// is PartDone or PartError.
func (r *Reply) Next(ctx context.Context) (Part, bool) { return r.parts.next(ctx) }

// partQueue never blocks its writer: the chat runs on whatever the
// reader does.
type partQueue struct {
	mu     sync.Mutex
	items  []Part
	signal chan struct{}
}

func newPartQueue() *partQueue { return &partQueue{signal: make(chan struct{}, 1)} }

func (q *partQueue) push(p Part) {
	q.mu.Lock()
	q.items = append(q.items, p)
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

func (q *partQueue) next(ctx context.Context) (Part, bool) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			p := q.items[0]
			q.items = q.items[1:]
			q.mu.Unlock()
			return p, true
		}
		q.mu.Unlock()
		select {
		case <-q.signal:
		case <-ctx.Done():
			return Part{}, false
		}
	}
}

// turnSink turns a chat's events into parts and notes how the chat
// ended. The answers of one turn (several after tool calls) read as one
// text, separated by a blank line.
type turnSink struct {
	q        *partQueue
	mu       sync.Mutex
	last     int64          // the answer message deltas came from last
	streamed map[int64]bool // answer messages that had deltas
	answers  []string
	err      error
	done     chan struct{}
	once     sync.Once
}

func newTurnSink() *turnSink {
	return &turnSink{q: newPartQueue(), streamed: map[int64]bool{}, done: make(chan struct{})}
}

// Send takes one event of the chat.
func (s *turnSink) Send(e chat.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch e.Kind {
	case chat.EventMessageDelta:
		if isAnswer(e.Message) && e.Message.Content != "" {
			s.delta(e.Message.ID, e.Message.Content)
		}
	case chat.EventMessageDone:
		s.messageDone(e.Message)
	case chat.EventChatCompleted:
		s.finish(nil)
	case chat.EventRequiresAction:
		s.finish(errs.New(errs.ErrUnavailable, "the bot asked for a tool that runs in the caller's app, which the web chat cannot run"))
	case chat.EventChatFailed:
		msg := "the bot could not answer"
		if e.Chat != nil && e.Chat.LastError != nil && e.Chat.LastError.Msg != "" {
			msg += ": " + e.Chat.LastError.Msg
		}
		s.finish(errs.New(errs.ErrUnavailable, "%s", msg))
	case chat.EventChatCanceled:
		s.finish(errs.Conflict("the answer was canceled"))
	}
}

func isAnswer(m *conversation.Message) bool { return m != nil && m.Type == conversation.TypeAnswer }

// delta passes on the text of answer message id, starting a new
// paragraph when a second answer begins.
func (s *turnSink) delta(id int64, text string) {
	if s.last != 0 && s.last != id {
		s.q.push(Part{Kind: PartDelta, Text: "\n\n"})
	}
	s.last = id
	s.streamed[id] = true
	s.q.push(Part{Kind: PartDelta, Text: text})
}

// messageDone keeps a finished answer, passing it on whole when it came
// without deltas, and passes on follow-up questions.
func (s *turnSink) messageDone(m *conversation.Message) {
	switch {
	case m == nil || m.Content == "":
	case m.Type == conversation.TypeFollowUp:
		s.q.push(Part{Kind: PartFollowUp, Text: m.Content})
	case m.Type == conversation.TypeAnswer:
		if !s.streamed[m.ID] {
			s.delta(m.ID, m.Content)
		}
		s.answers = append(s.answers, m.Content)
	}
}

// finish notes how the chat ended, once; the last part is pushed by
// whoever records the outcome.
func (s *turnSink) finish(err error) {
	s.once.Do(func() {
		s.err = err
		close(s.done)
	})
}

// result is the whole answer, or why there is none; call after done.
func (s *turnSink) result() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.answers, "\n\n"), s.err
}
