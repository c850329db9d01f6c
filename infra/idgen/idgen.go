// Package idgen hands out the int64 identifiers of stored rows.
//
// An ID is snowflake-shaped: 41 bits of milliseconds since 2024-01-01 UTC,
// 10 bits of node chosen at random when the generator is made, and 12 bits of
// sequence. IDs from one generator are strictly increasing, and IDs from
// different processes sort roughly by creation time, so rows can be paged and
// ordered by ID alone.
package idgen

import (
	"math/rand/v2"
	"sync"
	"time"
)

const (
	nodeBits     = 10
	sequenceBits = 12
	maxSequence  = 1<<sequenceBits - 1

	// A new millisecond starts its sequence at a random value below this
	// bound, so two processes that happen to draw the same node rarely hand
	// out the same ID; the upper half stays free for bursts.
	sequenceStartSpan = 1 << (sequenceBits - 1)
)

// epoch is 2024-01-01T00:00:00Z in Unix milliseconds; 41 bits of
// milliseconds from it last until 2093.
const epoch int64 = 1704067200000

// Generator makes IDs. It is safe for concurrent use.
type Generator struct {
	mu   sync.Mutex
	node int64
	last int64 // milliseconds since epoch of the last ID
	seq  int64
	now  func() time.Time
}

// New returns a generator with random node bits.
func New() *Generator {
	return &Generator{node: rand.Int64N(1 << nodeBits), now: time.Now}
}

// Next returns a fresh positive ID, greater than every ID this generator
// returned before. It never blocks: when the clock goes backwards it keeps
// counting from the last millisecond it used, and when a millisecond's
// sequence is exhausted it moves on to the next millisecond early.
func (g *Generator) Next() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	ms := g.now().UnixMilli() - epoch
	switch {
	case ms > g.last:
		g.last = ms
		g.seq = rand.Int64N(sequenceStartSpan)
	case g.seq < maxSequence:
		g.seq++
	default:
		g.last++
		g.seq = 0
	}
	return g.last<<(nodeBits+sequenceBits) | g.node<<sequenceBits | g.seq
}
