package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/pergola-ai/pergola/workflow/jsrun/jsproc"
)

// asServerEnv, set to 1, makes the test binary run as pergola itself
// (startSelf): tests that kill a server process need one, and this binary
// holds the same main package, without a go build of its own.
const asServerEnv = "PERGOLA_TEST_AS_SERVER"

// TestMain makes the test binary a code-node worker when the server under
// test starts it as one: in tests, the server's own binary is this one. It
// runs pergola when asServerEnv asks.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == codeWorkerCommand {
		if err := jsproc.Serve(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(asServerEnv) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}
