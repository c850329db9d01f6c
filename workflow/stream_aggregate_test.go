package workflow

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// streamScript is what the scripted model streams for prompts containing
// its key: chunks, then err (mid-stream) if set. With gate, it sends the
// first chunk and waits for gate before the rest. failFirst makes the
// first calls fail before streaming anything.
type streamScript struct {
	chunks    []string
	err       error
	gate      chan struct{}
	failFirst int
}

// streamModels is a ModelProvider whose model streams scripted replies.
type streamModels struct {
	mu      sync.Mutex
	scripts map[string]*streamScript
	calls   map[string]int
}

func (s *streamModels) ChatModel(context.Context, string) (model.ToolCallingChatModel, error) {
	return scriptedModel{s}, nil
}

type scriptedModel struct{ s *streamModels }

func (m scriptedModel) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	return m, nil
}

func (m scriptedModel) Generate(ctx context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	sr, err := m.Stream(ctx, in)
	if err != nil {
		return nil, err
	}
	var text strings.Builder
	for {
		msg, err := sr.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return schema.AssistantMessage(text.String(), nil), nil
			}
			return nil, err
		}
		text.WriteString(msg.Content)
	}
}

func (m scriptedModel) Stream(ctx context.Context, in []*schema.Message, _ ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	sc, calls := m.s.script(in[len(in)-1].Content)
	if sc == nil {
		return nil, errors.New("no script")
	}
	if calls <= sc.failFirst {
		return nil, errors.New("overloaded")
	}
	sr, sw := schema.Pipe[*schema.Message](len(sc.chunks) + 1)
	go func() {
		defer sw.Close()
		for i, c := range sc.chunks {
			if i == 1 && sc.gate != nil {
				select {
				case <-sc.gate:
				case <-ctx.Done():
					return
				}
			}
			sw.Send(schema.AssistantMessage(c, nil), nil)
		}
		if sc.err != nil {
			sw.Send(nil, sc.err)
		}
	}()
	return sr, nil
}

func (s *streamModels) script(prompt string) (*streamScript, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, sc := range s.scripts {
		if strings.Contains(prompt, key) {
			s.calls[key]++
			return sc, s.calls[key]
		}
	}
	return nil, 0
}

// messageLog records Message events and signals the first piece of
// each node.
type messageLog struct {
	mu     sync.Mutex
	events []Event
	first  chan string
}

func (l *messageLog) Emit(e Event) {
	if e.Kind != EventMessage {
		return
	}
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
	if l.first != nil && e.Text != "" {
		select {
		case l.first <- e.Text:
		default:
		}
	}
}

// of returns the Message events of one node.
func (l *messageLog) of(id string) []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Event
	for _, e := range l.events {
		if e.NodeID == id {
			out = append(out, e)
		}
	}
	return out
}

// runScripted compiles def and runs it with the scripted model.
func runScripted(t *testing.T, def string, scripts map[string]*streamScript, params map[string]any, stream bool, log *messageLog) (*RunResult, error) {
	t.Helper()
	return runWith(t, Config{}, def, scripts, params, stream, log)
}

// runWith runs def on an engine of cfg with the scripted model.
func runWith(t *testing.T, cfg Config, def string, scripts map[string]*streamScript, params map[string]any, stream bool, log *messageLog) (*RunResult, error) {
	t.Helper()
	d, err := Parse([]byte(def))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	cfg.Models, cfg.Limits = &streamModels{scripts: scripts, calls: map[string]int{}}, Limits{RunTimeout: 10 * time.Second}
	eng := New(cfg)
	c, err := eng.Compile(context.Background(), "t", d, CompileOptions{WorkspaceID: 1, WorkflowID: 1})
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return eng.Run(context.Background(), c, RunInput{RunID: 1, Params: params, Stream: stream, Events: log})
}

