package pyrun

import "time"

// demand counts the runs that took a sandbox within the last window,
// remembering at most keep of them (the pool never keeps more warm).
type demand struct {
	window time.Duration
	keep   int
	takes  []time.Time // oldest first
}

// note counts a take at now.
func (d *demand) note(now time.Time) {
	if len(d.takes) >= d.keep && len(d.takes) > 0 {
		copy(d.takes, d.takes[1:])
		d.takes = d.takes[:len(d.takes)-1]
	}
	d.takes = append(d.takes, now)
}

// count is how many takes fell within the window before now.
func (d *demand) count(now time.Time) int {
	n := 0
	for _, t := range d.takes {
		if now.Sub(t) < d.window {
			n++
		}
	}
	return n
}
