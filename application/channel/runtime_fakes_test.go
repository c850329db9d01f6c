package channel_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	channelapp "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// memEvents is an in-memory channel.EventStore.
type memEvents struct {
	mu    sync.Mutex
	next  int64
	rows  map[int64]channel.Delivery
	byKey map[string]int64
	convs map[string]int64
}

func newMemEvents() *memEvents {
	return &memEvents{rows: map[int64]channel.Delivery{}, byKey: map[string]int64{}, convs: map[string]int64{}}
}

func (m *memEvents) RecordEvent(_ context.Context, d *channel.Delivery) (*channel.Delivery, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	key := d.EventID
	if id, ok := m.byKey[key]; ok {
		cp := m.rows[id]
		return &cp, false, nil
	}
	m.next++
	d.ID = m.next
	d.CreatedAt, d.UpdatedAt = time.Now(), time.Now()
	m.rows[d.ID], m.byKey[key] = *d, d.ID
	return d, true, nil
}

func (m *memEvents) GetEvent(_ context.Context, id int64) (*channel.Delivery, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.rows[id]
	if !ok {
		return nil, errs.NotFound("channel event", "x")
	}
	return &d, nil
}

func (m *memEvents) UpdateEvent(_ context.Context, id int64, fn func(*channel.Delivery) error) (*channel.Delivery, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.rows[id]
	if err := fn(&d); err != nil {
		return nil, err
	}
	m.rows[id] = d
	return &d, nil
}

func (m *memEvents) ListEvents(context.Context, int64, int64, int) ([]channel.Delivery, error) {
	return nil, errors.New("not used")
}

func (m *memEvents) Conversation(_ context.Context, _ int64, key string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.convs[key], nil
}

func (m *memEvents) BindConversation(_ context.Context, _ int64, key string, id int64) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.convs[key]; !ok {
		m.convs[key] = id
	}
	return m.convs[key], nil
}

func (m *memEvents) RebindConversation(_ context.Context, _ int64, key string, from, to int64) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.convs[key] == from {
		m.convs[key] = to
	}
	return m.convs[key], nil
}

func (m *memEvents) Overviews(context.Context) ([]channel.Overview, error) { return nil, nil }

// published says every bot is published everywhere.
type published struct{}

func (published) ResolvePublished(_ context.Context, id int64, _ string) (*bot.Bot, *bot.Version, error) {
	return &bot.Bot{ID: id}, &bot.Version{BotID: id, Number: 1}, nil
}

// echoTurns answers "echo: <text>" and counts its calls.
type echoTurns struct {
	mu    sync.Mutex
	calls int
}

func (e *echoTurns) Answer(_ context.Context, req channelapp.TurnRequest) (channelapp.TurnAnswer, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls++
	return channelapp.TurnAnswer{ChatID: 100 + int64(e.calls), ConversationID: 7, Text: "echo: " + req.Text}, nil
}

// memQueue keeps what is published.
type memQueue struct {
	mu       sync.Mutex
	payloads [][]byte
}

func (q *memQueue) Publish(_ context.Context, _ string, payload []byte) (string, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.payloads = append(q.payloads, payload)
	return "1", nil
}

// scriptedAdapter receives one event per request and answers sends with
// the errors of script in turn, then nil.
type scriptedAdapter struct {
	notText bool
	script  []error
	sends   []string
}

func (a *scriptedAdapter) Receive(_ context.Context, _ *channel.Channel, in channelapp.Inbound) (channelapp.Reaction, error) {
	var ev struct{ ID, User, Text string }
	_ = json.Unmarshal(in.Body, &ev)
	return channelapp.Reaction{Events: []channelapp.Event{{ID: ev.ID, UserID: ev.User, ConversationKey: ev.User, Text: ev.Text, NotText: a.notText}}}, nil
}

func (a *scriptedAdapter) Deliver(_ context.Context, _ *channel.Channel, _ json.RawMessage, text string) error {
	a.sends = append(a.sends, text)
	if len(a.script) == 0 {
		return nil
	}
	err := a.script[0]
	a.script = a.script[1:]
	return err
}
