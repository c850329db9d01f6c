package metrics

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// QueueStats is what a consumer group has yet to finish of a topic
// (memory.QueueStats and redis.QueueStats).
type QueueStats = struct {
	Depth  int64
	Oldest time.Time
}

// StatsSource reports the stats of a topic's consumer group: memory.Queue
// and redis.Queue implement it.
type StatsSource interface {
	Stats(ctx context.Context, topic, group string) (QueueStats, error)
}

// Queue names one queue to watch: a topic of a source and the consumer
// group that works it.
type Queue struct {
	Name   string // the queue label
	Source StatsSource
	Topic  string
	Group  string
}

// Queues is a collector of queue gauges, read when /metrics is scraped:
// pergola_queue_depth and pergola_queue_oldest_age_seconds by queue.
type Queues struct {
	queues  []Queue
	timeout time.Duration
	log     *slog.Logger
	now     func() time.Time
	depth   *prometheus.Desc
	age     *prometheus.Desc
}

// NewQueues returns the collector of queues; register it on a registry.
func NewQueues(log *slog.Logger, queues ...Queue) *Queues {
	return &Queues{queues: queues, timeout: 2 * time.Second, log: log, now: time.Now,
		depth: prometheus.NewDesc("pergola_queue_depth",
			"Messages of a queue not finished yet (waiting or being handled).", []string{"queue"}, nil),
		age: prometheus.NewDesc("pergola_queue_oldest_age_seconds",
			"Age of the oldest message of a queue not finished yet; 0 when none.", []string{"queue"}, nil),
	}
}

// Describe sends the gauges' descriptions.
func (q *Queues) Describe(ch chan<- *prometheus.Desc) {
	ch <- q.depth
	ch <- q.age
}

// Collect reads every queue's stats; a queue whose source fails is left
// out of this scrape (and logged).
func (q *Queues) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), q.timeout)
	defer cancel()
	for _, qu := range q.queues {
		st, err := qu.Source.Stats(ctx, qu.Topic, qu.Group)
		if err != nil {
			q.log.Warn("queue stats unavailable", "queue", qu.Name, "err", err)
			continue
		}
		age := 0.0
		if !st.Oldest.IsZero() {
			age = max(q.now().Sub(st.Oldest).Seconds(), 0)
		}
		ch <- prometheus.MustNewConstMetric(q.depth, prometheus.GaugeValue, float64(st.Depth), qu.Name)
		ch <- prometheus.MustNewConstMetric(q.age, prometheus.GaugeValue, age, qu.Name)
	}
}
