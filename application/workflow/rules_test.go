package workflow

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/workflow"
	wf "github.com/pergola-ai/pergola/workflow"
)

// echoDefinition returns its parameter q with a suffix.
func echoDefinition(suffix string) []byte {
	return []byte(`{"nodes":[{"id":"start","type":"start","outputs":[{"name":"q","type":"string","required":true}]},
	{"id":"t","type":"text","config":{"op":"template","template":"{{q}}` + suffix + `"},"inputs":{"q":{"ref":{"node":"start","path":"q"}}}},
	{"id":"end","type":"end","inputs":{"out":{"ref":{"node":"t","path":"output"}}}}],
	"edges":[{"from":"start","to":"t"},{"from":"t","to":"end"}]}`)
}

func wantErr(t *testing.T, err, kind error, text string) {
	t.Helper()
	if !errors.Is(err, kind) || !strings.Contains(err.Error(), text) {
		t.Fatalf("error = %v, want %v mentioning %q", err, kind, text)
	}
}

func TestCreateRules(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	_, err := f.svc.Create(ctx, identity.Principal{UserID: 1, Scopes: []string{identity.ScopeBot}}, CreateInput{WorkspaceID: 1, Name: "x"})
	wantErr(t, err, errs.ErrForbidden, `lacks the "workflow" scope`)
	_, err = f.svc.Create(ctx, f.cy, CreateInput{WorkspaceID: 1, Name: "x"})
	wantErr(t, err, errs.ErrForbidden, "not a member")
	_, err = f.svc.Create(ctx, f.ada, CreateInput{WorkspaceID: 1, Name: "1st"})
	wantErr(t, err, errs.ErrInvalid, "name: must start with a letter")
	_, err = f.svc.Create(ctx, f.ada, CreateInput{WorkspaceID: 1, Name: "bad", Definition: []byte(`{"nodes":[],"edges":[]}`)})
	wantErr(t, err, errs.ErrInvalid, "there is no start node")
	if len(wf.Problems(err)) != 2 {
		t.Errorf("problems = %v, want the missing start and end", wf.Problems(err))
	}

	w, err := f.svc.Create(ctx, f.bo, CreateInput{WorkspaceID: 1, Name: "starter"})
	if err != nil || !strings.Contains(string(w.Definition), `"type":"start"`) || w.CreatorID != 2 {
		t.Fatalf("starter = %+v, %v", w, err)
	}
	yaml := "nodes:\n  - {id: start, type: start}\n  - {id: end, type: end}\nedges:\n  - {from: start, to: end}\n"
	w, err = f.svc.Create(ctx, f.ada, CreateInput{WorkspaceID: 1, Name: "from_yaml", Definition: []byte(yaml)})
	if err != nil || !strings.HasPrefix(string(w.Definition), `{"nodes":[{"id":"start"`) {
		t.Fatalf("YAML = %s, %v", w.Definition, err)
	}
}

