package redis

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// QueueStats is what a consumer group of a topic has yet to finish: Depth
// counts the entries it has not acknowledged (waiting or being handled),
// Oldest is when the oldest of them was published (zero when none).
//
// QueueStats aliases an unnamed struct type shared with package memory.
type QueueStats = struct {
	Depth  int64
	Oldest time.Time
}

// Stats returns what group has yet to finish of topic, in a few O(1) or
// O(log n) commands (XINFO GROUPS, XPENDING's summary, XRANGE COUNT 1): an
// entry's ID carries the millisecond it was published. A group that has
// not consumed yet has the whole stream still to do.
func (q *Queue) Stats(ctx context.Context, topic, group string) (QueueStats, error) {
	stream := q.keys.name("queue", topic)
	groups, err := q.client.XInfoGroups(ctx, stream).Result()
	if err != nil && !strings.Contains(err.Error(), "no such key") {
		return QueueStats{}, fail("stats of "+topic, err)
	}
	for _, g := range groups {
		if g.Name == group {
			return q.groupStats(ctx, stream, g)
		}
	}
	n, err := q.client.XLen(ctx, stream).Result()
	if err != nil || n == 0 {
		return QueueStats{}, failIf("stats of "+topic, err)
	}
	first, err := q.firstAfter(ctx, stream, "-")
	return QueueStats{Depth: n, Oldest: first}, failIf("stats of "+topic, err)
}

// groupStats counts the group's pending entries and those it has not
// read (the lag; when Redis cannot tell it, the stream's length bounds it).
func (q *Queue) groupStats(ctx context.Context, stream string, g goredis.XInfoGroup) (QueueStats, error) {
	lag := g.Lag
	if lag < 0 {
		n, err := q.client.XLen(ctx, stream).Result()
		if err != nil {
			return QueueStats{}, fail("stats of "+stream, err)
		}
		lag = n - g.Pending
	}
	st := QueueStats{Depth: g.Pending + lag}
	var err error
	switch {
	case g.Pending > 0:
		var p *goredis.XPending
		if p, err = q.client.XPending(ctx, stream, g.Name).Result(); err == nil {
			st.Oldest = idTime(p.Lower)
		}
	case lag > 0:
		st.Oldest, err = q.firstAfter(ctx, stream, "("+g.LastDeliveredID)
	}
	return st, failIf("stats of "+stream, err)
}

// firstAfter returns when the first entry from start on was published.
func (q *Queue) firstAfter(ctx context.Context, stream, start string) (time.Time, error) {
	msgs, err := q.client.XRangeN(ctx, stream, start, "+", 1).Result()
	if err != nil || len(msgs) == 0 {
		return time.Time{}, err
	}
	return idTime(msgs[0].ID), nil
}

// idTime is the time a stream entry ID carries ("<ms>-<seq>").
func idTime(id string) time.Time {
	ms, _, _ := strings.Cut(id, "-")
	n, err := strconv.ParseInt(ms, 10, 64)
	if err != nil {
		return time.Time{}
	}
	return time.UnixMilli(n)
}

func failIf(op string, err error) error {
	if err == nil || errors.Is(err, goredis.Nil) {
		return nil
	}
	return fail(op, err)
}