// checkPieces checks a node's Message events: at least min pieces, Final
// on the last only, which carries text, and the texts joined are want.
func checkPieces(t *testing.T, events []Event, min int, want string) {
	t.Helper()
	var got strings.Builder
	for i, e := range events {
		got.WriteString(e.Text)
		if last := i == len(events)-1; e.Final != last {
			t.Errorf("piece %d of %d: final = %v", i+1, len(events), e.Final)
		}
	}
	if len(events) < min {
		t.Errorf("%d pieces, want at least %d: %+v", len(events), min, events)
	}
	if len(events) > 0 && want != "" && events[len(events)-1].Text == "" {
		t.Errorf("the final piece is empty: %+v", events)
	}
	if got.String() != want {
		t.Errorf("pieces join to %q, want %q", got.String(), want)
	}
}

// branchesDef: a condition picks one of two llm nodes; an aggregate
// merges their texts; the end node shows the merge.
const branchesDef = `{"nodes": [
  {"id": "start", "type": "start", "outputs": [{"name": "n", "type": "integer"}]},
  {"id": "check", "type": "condition", "config": {"branches": [{"port": "big", "conditions": [{"left": "n", "op": "gt", "value": 5}]}]},
   "inputs": {"n": {"ref": {"node": "start", "path": "n"}}}},
  {"id": "big", "type": "llm", "config": {"model_id": "fake", "prompt": "big {{n}}"}, "inputs": {"n": {"ref": {"node": "start", "path": "n"}}}},
  {"id": "small", "type": "llm", "config": {"model_id": "fake", "prompt": "small {{n}}"}, "inputs": {"n": {"ref": {"node": "start", "path": "n"}}}},
  {"id": "merge", "type": "variable_aggregate", "config": {"groups": {"said": ["b", "s"]}},
   "inputs": {"b": {"ref": {"node": "big", "path": "output"}}, "s": {"ref": {"node": "small", "path": "output"}}}},
  {"id": "end", "type": "end", "config": {"mode": "text", "template": "Said: {{x}}!"}, "inputs": {"x": {"ref": {"node": "merge", "path": "said"}}}}],
 "edges": [{"from": "start", "to": "check"}, {"from": "check", "from_port": "big", "to": "big"}, {"from": "check", "from_port": "else", "to": "small"},
  {"from": "big", "to": "merge"}, {"from": "small", "to": "merge"}, {"from": "merge", "to": "end"}]}`

// TestAggregateStreams: an end node showing an aggregate of two llm
// branches streams whichever branch ran, piece by piece, while the model
// generates: the model sends its second piece only once a Message was
// shown (each piece is held until the next comes, so the first one shows
// once the model's first piece came). A plain run shows the same text in
// one final piece.
func TestAggregateStreams(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		want string
	}{{"first branch", 9, "Said: a big answer!"}, {"second branch", 2, "Said: a small answer!"}} {
		t.Run(tc.name, func(t *testing.T) {
			gate := make(chan struct{})
			scripts := map[string]*streamScript{"big": {chunks: []string{"a ", "big ", "answer"}, gate: gate},
				"small": {chunks: []string{"a ", "small ", "answer"}, gate: gate}}
			log := &messageLog{first: make(chan string, 8)}
			go func() {
				<-log.first // shown once the model's first piece came: let it go on
				close(gate)
			}()
			res, err := runScripted(t, branchesDef, scripts, map[string]any{"n": tc.n}, true, log)
			if err != nil {
				t.Fatal(err)
			}
			if res.Text != tc.want {
				t.Errorf("text = %q, want %q", res.Text, tc.want)
			}
			checkPieces(t, log.of("end"), 4, tc.want)
			plain := &messageLog{}
			scripts["big"].gate, scripts["small"].gate = nil, nil
			if _, err := runScripted(t, branchesDef, scripts, map[string]any{"n": tc.n}, false, plain); err != nil {
				t.Fatal(err)
			}
			checkPieces(t, plain.of("end"), 1, tc.want)
		})
	}
}
