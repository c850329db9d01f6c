package workflow

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/pergola-ai/pergola/domain/workflow"
	wf "github.com/pergola-ai/pergola/workflow"
)

// History is the engine's history sink for runs stored while they run
// (async and interruptible ones): it writes node records in batches from
// a goroutine of its own, so a run never waits on the database for a
// node. The writer sleeps until a record comes, then writes it with all
// that queued meanwhile: records that come while a batch is written form
// the next one. Flush waits until what was recorded before it is
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
// largest batch, and the bytes of a node's inputs or outputs kept.
const (
	historyQueue   = 8192
	historyBatch   = 200
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
	nr := nodeRun(rec, seq.(*atomic.Int64).Add(1), h.maxData)
	h.mu.RLock()
	defer h.mu.RUnlock()
	if !h.closed {
		h.in <- histItem{rec: &nr}
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

// loop writes what comes in until Close: it waits for an item, takes
// those queued behind it (up to a batch), writes them and answers the
// flushes among them.
func (h *History) loop() {
	defer close(h.done)
	var batch []workflow.NodeRun
	var flushes []chan struct{}
	for it := range h.in {
		batch, flushes = h.take(it, batch[:0], flushes[:0])
		h.write(batch)
		for _, f := range flushes {
			close(f)
		}
	}
}

// take adds it and the items queued behind it to batch, up to
// historyBatch records, and collects the flush requests.
func (h *History) take(it histItem, batch []workflow.NodeRun, flushes []chan struct{}) ([]workflow.NodeRun, []chan struct{}) {
	for {
		if it.rec != nil {
			batch = append(batch, *it.rec)
		}
		if it.flush != nil {
			flushes = append(flushes, it.flush)
		}
		if len(batch) >= historyBatch {
			return batch, flushes
		}
		var ok bool
		select {
		case it, ok = <-h.in:
			if !ok {
				return batch, flushes
			}
		default:
			return batch, flushes
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

// nodeRun turns an engine record into a stored one, numbered seq, its
// inputs and outputs cut to maxData bytes.
func nodeRun(rec wf.NodeRecord, seq int64, maxData int) workflow.NodeRun {
	return workflow.NodeRun{RunID: rec.RunID, Seq: seq, NodeID: rec.NodeID, Type: rec.Type, Title: rec.Title,
		Parent: rec.Parent, Index: rec.Index, Status: string(rec.Status), Handled: rec.Handled,
		Input: encodeData(rec.Inputs, maxData), Output: encodeData(rec.Outputs, maxData), Error: rec.Error, Logs: rec.Logs,
		StartedAt: rec.StartedAt, Duration: rec.Duration, InputTokens: rec.Usage.InputTokens,
		OutputTokens: rec.Usage.OutputTokens, Attempts: rec.Attempts}
}

// encodeData writes a node's inputs or outputs as JSON, cut to a preview
// when longer than maxData.
func encodeData(v map[string]any, maxData int) string {
	if v == nil {
		return ""
	}
	b, err := marshalData(v)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"unencodable": err.Error()})
	}
	if len(b) <= maxData {
		return string(b)
	}
	cut, _ := json.Marshal(map[string]any{"truncated": true, "bytes": len(b), "preview": string(b[:maxData/2])})
	return string(cut)
}
