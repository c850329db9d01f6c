package knowledge

import (
	"context"
	"time"
)

// Gate gives each workspace its share of this process's indexing
// workers (fairshare.Limiter): Enter takes a turn for a workspace, waiting
// at most wait; leave ends it. Errors: a refusal, or ctx's error.
type Gate interface {
	Enter(ctx context.Context, workspaceID int64, wait time.Duration) (leave func(), err error)
}

// ShareWait is how long a queued document whose workspace holds its whole
// share of the workers waits for a turn before it goes back to the end of
// the queue: short, so that one workspace's hundred documents do not keep
// another's one waiting behind them.
const ShareWait = 100 * time.Millisecond

// takeShare takes a turn of the workers for a document of workspaceID
// (0 for messages queued before documents named their workspace: they
// share one line). When none comes within ShareWait, the document is
// queued again at the end and ok is false: the message in hand is done.
func (s *Service) takeShare(ctx context.Context, workspaceID int64, payload []byte) (leave func(), ok bool, err error) {
	if s.d.Shares == nil {
		return func() {}, true, nil
	}
	leave, err = s.d.Shares.Enter(ctx, workspaceID, ShareWait)
	if err == nil {
		return leave, true, nil
	}
	if ctx.Err() != nil {
		return nil, false, ctx.Err()
	}
	if _, err := s.d.Queue.Publish(ctx, IndexTopic, payload); err != nil {
		return nil, false, err // the queue gives the message in hand again later
	}
	return nil, false, nil
}
