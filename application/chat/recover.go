package chat

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
)

// Liveness is what crash recovery needs of the chat store: this process's
// heartbeat, and the chats in progress of the processes whose heartbeat
// stopped (sqlstore.ChatStore made WithInstance implements it).
type Liveness interface {
	// Heartbeat records that this process is alive now.
	Heartbeat(ctx context.Context) error
	// FailOrphanedChats fails, with e, the chats in progress of other
	// processes that have not beaten since aliveSince.
	FailOrphanedChats(ctx context.Context, aliveSince time.Time, e conversation.ChatError) (int64, error)
	// Forget removes this process's heartbeat on a clean stop.
	Forget(ctx context.Context) error
}

// OrphanedChatMessage is the last error of a chat whose process stopped
// while it ran: the end user may ask again.
const OrphanedChatMessage = "the bot could not answer: the server running this chat stopped; please send your message again"

// StartRecovery records this process as alive, then keeps its heartbeat
// every lease/3 and fails the chats in progress of processes silent for a
// lease, until the returned stop is called (it forgets the heartbeat). A
// killed process's chats therefore end failed within about two leases,
// never stuck in progress. A process that was itself cut off from the
// database for over a lease waits one more lease before judging others,
// so that live processes cut off with it can beat again first. It fails
// when the first heartbeat cannot be written.
func StartRecovery(ctx context.Context, l Liveness, lease time.Duration, log *slog.Logger) (stop func(), err error) {
	if err := l.Heartbeat(ctx); err != nil {
		return nil, err
	}
	r := &recovery{l: l, lease: lease, log: log, lastBeat: time.Now(), judgeFrom: time.Now().Add(lease)}
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.loop(rctx)
	}()
	return func() {
		cancel()
		<-done
		fctx, fcancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer fcancel()
		_ = l.Forget(fctx)
	}, nil
}

type recovery struct {
	l         Liveness
	lease     time.Duration
	log       *slog.Logger
	lastBeat  time.Time // the last heartbeat written
	judgeFrom time.Time // no sweep before: others may not have beaten yet
}

func (r *recovery) loop(ctx context.Context) {
	t := time.NewTicker(r.lease / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		r.tick(ctx)
	}
}

// tick beats, and sweeps when this process's own view is current.
func (r *recovery) tick(ctx context.Context) {
	now := time.Now()
	if err := r.l.Heartbeat(ctx); err != nil {
		if ctx.Err() == nil {
			r.log.Warn("chat recovery: heartbeat not written; retrying", "err", err)
		}
		return
	}
	if now.Sub(r.lastBeat) > r.lease {
		r.judgeFrom = now.Add(r.lease)
	}
	r.lastBeat = now
	if now.Before(r.judgeFrom) {
		return
	}
	n, err := r.l.FailOrphanedChats(ctx, now.Add(-r.lease), conversation.ChatError{Code: 5000, Msg: OrphanedChatMessage})
	if err != nil && ctx.Err() == nil {
		r.log.Warn("chat recovery: sweeping orphaned chats failed", "err", err)
	}
	if n > 0 {
		r.log.Info("chat recovery: failed the chats of processes that stopped", "chats", n)
	}
}

// finishRetryFor bounds how long the end of a chat is retried while the
// database does not answer.
const finishRetryFor = 2 * time.Minute

// endTurn is Chats.EndTurn retried with backoff for up to finishRetryFor
// when the store fails (the database restarting): the answer is kept
// rather than lost, and the chat does not stay in progress on a live
// process. Messages carry their ids, so a retry after a commit whose
// answer was lost stores nothing twice (it fails as a duplicate).
func (s *Service) endTurn(ctx context.Context, outcome *conversation.Chat, msgs []*conversation.Message,
	fallback func(*conversation.Chat) error) (*conversation.Chat, error) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), finishRetryFor)
	defer cancel()
	wait := 250 * time.Millisecond
	for {
		c, err := s.d.Chats.EndTurn(wctx, outcome, msgs, fallback)
		if err == nil || !retryable(err) || wctx.Err() != nil {
			return c, err
		}
		s.d.Log.WarnContext(wctx, "chat: recording the outcome failed; retrying", "chat_id", outcome.ID, "err", err)
		sleepOrDone(wctx, wait)
		wait = min(2*wait, 4*time.Second)
	}
}

// retryable reports whether a store error may pass: not an answer of the
// domain (the chat is gone, or its messages already stored).
func retryable(err error) bool {
	return !errors.Is(err, errs.ErrNotFound) && !errors.Is(err, errs.ErrConflict) && !errors.Is(err, errs.ErrInvalid) &&
		!errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

func sleepOrDone(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