func TestAccessAndEditRules(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	w, err := f.svc.Create(ctx, f.bo, CreateInput{WorkspaceID: 1, Name: "mine", Definition: echoDefinition("!")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.svc.Get(ctx, f.cy, w.ID)
	wantErr(t, err, errs.ErrNotFound, "workflow")
	restricted := f.ada
	restricted.Workspaces = []int64{2}
	_, err = f.svc.Get(ctx, restricted, w.ID)
	wantErr(t, err, errs.ErrNotFound, "not found")

	bad := []byte(strings.Replace(string(echoDefinition("")), `"path":"q"`, `"path":"p"`, 1))
	_, err = f.svc.Update(ctx, f.ada, w.ID, UpdateInput{Definition: bad})
	wantErr(t, err, errs.ErrInvalid, `nodes[t].inputs.q.ref: start.p: no output "p"`)
	name := "renamed"
	got, err := f.svc.Update(ctx, f.ada, w.ID, UpdateInput{Name: &name})
	if err != nil || got.Name != "renamed" || got.DraftRevision != 2 || !strings.Contains(string(got.Definition), "!") {
		t.Fatalf("update = %+v, %v", got, err)
	}

	other, _ := f.svc.Create(ctx, f.ada, CreateInput{WorkspaceID: 1, Name: "adas"})
	wantErr(t, f.svc.Delete(ctx, f.bo, other.ID), errs.ErrForbidden, "only the workflow's creator or an admin")
	if err := f.svc.Delete(ctx, f.ada, w.ID); err != nil {
		t.Fatalf("an owner deleting a member's workflow: %v", err)
	}
	problems, err := f.svc.Validate(ctx, f.ada, 0, bad)
	if err != nil || len(problems) != 1 || problems[0].Field != "nodes[t].inputs.q.ref" {
		t.Fatalf("Validate = %v, %v", problems, err)
	}
	problems, err = f.svc.Validate(ctx, f.ada, 0, echoDefinition(""))
	if err != nil || problems != nil {
		t.Fatalf("Validate of a valid definition = %v, %v", problems, err)
	}
	_, err = f.svc.Validate(ctx, f.ada, 2, echoDefinition(""))
	wantErr(t, err, errs.ErrForbidden, "not a member")
}

func TestRunRules(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	w, _ := f.svc.Create(ctx, f.ada, CreateInput{WorkspaceID: 1, Name: "echo", Definition: echoDefinition(" v1")})
	_, err := f.svc.Run(ctx, f.ada, RunRequest{WorkflowID: w.ID, Params: map[string]any{"q": "x"}, Mode: workflow.RunSync})
	wantErr(t, err, errs.ErrInvalid, "is not published; publish it first")

	if _, err := f.svc.Publish(ctx, f.ada, w.ID, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Update(ctx, f.ada, w.ID, UpdateInput{Definition: echoDefinition(" v2")}); err != nil {
		t.Fatal(err)
	}
	out, err := f.svc.Run(ctx, f.bo, RunRequest{WorkflowID: w.ID, Params: map[string]any{"q": "hi"}, Mode: workflow.RunSync})
	if err != nil || out.Result.Output["out"] != "hi v1" {
		t.Fatalf("run of the published version = %+v, %v", out, err)
	}
	run, nodes, err := f.svc.RunHistory(ctx, f.ada, w.ID, out.Run.ID)
	if err != nil || run.Status != workflow.RunSucceeded || run.Version != 1 || run.UserID != "2" || len(nodes) != 3 ||
		nodes[0].NodeID != "start" || nodes[2].NodeID != "end" || !strings.Contains(run.Output, "hi v1") {
		t.Fatalf("history = %+v %+v, %v", run, nodes, err)
	}
	test, err := f.svc.TestRun(ctx, f.ada, RunRequest{WorkflowID: w.ID, Params: map[string]any{"q": "hi"}})
	if err != nil || test.Result.Output["out"] != "hi v2" || test.Run.Mode != workflow.RunTest || test.Run.DraftRevision != 2 {
		t.Fatalf("test run of the draft = %+v, %v", test, err)
	}

	_, err = f.svc.Run(ctx, f.ada, RunRequest{WorkflowID: w.ID, Params: map[string]any{}})
	wantErr(t, err, errs.ErrInvalid, "parameters.q: is required")
	_, err = f.svc.Run(ctx, f.ada, RunRequest{WorkflowID: w.ID, Params: map[string]any{"q": "x"}, BotID: 8})
	wantErr(t, err, errs.ErrInvalid, "bot_id: bot 8 is not a bot of the workflow's workspace")
	_, err = f.svc.Run(ctx, f.ada, RunRequest{WorkflowID: w.ID, Version: 5, Params: map[string]any{"q": "x"}})
	wantErr(t, err, errs.ErrNotFound, "not found")
	_, _, err = f.svc.RunHistory(ctx, f.cy, w.ID, out.Run.ID)
	wantErr(t, err, errs.ErrNotFound, "workflow")
	other, _ := f.svc.Create(ctx, f.ada, CreateInput{WorkspaceID: 1, Name: "other"})
	_, _, err = f.svc.RunHistory(ctx, f.ada, other.ID, out.Run.ID)
	wantErr(t, err, errs.ErrNotFound, "run")
}

func TestFailedRunsAreRecorded(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	def := `{"nodes":[{"id":"start","type":"start"},
	{"id":"boom","type":"code","config":{"code":"function main() { throw new Error('kaput') }"},"outputs":[{"name":"x","type":"string"}]},
	{"id":"end","type":"end"}],"edges":[{"from":"start","to":"boom"},{"from":"boom","to":"end"}]}`
	w, err := f.svc.Create(ctx, f.ada, CreateInput{WorkspaceID: 1, Name: "boom", Definition: []byte(def)})
	if err != nil {
		t.Fatal(err)
	}
	f.svc.Publish(ctx, f.ada, w.ID, "")
	out, err := f.svc.Run(ctx, f.ada, RunRequest{WorkflowID: w.ID, Mode: workflow.RunSync})
	var failed *RunFailed
	if !errors.As(err, &failed) || !errors.Is(err, errs.ErrInvalid) || failed.RunID != out.Run.ID ||
		!strings.Contains(err.Error(), "node boom failed: Error: kaput") {
		t.Fatalf("error = %v", err)
	}
	run, nodes, _ := f.svc.RunHistory(ctx, f.ada, w.ID, out.Run.ID)
	if run.Status != workflow.RunFailed || !strings.Contains(run.Error, "kaput") || len(nodes) != 2 || nodes[1].Status != "failed" {
		t.Fatalf("history = %+v %+v", run, nodes)
	}
	test, err := f.svc.TestRun(ctx, f.ada, RunRequest{WorkflowID: w.ID})
	if err != nil || test.Failure == nil || test.Failure.NodeID != "boom" {
		t.Fatalf("test run = %+v, %v", test, err)
	}
}

func TestSubWorkflowsStayInTheirWorkspace(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	inner, _ := f.svc.Create(ctx, f.cy, CreateInput{WorkspaceID: 2, Name: "inner", Definition: echoDefinition("")})
	f.svc.Publish(ctx, f.cy, inner.ID, "")
	def := `{"nodes":[{"id":"start","type":"start"},{"id":"call","type":"sub_workflow","config":{"workflow_id":` +
		strconv.FormatInt(inner.ID, 10) + `,"version":1},"inputs":{"q":{"value":"x"}}},{"id":"end","type":"end"}],
		"edges":[{"from":"start","to":"call"},{"from":"call","to":"end"}]}`
	_, err := f.svc.Create(ctx, f.ada, CreateInput{WorkspaceID: 1, Name: "caller", Definition: []byte(def)})
	wantErr(t, err, errs.ErrInvalid, "nodes[call].config: workflow")
	w, err := f.svc.Create(ctx, f.cy, CreateInput{WorkspaceID: 2, Name: "caller", Definition: []byte(def)})
	if err != nil {
		t.Fatalf("a sub-workflow of the same workspace: %v", err)
	}
	out, err := f.svc.TestRun(ctx, f.cy, RunRequest{WorkflowID: w.ID})
	if err != nil || out.Failure != nil || len(out.Result.Nodes) != 6 {
		t.Fatalf("test run = %+v, %v", out, err)
	}
}
