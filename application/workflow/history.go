package workflow

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pergola-ai/pergola/domain/workflow"
	wf "github.com/pergola-ai/pergola/workflow"
)

// History is the engine's history sink: it writes node records in
// batches from a goroutine of its own, so a run never waits on the
// database for a node. Flush waits until what was recorded before it is
// written, which a run does once, when it ends.
type History struct {
	runs    workflow.RunStore
	log     *slog.Logger
	in      chan histItem
	done    chan struct{}
	seqs    sync.Map // run id → *atomic.Int64
	mu      sync.RWMutex
	closed  bool
	maxData int
}

// histItem is a record to write, or a flush request.
type histItem struct {
	rec   *workflow.NodeRun
	flush chan struct{}
}

// History tuning: the queue length (a full queue makes runs wait), the
// largest batch, how long records wait for more, and the bytes of a
// node's inputs or outputs kept.
const (
	historyQueue   = 8192
	historyBatch   = 200
	historyLinger  = 20 * time.Millisecond
	historyMaxData = 64 << 10
)

var _ wf.HistorySink = (*History)(nil)

// NewHistory starts a writer over runs; Close stops it.
func NewHistory(runs workflow.RunStore, log *slog.Logger) *History {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &History{runs: runs, log: log, in: make(chan histItem, historyQueue), done: make(chan struct{}), maxData: historyMaxData}
	go h.loop()
	return h
}

// NodeFinished queues a node's record, numbered in the order its run's
// nodes finished.
func (h *History) NodeFinished(_ context.Context, rec wf.NodeRecord) {
	seq, _ := h.seqs.LoadOrStore(rec.RunID, new(atomic.Int64))
	nr := h.convert(rec, seq.(*atomic.Int64).Add(1))
	h.mu.RLock()
	defer h.mu.RUnlock()
	if !h.closed {
		h.in <- histItem{rec: nr}
	}
}

// Flush waits until every record queued before it is written.
func (h *History) Flush(ctx context.Context) error {
	done := make(chan struct{})
	h.mu.RLock()
	if h.closed {
		h.mu.RUnlock()
		return nil
	}
	select {
	case h.in <- histItem{flush: done}:
	case <-ctx.Done():
		h.mu.RUnlock()
		return ctx.Err()
	}
	h.mu.RUnlock()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Continue numbers the next records of a run after seq: a run resumed or
// restarted on this process goes on after the records stored before.
func (h *History) Continue(runID, seq int64) {
	n := new(atomic.Int64)
	n.Store(seq)
	h.seqs.Store(runID, n)
}

// Forget drops the numbering of a finished run.
func (h *History) Forget(runID int64) { h.seqs.Delete(runID) }

// Close writes what is queued and stops the writer.
func (h *History) Close() {
	h.mu.Lock()
	if !h.closed {
		h.closed = true
		close(h.in)
	}
	h.mu.Unlock()
	<-h.done
}

func (h *History) loop() {
	defer close(h.done)
	var batch []workflow.NodeRun
	tick := time.NewTicker(historyLinger)
	defer tick.Stop()
	for {
		select {
		case it, ok := <-h.in:
			if !ok {
				h.write(batch)
				return
			}
			if it.rec != nil {
				batch = append(batch, *it.rec)
			}
			if it.flush != nil || len(batch) >= historyBatch {
				h.write(batch)
				batch = batch[:0]
			}
			if it.flush != nil {
				close(it.flush)
			}
		case <-tick.C:
			if len(batch) > 0 {
				h.write(batch)
				batch = batch[:0]
			}
		}
	}
}

// write stores a batch; when the batch fails, each run's records are
// tried alone so one bad run does not lose the others'.
func (h *History) write(batch []workflow.NodeRun) {
	if len(batch) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), finishTimeout)
	defer cancel()
	if err := h.runs.AddNodeRuns(ctx, batch); err == nil {
		return
	}
	byRun := map[int64][]workflow.NodeRun{}
	for _, r := range batch {
		byRun[r.RunID] = append(byRun[r.RunID], r)
	}
	for id, recs := range byRun {
		if err := h.runs.AddNodeRuns(ctx, recs); err != nil {
			h.log.Error("workflow node records lost", "run", id, "records", len(recs), "err", err)
		}
	}
}

// convert turns an engine record into a stored one.
func (h *History) convert(rec wf.NodeRecord, seq int64) *workflow.NodeRun {
	return &workflow.NodeRun{RunID: rec.RunID, Seq: seq, NodeID: rec.NodeID, Type: rec.Type, Title: rec.Title,
		Parent: rec.Parent, Index: rec.Index, Status: string(rec.Status), Handled: rec.Handled,
		Input: h.encode(rec.Inputs), Output: h.encode(rec.Outputs), Error: rec.Error, Logs: rec.Logs,
		StartedAt: rec.StartedAt, Duration: rec.Duration, InputTokens: rec.Usage.InputTokens,
		OutputTokens: rec.Usage.OutputTokens, Attempts: rec.Attempts}
}

// encode writes a node's inputs or outputs as JSON, cut to a preview when
// too large to keep.
func (h *History) encode(v map[string]any) string {
	if v == nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"unencodable": err.Error()})
	}
	if len(b) <= h.maxData {
		return string(b)
	}
	cut, _ := json.Marshal(map[string]any{"truncated": true, "bytes": len(b), "preview": string(b[:h.maxData/2])})
	return string(cut)
}
