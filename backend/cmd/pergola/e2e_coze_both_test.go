package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// runBoth runs a published workflow with body (workflow_id, parameters,
// app_id, ext...) through /v1/workflow/run and /v1/workflow/stream_run,
// checks both give the same output and returns it. Only for workflows
// whose output does not depend on what an earlier run stored.
func (c *chatSetup) runBoth(t *testing.T, body cz) map[string]any {
	t.Helper()
	out := decodeData(t, c.s.call(t, "POST", "/v1/workflow/run", bootstrapToken, body).must(t, 200))
	streamed := streamedOutput(t, c.s.workflowStream(t, body))
	if diff := cmp.Diff(out, streamed); diff != "" {
		t.Fatalf("stream_run output differs from run (-run +stream_run):\n%s", diff)
	}
	return out
}

// runStreamed runs a published workflow with body through
// /v1/workflow/stream_run and returns its output.
func (c *chatSetup) runStreamed(t *testing.T, body cz) map[string]any {
	t.Helper()
	return streamedOutput(t, c.s.workflowStream(t, body))
}
