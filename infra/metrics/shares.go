package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// ShareWaits records how long work waited for a turn in a pool every
// workspace shares (code nodes, model calls, channel events, knowledge
// documents), by pool and outcome (ran, refused, canceled):
// pergola_share_wait_seconds.
type ShareWaits struct{ h *prometheus.HistogramVec }

// shareBuckets start below a millisecond: most turns are taken at once.
var shareBuckets = []float64{.0001, .0005, .001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// NewShareWaits registers the histogram on reg.
func NewShareWaits(reg prometheus.Registerer) *ShareWaits {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "pergola_share_wait_seconds",
		Help:    "Time work waited for a turn in a shared pool (code, python, model, channel, knowledge), by pool and outcome (ran, refused, canceled).",
		Buckets: shareBuckets}, []string{"pool", "outcome"})
	reg.MustRegister(h)
	return &ShareWaits{h: h}
}

// Observe records one wait; it suits fairshare.Config.Observe.
func (s *ShareWaits) Observe(pool string, wait time.Duration, outcome string) {
	s.h.WithLabelValues(pool, outcome).Observe(wait.Seconds())
}
