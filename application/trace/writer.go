package trace

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	domaintrace "github.com/pergola-ai/pergola/domain/trace"
)

// Record and Store are the domain's.
type (
	Record = domaintrace.Record
	Store  = domaintrace.Store
)

// Exporter sends finished traces elsewhere (OTLP). Export is called on
// the writer's goroutine.
type Exporter interface {
	Export(ctx context.Context, traces []*Trace) error
}

// MaxTreeBytes bounds a stored tree; a larger one is stored without its
// content attributes, and without its spans past the first level if that
// is still too large.
const MaxTreeBytes = 1 << 20

// WriterConfig sets up a Writer.
type WriterConfig struct {
	Store     Store      // nil: traces are not stored
	Exporters []Exporter // may be empty
	// Queue bounds the traces waiting to be written (default 1024);
	// Batch the traces per write (default 64).
	Queue  int
	Batch  int
	OnDrop func() // called for each trace dropped because the queue was full
	Log    *slog.Logger
}

// Writer stores and exports finished traces on a goroutine of its own, in
// batches. When its queue is full it drops the trace, calls OnDrop and
// logs the first drop: a trace never slows a run.
type Writer struct {
	cfg     WriterConfig
	ch      chan *Trace
	done    chan struct{}
	logOnce sync.Once
	closing sync.Once
}

// NewWriter starts a writer; Close stops it.
func NewWriter(cfg WriterConfig) *Writer {
	if cfg.Queue <= 0 {
		cfg.Queue = 1024
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 64
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	w := &Writer{cfg: cfg, ch: make(chan *Trace, cfg.Queue), done: make(chan struct{})}
	go w.loop()
	return w
}

// Record queues t, or drops it when the queue is full.
func (w *Writer) Record(t *Trace) {
	select {
	case w.ch <- t:
	default:
		if w.cfg.OnDrop != nil {
			w.cfg.OnDrop()
		}
		w.logOnce.Do(func() {
			w.cfg.Log.Warn("trace dropped: the trace queue is full (counted in pergola_traces_dropped_total)", "trace", t.ID)
		})
	}
}

// Close writes what is queued and stops, or gives up when ctx ends.
func (w *Writer) Close(ctx context.Context) error {
	w.closing.Do(func() { close(w.ch) })
	select {
	case <-w.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (w *Writer) loop() {
	defer close(w.done)
	for t := range w.ch {
		batch := []*Trace{t}
		for len(batch) < w.cfg.Batch {
			next, ok := w.take()
			if !ok {
				break
			}
			batch = append(batch, next)
		}
		w.write(batch)
	}
}

// take returns a queued trace without waiting.
func (w *Writer) take() (*Trace, bool) {
	select {
	case t, ok := <-w.ch:
		return t, ok
	default:
		return nil, false
	}
}

func (w *Writer) write(batch []*Trace) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if w.cfg.Store != nil {
		recs := make([]Record, len(batch))
		for i, t := range batch {
			recs[i] = Record{TraceID: t.ID, WorkspaceID: t.WorkspaceID, Kind: t.Kind, CreatedAt: t.Root.Start, Tree: encodeTree(t.Root)}
		}
		if err := w.cfg.Store.SaveTraces(ctx, recs); err != nil {
			w.cfg.Log.Warn("traces not stored", "count", len(recs), "err", err)
		}
	}
	for _, e := range w.cfg.Exporters {
		if err := e.Export(ctx, batch); err != nil {
			w.cfg.Log.Warn("traces not exported", "count", len(batch), "err", err)
		}
	}
}

// encodeTree returns root as JSON within MaxTreeBytes.
func encodeTree(root *Span) []byte {
	b, _ := json.Marshal(root)
	if len(b) <= MaxTreeBytes {
		return b
	}
	slim := strip(root, 1<<30)
	if b, _ = json.Marshal(slim); len(b) <= MaxTreeBytes {
		return b
	}
	b, _ = json.Marshal(strip(root, 1))
	return b
}

// strip copies s without content attributes, keeping depth levels of
// children.
func strip(s *Span, depth int) *Span {
	c := *s
	c.Attributes = map[string]any{AttrTruncated: true}
	for k, v := range s.Attributes {
		if !IsContent(k) {
			c.Attributes[k] = v
		}
	}
	c.Children = []*Span{}
	if depth > 0 {
		for _, ch := range s.Children {
			c.Children = append(c.Children, strip(ch, depth-1))
		}
	}
	return &c
}
