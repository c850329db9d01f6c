package workflow_test

import (
	"testing"

	"github.com/pergola-ai/pergola/application/wftool"
	workflowapp "github.com/pergola-ai/pergola/application/workflow"
)

// TestToolRunsAreDirect keeps RunModeTool the mode application/wftool
// gives its runs: a workflow a bot calls as a tool runs as a direct run.
func TestToolRunsAreDirect(t *testing.T) {
	if wftool.RunModeBot != workflowapp.RunModeTool {
		t.Fatalf("wftool runs in mode %q, the direct tool mode is %q", wftool.RunModeBot, workflowapp.RunModeTool)
	}
}
