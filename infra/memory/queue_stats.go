package memory

import (
	"context"
	"time"
)

// QueueStats is what a consumer group of a topic has yet to finish: Depth
// counts the messages it has not acknowledged (waiting or being handled),
// Oldest is when the oldest of them was published (zero when none).
//
// QueueStats aliases an unnamed struct type shared with package redis.
type QueueStats = struct {
	Depth  int64
	Oldest time.Time
}

// Stats returns what group has yet to finish of topic. A group that has
// not consumed yet has every retained message still to do.
func (q *Queue) Stats(_ context.Context, topicName, groupName string) (QueueStats, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	t, ok := q.topics[topicName]
	if !ok {
		return QueueStats{}, nil
	}
	g, ok := t.groups[groupName]
	if !ok {
		st := QueueStats{Depth: int64(len(t.log))}
		if len(t.log) > 0 {
			st.Oldest = t.log[0].at
		}
		return st, nil
	}
	st := QueueStats{Depth: int64(len(g.pending)) + int64(t.nextSeq-g.cursor)}
	if g.cursor < t.nextSeq {
		st.Oldest = t.log[g.cursor-t.firstSeq()].at
	}
	for _, p := range g.pending {
		if st.Oldest.IsZero() || p.at.Before(st.Oldest) {
			st.Oldest = p.at
		}
	}
	return st, nil
}
