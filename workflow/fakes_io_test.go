package workflow

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
)

// fakeTables is an in-memory TableQuerier: rows per table, conditions
// compared for equality, custom SQL echoed with its bound arguments.
type fakeTables struct {
	mu     sync.Mutex
	tables map[string][]map[string]any
}

func (f *fakeTables) QueryTable(_ context.Context, q TableQuery) (*TableResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := fmt.Sprint(q.TableID)
	rows, ok := f.tables[key]
	if !ok {
		return nil, errs.NotFound("table", key)
	}
	match := func(r map[string]any) bool { return q.Where == nil || whereHolds(q.Where, r) }
	res := &TableResult{}
	switch q.Op {
	case TableSelect:
		for _, r := range rows {
			if match(r) && (q.Limit == 0 || len(res.Rows) < q.Limit) {
				res.Rows = append(res.Rows, r)
			}
		}
	case TableInsert:
		f.tables[key] = append(rows, q.Values)
		res.RowsAffected = 1
	case TableUpdate:
		for _, r := range rows {
			if match(r) {
				for k, v := range q.Values {
					r[k] = v
				}
				res.RowsAffected++
			}
		}
	case TableDelete:
		kept := slices.DeleteFunc(slices.Clone(rows), match)
		res.RowsAffected = int64(len(rows) - len(kept))
		f.tables[key] = kept
	case TableSQL:
		res.Rows = []map[string]any{{"sql": q.SQL, "args": q.Args}}
	}
	return res, nil
}

func whereHolds(w *TableWhere, r map[string]any) bool {
	for _, c := range w.Conditions {
		ok := equalValues(normalize(r[c.Field]), c.Value)
		if c.Op == "ne" {
			ok = !ok
		}
		if ok == (w.Logic == "or") {
			return ok
		}
	}
	return w.Logic != "or"
}

// fakeHTTP answers "METHOD URL" from a script; an unknown request is 404.
type fakeHTTP struct {
	routes map[string]fakeResponse
	mu     sync.Mutex
	seen   []string
}

type fakeResponse struct {
	Status  int    `json:"status"`
	Body    string `json:"body"`
	Echo    bool   `json:"echo"`
	DelayMS int    `json:"delay_ms"` // answers late, or not at all when the request's context ends first
}

func (f *fakeHTTP) Do(req *http.Request) (*http.Response, error) {
	key := req.Method + " " + req.URL.String()
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
	}
	f.mu.Lock()
	f.seen = append(f.seen, strings.TrimSpace(key+" "+string(body)))
	f.mu.Unlock()
	r, ok := f.routes[key]
	if !ok {
		r = fakeResponse{Status: 404, Body: "no route " + key}
	}
	if r.Echo {
		r.Body = string(body)
	}
	if r.DelayMS > 0 && !sleep(req.Context(), time.Duration(r.DelayMS)*time.Millisecond) {
		return nil, req.Context().Err()
	}
	if r.Status == 0 {
		r.Status = 200
	}
	return &http.Response{StatusCode: r.Status, Status: fmt.Sprintf("%d %s", r.Status, http.StatusText(r.Status)),
		Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(r.Body))}, nil
}

// fakeVariables is a VariableStore of one bot's variables.
type fakeVariables struct {
	mu   sync.Mutex
	vals map[string]string
}

func (f *fakeVariables) Variables(context.Context, Scope) (map[string]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]string, len(f.vals))
	for k, v := range f.vals {
		out[k] = v
	}
	return out, nil
}

func (f *fakeVariables) SetVariables(_ context.Context, _ Scope, vals map[string]string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for k, v := range vals {
		if _, ok := f.vals[k]; !ok {
			return errs.Invalid(k, "is not a variable of the bot")
		}
		f.vals[k] = v
	}
	return nil
}

// fakeLoader loads sub-workflows from other golden files.
type fakeLoader struct {
	files map[string]string // workflow id → file name
	load  func(name string) (*Definition, error)
}

func (f *fakeLoader) LoadWorkflow(_ context.Context, _, id, _ int64) (*Definition, error) {
	name, ok := f.files[fmt.Sprint(id)]
	if !ok {
		return nil, errs.NotFound("workflow", fmt.Sprint(id))
	}
	return f.load(name)
}

// recorder is an EventSink and HistorySink that keeps everything.
type recorder struct {
	mu      sync.Mutex
	events  []Event
	history []NodeRecord
}

func (r *recorder) Emit(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *recorder) NodeFinished(_ context.Context, rec NodeRecord) {
	r.mu.Lock()
	r.history = append(r.history, rec)
	r.mu.Unlock()
}
