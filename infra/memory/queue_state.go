package memory

import (
	"strconv"
	"time"
)

// trimEvery is how many acknowledgements a topic lets pass before it drops
// the messages every group has acknowledged; a full topic trims at once.
const trimEvery = 256

// topic is one queue: a log of retained messages and the groups reading it.
// Every field is guarded by Queue.mu.
type topic struct {
	log     []entry // retained messages, oldest first, consecutive seqs
	nextSeq uint64  // seq the next published message gets
	groups  map[string]*group
	wake    chan struct{} // closed (and replaced) when there is news
	acks    int           // acknowledgements since the last trim
}

type entry struct {
	seq     uint64
	payload []byte
	at      time.Time // when it was published
}

// group is a consumer group: a cursor into the log plus the messages
// delivered to it and not yet acknowledged, like a Redis stream's PEL.
type group struct {
	cursor  uint64 // seq of the oldest message never delivered to the group
	pending map[uint64]*pending
}

type pending struct {
	payload    []byte
	deliveries int
	running    bool      // a handler has it now; it cannot time out
	idleSince  time.Time // when a handler gave it back unacknowledged
	at         time.Time // when it was published
}

func newTopic() *topic {
	return &topic{nextSeq: 1, groups: make(map[string]*group), wake: make(chan struct{})}
}

// firstSeq is the seq of the oldest retained message (nextSeq if none).
func (t *topic) firstSeq() uint64 {
	if len(t.log) == 0 {
		return t.nextSeq
	}
	return t.log[0].seq
}

// append adds payload to the log and returns its seq, unless limit
// messages still wait for some group: then it reports false and keeps
// nothing.
func (t *topic) append(payload []byte, limit int) (uint64, bool) {
	if len(t.log) >= limit {
		t.trim()
		if len(t.log) >= limit {
			return 0, false
		}
	}
	seq := t.nextSeq
	t.nextSeq++
	t.log = append(t.log, entry{seq: seq, payload: payload, at: time.Now()})
	t.broadcast()
	return seq, true
}

// trim drops the oldest messages that every group has acknowledged. A
// topic without groups keeps everything: a group created later reads it.
func (t *topic) trim() {
	t.acks = 0
	if len(t.groups) == 0 {
		return
	}
	low := t.nextSeq
	for _, g := range t.groups {
		low = min(low, g.oldest())
	}
	if low <= t.firstSeq() {
		return
	}
	n := int(low - t.firstSeq())
	clear(t.log[:n]) // let the payloads go before append reallocates
	t.log = t.log[n:]
}

// oldest is the seq of the oldest message the group still needs: its
// oldest pending one, or the first it has not read.
func (g *group) oldest() uint64 {
	low := g.cursor
	for seq := range g.pending {
		low = min(low, seq)
	}
	return low
}

func (t *topic) broadcast() {
	close(t.wake)
	t.wake = make(chan struct{})
}

// group returns the named group, creating it at the start of the retained
// log (as XGROUP CREATE ... 0 does) if it is new.
func (t *topic) group(name string) *group {
	g, ok := t.groups[name]
	if !ok {
		g = &group{cursor: t.firstSeq(), pending: make(map[uint64]*pending)}
		t.groups[name] = g
	}
	return g
}

// next hands out the oldest timed-out pending message, else the next new
// one. With nothing to hand out it returns how long until a pending message
// times out, or -1 if none will without news.
func (t *topic) next(g *group, visibility time.Duration, now time.Time) (msg Message, ok bool, wait time.Duration) {
	seq, p, wait := g.timedOut(visibility, now)
	if p != nil {
		p.running = true
		p.deliveries++
		return delivery(seq, p), true, 0
	}
	if g.cursor >= t.nextSeq {
		return Message{}, false, wait
	}
	e := t.log[g.cursor-t.firstSeq()]
	g.cursor++
	p = &pending{payload: e.payload, deliveries: 1, running: true, at: e.at}
	g.pending[e.seq] = p
	return delivery(e.seq, p), true, 0
}

// timedOut returns the oldest pending message idle for visibility or more,
// or else how long until the first one will be (-1: none).
func (g *group) timedOut(visibility time.Duration, now time.Time) (uint64, *pending, time.Duration) {
	var (
		best     uint64
		bestP    *pending
		earliest = time.Duration(-1)
	)
	for seq, p := range g.pending {
		if p.running {
			continue
		}
		if left := p.idleSince.Add(visibility).Sub(now); left > 0 {
			if earliest < 0 || left < earliest {
				earliest = left
			}
			continue
		}
		if bestP == nil || seq < best {
			best, bestP = seq, p
		}
	}
	return best, bestP, earliest
}

// settle acknowledges a delivered message or hands it back to time out.
func (t *topic) settle(g *group, seq uint64, ack bool, now time.Time) {
	p, ok := g.pending[seq]
	if !ok {
		return
	}
	if ack {
		delete(g.pending, seq)
		if t.acks++; t.acks >= trimEvery {
			t.trim()
		}
		return
	}
	p.running = false
	p.idleSince = now
	t.broadcast() // waiters must re-arm their timers for this message
}

func delivery(seq uint64, p *pending) Message {
	return Message{ID: strconv.FormatUint(seq, 10), Payload: clone(p.payload), Deliveries: p.deliveries}
}
