package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/pergola-ai/pergola/workflow/jsrun/jsproc"
)

// TestMain makes the test binary a code-node worker when the server under
// test starts it as one: in tests, the server's own binary is this one.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == codeWorkerCommand {
		if err := jsproc.Serve(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
