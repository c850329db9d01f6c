package workflow

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// golden is a file of workflow/testdata: a definition and the cases run
// against it, with the fakes each case scripts and what it must produce.
type golden struct {
	Description  string            `json:"description"`
	Definition   json.RawMessage   `json:"definition"`
	Subworkflows map[string]string `json:"subworkflows"`
	Cases        []goldenCase      `json:"cases"`
}

type goldenCase struct {
	Name      string                      `json:"name"`
	Params    map[string]any              `json:"params"`
	BotID     int64                       `json:"bot_id"`
	UserID    string                      `json:"user_id"`
	AppID     int64                       `json:"app_id"`
	Stream    bool                        `json:"stream"`
	Model     []modelRule                 `json:"model"`
	Tools     map[string]fakeTool         `json:"tools"`
	Tables    map[string][]map[string]any `json:"tables"`
	HTTP      map[string]fakeResponse     `json:"http"`
	Variables map[string]string           `json:"variables"`
	Knowledge map[string][]fakeDoc        `json:"knowledge"`
	Limits    *Limits                     `json:"limits"`
	// Answers resume the run each time it is interrupted, in order; each
	// resume starts from the checkpoint encoded and decoded, as stored.
	Answers []string   `json:"answers"`
	Want    goldenWant `json:"want"`
}

type goldenWant struct {
	Output    map[string]any              `json:"output"`
	Text      *string                     `json:"text"`
	Error     string                      `json:"error"`
	Nodes     map[string]string           `json:"nodes"`
	Messages  map[string]string           `json:"messages"`
	Streamed  []string                    `json:"streamed"`
	Tables    map[string][]map[string]any `json:"tables"`
	Variables map[string]string           `json:"variables"`
	Requests  []string                    `json:"requests"`
	ToolCalls []string                    `json:"tool_calls"`
	Tokens    int64                       `json:"tokens"`
	// Knowledge is the fake knowledge bases after the run; Recalls the
	// retrievals asked, in order ("[ids] strategy topK minScore query").
	Knowledge map[string][]fakeDoc `json:"knowledge"`
	Recalls   []string             `json:"recalls"`
	// Prompts are the user prompts the model was given, in order.
	Prompts []string `json:"prompts"`
	// Asked lists the questions the run asked, in order ("form: a, b" for
	// input nodes); Waiting is set when the run must end interrupted.
	Asked   []string `json:"asked"`
	Waiting bool     `json:"waiting"`
}

func loadGolden(t testing.TB, name string) *golden {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(&g); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return &g
}

func goldenNames(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".json"))
	}
	return names
}

func TestGoldenWorkflows(t *testing.T) {
	for _, name := range goldenNames(t) {
		g := loadGolden(t, name)
		for _, tc := range g.Cases {
			t.Run(name+"/"+tc.Name, func(t *testing.T) {
				t.Parallel()
				runGolden(t, name, g, tc)
			})
		}
	}
}

// goldenEnv is the engine of one case with its fakes.
type goldenEnv struct {
	eng    *Engine
	models *fakeModels
	tools  *fakeTools
	tables *fakeTables
	http   *fakeHTTP
	vars   *fakeVariables
	kb     *fakeKnowledge
	rec    *recorder
}

func newGoldenEnv(t testing.TB, g *golden, tc goldenCase) *goldenEnv {
	tables := map[string][]map[string]any{}
	for k, rows := range tc.Tables {
		tables[k] = []map[string]any{}
		for _, r := range rows {
			tables[k] = append(tables[k], normalize(r).(map[string]any))
		}
	}
	env := &goldenEnv{models: &fakeModels{rules: tc.Model}, tools: &fakeTools{tools: tc.Tools},
		tables: &fakeTables{tables: tables}, http: &fakeHTTP{routes: tc.HTTP},
		vars: &fakeVariables{vals: tc.Variables}, kb: newFakeKnowledge(tc.Knowledge), rec: &recorder{}}
	lim := Limits{RunTimeout: 20 * time.Second}
	if tc.Limits != nil {
		lim = *tc.Limits
	}
	loader := &fakeLoader{files: g.Subworkflows, load: func(name string) (*Definition, error) {
		return Parse(loadGolden(t, name).Definition)
	}}
	env.eng = New(Config{Models: env.models, Tools: env.tools, Tables: env.tables, HTTP: env.http,
		Variables: env.vars, Convs: &fakeConvs{}, Workflows: loader, History: env.rec, Knowledge: env.kb, Limits: lim})
	return env
}

func runGolden(t *testing.T, name string, g *golden, tc goldenCase) {
	env := newGoldenEnv(t, g, tc)
	def, err := Parse(g.Definition)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	ctx := context.Background()
	c, err := env.eng.Compile(ctx, name, def, CompileOptions{WorkspaceID: 1, WorkflowID: 1})
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	in := RunInput{RunID: 7, Params: tc.Params, Stream: tc.Stream, Events: env.rec,
		Scope: Scope{WorkspaceID: 1, WorkflowID: 1, BotID: tc.BotID, UserID: tc.UserID, AppID: tc.AppID}}
	res, err := env.eng.Run(ctx, c, in)
	var asked []string
	for i := 0; err == nil && res.Interrupt != nil; i++ {
		asked = append(asked, askedText(res.Interrupt))
		if i >= len(tc.Answers) {
			break
		}
		in.Resume = resumeFrom(t, res, tc.Answers[i])
		res, err = env.eng.Run(ctx, c, in)
	}
	w := tc.Want
	if diff := cmp.Diff(w.Asked, asked); diff != "" {
		t.Errorf("questions asked (-want +got):\n%s", diff)
	}
	if err == nil && (res.Interrupt != nil) != w.Waiting {
		t.Errorf("interrupt = %+v, want waiting %v", res.Interrupt, w.Waiting)
	}
	if w.Error != "" {
		if err == nil || !strings.Contains(err.Error(), w.Error) {
			t.Fatalf("error = %v, want one containing %q", err, w.Error)
		}
		if re, ok := err.(*RunError); ok {
			res = re.Result
		}
	} else if err != nil {
		t.Fatalf("run: %v", err)
	}
	env.check(t, res, w)
}

