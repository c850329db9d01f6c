package workflow

import (
	"cmp"
	"slices"
	"strconv"
)

// Several interrupts can wait at once: question nodes on parallel
// branches, or the items of a batch that each ask. A run stops only once
// every branch and item still running has asked or finished, and then
// surfaces one interrupt, as Coze Studio does: the oldest. The checkpoint
// keeps the waiting ones in that order (Checkpoint.Pending). A resume
// answers the surfaced interrupt; the others are asked again by the
// resumed run (their nodes run again, the nodes before them are replayed),
// keep their place in the queue, and the interrupts the run asks for the
// first time queue behind them, in the order of their places in the run.

// interrupt notes an interrupt of the run.
func (rc *runCtx) interrupt(in *Interrupt) {
	rc.mu.Lock()
	rc.asked = append(rc.asked, in)
	rc.mu.Unlock()
}

// interrupted returns the first interrupt the run asked, or nil when no
// node asked.
func (rc *runCtx) interrupted() *Interrupt {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.asked) == 0 {
		return nil
	}
	return rc.asked[0]
}

// pending returns the interrupts waiting for an answer, oldest first.
func (rc *runCtx) pending() []*Interrupt {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.pendingLocked()
}

// pendingLocked orders the interrupts of the run: those that already
// waited before this resume in their order, then the new ones by place.
// rc.mu is held.
func (rc *runCtx) pendingLocked() []*Interrupt {
	byKey := make(map[string]*Interrupt, len(rc.asked))
	for _, in := range rc.asked {
		if _, dup := byKey[in.Key]; !dup {
			byKey[in.Key] = in
		}
	}
	out := make([]*Interrupt, 0, len(byKey))
	if rc.in.Resume != nil {
		for _, k := range rc.in.Resume.Pending {
			if in, ok := byKey[k]; ok {
				out = append(out, in)
				delete(byKey, k)
			}
		}
	}
	fresh := make([]*Interrupt, 0, len(byKey))
	for _, in := range byKey {
		fresh = append(fresh, in)
	}
	slices.SortFunc(fresh, func(a, b *Interrupt) int { return comparePlaces(a.Key, b.Key) })
	return append(out, fresh...)
}

// comparePlaces orders node keys as the run lays them out: the numbers of
// loop iterations and batch items by value ("#2" before "#10").
func comparePlaces(a, b string) int {
	for a != "" && b != "" {
		na, ra := leadingNumber(a)
		nb, rb := leadingNumber(b)
		switch {
		case ra != a && rb != b: // both start with a number
			if na != nb {
				return cmp.Compare(na, nb)
			}
			a, b = ra, rb
		case a[0] != b[0]:
			return cmp.Compare(int(a[0]), int(b[0]))
		default:
			a, b = a[1:], b[1:]
		}
	}
	return cmp.Compare(len(a), len(b))
}

// leadingNumber reads the digits s starts with; rest is s after them.
func leadingNumber(s string) (n int, rest string) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, s
	}
	n, err := strconv.Atoi(s[:i])
	if err != nil { // too long to be an index: order it last
		n = int(^uint(0) >> 1)
	}
	return n, s[i:]
}
