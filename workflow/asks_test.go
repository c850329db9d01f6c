package workflow

import (
	"context"
	"testing"
)

// TestCanInterrupt compiles golden workflows and checks which may stop for
// an answer: a question at the top, in a loop body or in a sub-workflow
// makes a workflow interruptible; none anywhere does not.
func TestCanInterrupt(t *testing.T) {
	cases := map[string]bool{
		"question":      true,
		"question_loop": true,
		"question_sub":  true,
		"sub_question":  true,
		"bench_20":      false,
		"subworkflow":   false,
		"start_end":     false,
	}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			if got := compileGolden(t, name).CanInterrupt(); got != want {
				t.Fatalf("CanInterrupt() = %v, want %v", got, want)
			}
		})
	}
}

// TestMayWait compiles golden workflows and checks which may wait on the
// outside world or run code: a workflow of text, condition, JSON and loop
// nodes does not; a code node (also in a sub-workflow), an HTTP or llm
// node does.
func TestMayWait(t *testing.T) {
	cases := map[string]bool{
		"bench_20":    false,
		"start_end":   false,
		"json":        false,
		"code":        true,
		"subworkflow": true,
		"http":        true,
		"llm_text":    true,
	}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			if got := compileGolden(t, name).MayWait(); got != want {
				t.Fatalf("MayWait() = %v, want %v", got, want)
			}
		})
	}
}

// compileGolden compiles the golden workflow name.
func compileGolden(t *testing.T, name string) *Compiled {
	t.Helper()
	g := loadGolden(t, name)
	env := newGoldenEnv(t, g, goldenCase{})
	def, err := Parse(g.Definition)
	if err != nil {
		t.Fatal(err)
	}
	c, err := env.eng.Compile(context.Background(), name, def, CompileOptions{WorkspaceID: 1, WorkflowID: 1})
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return c
}

// TestOwnHistory runs a workflow whose caller keeps its history: the
// engine's sink gets nothing, the result holds every node's record, and a
// run without the option still feeds the sink.
func TestOwnHistory(t *testing.T) {
	g := loadGolden(t, "bench_20")
	env := newGoldenEnv(t, g, goldenCase{})
	def, err := Parse(g.Definition)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := env.eng.Compile(ctx, "bench_20", def, CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := env.eng.Run(ctx, c, RunInput{RunID: 1, Params: benchParams, OwnHistory: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(env.rec.history); n != 0 || len(res.Nodes) < 20 {
		t.Fatalf("with OwnHistory the sink got %d records and the result %d; want 0 and at least 20", n, len(res.Nodes))
	}
	res, err = env.eng.Run(ctx, c, RunInput{RunID: 2, Params: benchParams})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(env.rec.history); n != len(res.Nodes) {
		t.Fatalf("without OwnHistory the sink got %d records, the result %d", n, len(res.Nodes))
	}
}