func (env *goldenEnv) check(t *testing.T, res *RunResult, w goldenWant) {
	t.Helper()
	if w.Output != nil {
		if diff := cmp.Diff(jsonRoundTrip(t, w.Output), jsonRoundTrip(t, res.Output)); diff != "" {
			t.Errorf("output (-want +got):\n%s", diff)
		}
	}
	if w.Text != nil && res.Text != *w.Text {
		t.Errorf("text = %q, want %q", res.Text, *w.Text)
	}
	if w.Tokens != 0 && res.Usage.Total() != w.Tokens {
		t.Errorf("tokens = %d, want %d", res.Usage.Total(), w.Tokens)
	}
	if w.Nodes != nil {
		if diff := cmp.Diff(w.Nodes, nodeStatuses(res)); diff != "" {
			t.Errorf("node statuses (-want +got):\n%s", diff)
		}
	}
	env.checkMessages(t, w)
	env.checkEffects(t, w)
}

// nodeStatuses maps every top-level node, and body nodes as parent/id, to
// its last status.
func nodeStatuses(res *RunResult) map[string]string {
	out := map[string]string{}
	for _, r := range res.Nodes {
		key := r.NodeID
		if r.Parent != "" {
			key = r.Parent + "/" + r.NodeID
		}
		out[key] = string(r.Status)
	}
	return out
}

func (env *goldenEnv) checkMessages(t *testing.T, w goldenWant) {
	t.Helper()
	env.rec.mu.Lock()
	defer env.rec.mu.Unlock()
	got, pieces := map[string]string{}, map[string]int{}
	for _, e := range env.rec.events {
		if e.Kind == EventMessage {
			got[e.NodeID] += e.Text
			if e.Text != "" {
				pieces[e.NodeID]++
			}
		}
	}
	if w.Messages != nil {
		if diff := cmp.Diff(w.Messages, got); diff != "" {
			t.Errorf("messages (-want +got):\n%s", diff)
		}
	}
	for _, id := range w.Streamed {
		if pieces[id] < 2 {
			t.Errorf("the message of %s came in %d pieces; want it streamed", id, pieces[id])
		}
	}
}

func (env *goldenEnv) checkEffects(t *testing.T, w goldenWant) {
	t.Helper()
	if w.Tables != nil {
		if diff := cmp.Diff(jsonRoundTrip(t, w.Tables), jsonRoundTrip(t, env.tables.tables)); diff != "" {
			t.Errorf("tables (-want +got):\n%s", diff)
		}
	}
	if w.Variables != nil {
		if diff := cmp.Diff(w.Variables, env.vars.vals); diff != "" {
			t.Errorf("variables (-want +got):\n%s", diff)
		}
	}
	if w.Requests != nil {
		if diff := cmp.Diff(w.Requests, env.http.seen); diff != "" {
			t.Errorf("HTTP requests (-want +got):\n%s", diff)
		}
	}
	env.checkKnowledge(t, w)
	if w.ToolCalls != nil {
		if diff := cmp.Diff(w.ToolCalls, env.tools.calls); diff != "" {
			t.Errorf("tool calls (-want +got):\n%s", diff)
		}
	}
}

// jsonRoundTrip brings a value to the form JSON decoding gives.
func jsonRoundTrip(t testing.TB, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out == nil {
		return map[string]any{}
	}
	return out
}

// TestEveryNodeTypeHasAGoldenWorkflow keeps the golden files complete.
func TestEveryNodeTypeHasAGoldenWorkflow(t *testing.T) {
	used := map[string]bool{}
	for _, name := range goldenNames(t) {
		g := loadGolden(t, name)
		if len(g.Cases) == 0 {
			continue
		}
		def, err := Parse(g.Definition)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		def.Walk(func(n, _ *Node) { used[n.Type] = true })
		for _, sub := range g.Subworkflows {
			sd, _ := Parse(loadGolden(t, sub).Definition)
			sd.Walk(func(n, _ *Node) { used[n.Type] = true })
		}
	}
	for _, info := range NewCatalog().Types() {
		if !used[info.Type] {
			t.Errorf("no golden workflow uses a %s node", info.Type)
		}
	}
	if t.Failed() {
		t.Logf("covered: %v", slices.Sorted(maps.Keys(used)))
	}
}

func (env *goldenEnv) checkKnowledge(t *testing.T, w goldenWant) {
	t.Helper()
	if w.Knowledge != nil {
		if diff := cmp.Diff(jsonRoundTrip(t, w.Knowledge), jsonRoundTrip(t, env.kb.bases)); diff != "" {
			t.Errorf("knowledge bases (-want +got):\n%s", diff)
		}
	}
	if w.Recalls != nil {
		if diff := cmp.Diff(w.Recalls, env.kb.queries); diff != "" {
			t.Errorf("recalls (-want +got):\n%s", diff)
		}
	}
	if w.Prompts != nil {
		var got []string
		for _, call := range env.models.calls {
			got = append(got, call[len(call)-1].Content)
		}
		if diff := cmp.Diff(w.Prompts, got); diff != "" {
			t.Errorf("user prompts (-want +got):\n%s", diff)
		}
	}
}
