package jsproc

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/workflow/jsrun"
)

// TestMain makes the test binary a worker when a pool starts it with the
// coderun argument, and a pool's parent for TestWorkersDieWithTheParent
// with poolparent.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "coderun":
			if err := Serve(os.Stdin, os.Stdout); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			os.Exit(0)
		case "poolparent":
			poolParent()
		}
	}
	os.Exit(m.Run())
}

// poolParent starts a pool of two workers, prints their process ids and
// waits to be killed.
func poolParent() {
	p := New(Config{Command: workerCommand(), Workers: 2})
	prog, _ := jsrun.Compile(`function main() { return {}; }`)
	done := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := p.Run(context.Background(), prog, nil, 10*time.Second)
			done <- err
		}()
	}
	for range 2 {
		if err := <-done; err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
	}
	fmt.Println(p.pids())
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	os.Exit(0)
}

// workerCommand starts this test binary as a worker.
func workerCommand() []string {
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	return []string{exe, "coderun"}
}
