package chat

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
)

// fakeLiveness records heartbeats and sweeps; beatErr fails heartbeats.
type fakeLiveness struct {
	mu      sync.Mutex
	beats   int
	sweeps  []time.Time
	beatErr error
	forgot  bool
}

func (f *fakeLiveness) Heartbeat(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.beats++
	return f.beatErr
}

func (f *fakeLiveness) FailOrphanedChats(_ context.Context, since time.Time, e conversation.ChatError) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if e.Msg != OrphanedChatMessage {
		return 0, errors.New("unexpected message " + e.Msg)
	}
	f.sweeps = append(f.sweeps, since)
	return 0, nil
}

func (f *fakeLiveness) Forget(context.Context) error { f.forgot = true; return nil }

func TestRecoveryJudgesOthersOnlyWithACurrentView(t *testing.T) {
	const lease = time.Minute
	f := &fakeLiveness{}
	r := &recovery{l: f, lease: lease, log: slog.New(slog.DiscardHandler), lastBeat: time.Now(), judgeFrom: time.Now().Add(lease)}
	r.tick(context.Background())
	if f.beats != 1 || len(f.sweeps) != 0 {
		t.Fatalf("just started: %d beats, %d sweeps; want a beat and no sweep (others may not have beaten yet)", f.beats, len(f.sweeps))
	}
	r.judgeFrom = time.Now().Add(-time.Second)
	r.tick(context.Background())
	if len(f.sweeps) != 1 || time.Since(f.sweeps[0]) < lease {
		t.Fatalf("sweeps %v; want one judging processes silent for a lease", f.sweeps)
	}
	// Cut off from the database for over a lease: beat, but wait a lease.
	r.lastBeat = time.Now().Add(-2 * lease)
	r.tick(context.Background())
	if len(f.sweeps) != 1 || time.Until(r.judgeFrom) < lease-time.Second {
		t.Fatalf("after a gap: %d sweeps, judging from %v; want no sweep for a lease", len(f.sweeps), r.judgeFrom)
	}
	f.beatErr = errors.New("database down")
	r.judgeFrom = time.Now().Add(-time.Second)
	r.tick(context.Background())
	if len(f.sweeps) != 1 {
		t.Fatalf("swept although the heartbeat failed")
	}
}

func TestStartRecoveryNeedsAHeartbeat(t *testing.T) {
	f := &fakeLiveness{beatErr: errors.New("database down")}
	if _, err := StartRecovery(context.Background(), f, time.Second, slog.New(slog.DiscardHandler)); err == nil {
		t.Fatal("StartRecovery succeeded without a heartbeat")
	}
	f.beatErr = nil
	stop, err := StartRecovery(context.Background(), f, 30*time.Millisecond, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	stop()
	if f.beats < 2 || !f.forgot {
		t.Fatalf("%d beats, forgot %v; want periodic beats and the heartbeat forgotten at stop", f.beats, f.forgot)
	}
}

// flakyChats fails EndTurn with err the first fails times.
type flakyChats struct {
	ChatStore
	fails, calls int
	err          error
}

func (f *flakyChats) EndTurn(_ context.Context, outcome *conversation.Chat, _ []*conversation.Message, _ func(*conversation.Chat) error) (*conversation.Chat, error) {
	id := outcome.ID
	f.calls++
	if f.calls <= f.fails {
		return nil, f.err
	}
	return &conversation.Chat{ID: id, Status: conversation.ChatCompleted}, nil
}

func TestEndTurnOutlastsADatabaseRestart(t *testing.T) {
	down := &flakyChats{fails: 2, err: errors.New("sqlstore: finish chat: dial tcp 127.0.0.1:3306: connect: connection refused")}
	s := New(Deps{Chats: down})
	c, err := s.endTurn(context.Background(), &conversation.Chat{ConversationID: 1, ID: 2, Status: conversation.ChatCompleted}, nil, nil)
	if err != nil || c.Status != conversation.ChatCompleted || down.calls != 3 {
		t.Fatalf("got %v, %v after %d calls; want the chat recorded on the third", c, err, down.calls)
	}
	stored := &flakyChats{fails: 1, err: fmt.Errorf("x: %w", errs.Conflict("chat 2: its messages are already stored"))}
	s = New(Deps{Chats: stored})
	if _, err := s.endTurn(context.Background(), &conversation.Chat{ConversationID: 1, ID: 2, Status: conversation.ChatCompleted}, nil, nil); !errors.Is(err, errs.ErrConflict) || stored.calls != 1 {
		t.Fatalf("a conflict was retried (%d calls) or lost: %v", stored.calls, err)
	}
}
