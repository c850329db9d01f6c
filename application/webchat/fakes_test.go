package webchat

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/pergola-ai/pergola/application/chat"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
)

// events is an in-memory channel.EventStore: the deliveries and the
// conversation map.
type events struct {
	channel.EventStore // the admin views are not used here
	mu                 sync.Mutex
	byID               map[int64]*channel.Delivery
	convs              map[string]int64
	next               int64
}

func newEvents() *events {
	return &events{byID: map[int64]*channel.Delivery{}, convs: map[string]int64{}}
}

func (e *events) RecordEvent(_ context.Context, d *channel.Delivery) (*channel.Delivery, bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, x := range e.byID {
		if x.ChannelID == d.ChannelID && x.EventID == d.EventID {
			cp := *x
			return &cp, false, nil
		}
	}
	e.next++
	d.ID, d.CreatedAt = e.next, time.Now()
	cp := *d
	e.byID[d.ID] = &cp
	return d, true, nil
}

func (e *events) UpdateEvent(_ context.Context, id int64, fn func(*channel.Delivery) error) (*channel.Delivery, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	d, ok := e.byID[id]
	if !ok {
		return nil, errs.NotFound("event", strconv.FormatInt(id, 10))
	}
	if err := fn(d); err != nil {
		return nil, err
	}
	cp := *d
	return &cp, nil
}

func (e *events) get(eventID string) channel.Delivery {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, d := range e.byID {
		if d.EventID == eventID {
			return *d
		}
	}
	return channel.Delivery{}
}

func (e *events) Conversation(_ context.Context, ch int64, key string) (int64, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.convs[key], nil
}

func (e *events) BindConversation(_ context.Context, ch int64, key string, id int64) (int64, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.convs[key]; !ok {
		e.convs[key] = id
	}
	return e.convs[key], nil
}

func (e *events) RebindConversation(_ context.Context, ch int64, key string, from, to int64) (int64, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.convs[key] == from {
		e.convs[key] = to
	}
	return e.convs[key], nil
}

// channels holds channels by id.
type channels struct {
	channel.Store
	list map[int64]*channel.Channel
}

func (c channels) GetChannel(_ context.Context, id int64) (*channel.Channel, error) {
	if ch, ok := c.list[id]; ok {
		return ch, nil
	}
	return nil, errs.NotFound("channel", strconv.FormatInt(id, 10))
}

// published publishes the bot to every channel but 0.
type published struct{}

func (published) ResolvePublished(_ context.Context, botID int64, connector string) (*bot.Bot, *bot.Version, error) {
	return &bot.Bot{ID: botID}, &bot.Version{Number: 1, Config: bot.Config{Name: "Helper"}}, nil
}

// chats answers "echo: <text>" in two deltas, in a new conversation
// (numbered from 100) unless given one, and remembers the requests.
type chats struct {
	mu   sync.Mutex
	reqs []chat.ChannelRequest
	conv int64
}

func (c *chats) StartForChannel(_ context.Context, req chat.ChannelRequest, sink chat.Sink) (*conversation.Chat, error) {
	c.mu.Lock()
	c.reqs = append(c.reqs, req)
	conv := req.ConversationID
	if conv == 0 {
		c.conv++
		conv = 100 + c.conv
	}
	c.mu.Unlock()
	started := &conversation.Chat{ID: int64(len(c.reqs)), ConversationID: conv}
	go func() {
		msg := &conversation.Message{ID: 1, Type: conversation.TypeAnswer}
		for _, part := range []string{"echo: ", req.Text} {
			m := *msg
			m.Content = part
			sink.Send(chat.Event{Kind: chat.EventMessageDelta, Message: &m})
		}
		m := *msg
		m.Content = "echo: " + req.Text
		sink.Send(chat.Event{Kind: chat.EventMessageDone, Message: &m})
		sink.Send(chat.Event{Kind: chat.EventChatCompleted})
	}()
	return started, nil
}

// limiter allows max events per key, or fails when broken.
type limiter struct {
	mu     sync.Mutex
	counts map[string]int
	broken bool
}

func (l *limiter) Allow(_ context.Context, key string, limit int, _ time.Duration) (bool, time.Duration, error) {
	if l.broken {
		return false, 0, errors.New("redis is down")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.counts == nil {
		l.counts = map[string]int{}
	}
	l.counts[key]++
	return l.counts[key] <= limit, 30 * time.Second, nil
}
