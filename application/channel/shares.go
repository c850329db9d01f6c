package channel

import (
	"context"
	"time"
)

// Gate gives each workspace its share of this process's channel workers
// (fairshare.Limiter): Enter takes a turn for a workspace, waiting at most
// wait; leave ends it. Errors: a refusal, or ctx's error.
type Gate interface {
	Enter(ctx context.Context, workspaceID int64, wait time.Duration) (leave func(), err error)
}

// ShareWait is how long a queued event whose workspace holds its whole
// share of the workers waits for a turn before it goes back to the end of
// the queue: short, so that the workers soon reach the events of other
// workspaces queued behind a busy one's.
const ShareWait = 100 * time.Millisecond

// takeShare takes a turn of the workers for workspaceID, the channel's.
// When none comes within ShareWait, the event is queued again at the end
// and ok is false: the message in hand is done. Without Shares every
// event has its turn.
func (r *Runtime) takeShare(ctx context.Context, workspaceID int64, payload []byte) (leave func(), ok bool, err error) {
	if r.d.Shares == nil {
		return func() {}, true, nil
	}
	leave, err = r.d.Shares.Enter(ctx, workspaceID, ShareWait)
	if err == nil {
		return leave, true, nil
	}
	if ctx.Err() != nil {
		return nil, false, ctx.Err()
	}
	if _, err := r.d.Queue.Publish(ctx, EventTopic, payload); err != nil {
		return nil, false, err // the queue gives the message in hand again later
	}
	return nil, false, nil
}
