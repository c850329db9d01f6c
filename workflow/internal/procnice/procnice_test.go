//go:build linux

package procnice

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestTreeDemotesEveryProcess starts a shell with a child and wants both
// at the lowest priority after Tree, and the test process untouched.
func TestTreeDemotesEveryProcess(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 30 & wait")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	pid := cmd.Process.Pid
	deadline := time.Now().Add(10 * time.Second)
	for len(Descendants(pid)) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	family := Descendants(pid)
	if len(family) < 2 {
		t.Fatalf("the shell's child did not show up: %v", family)
	}
	own, _ := Nice(os.Getpid())
	if err := Tree(pid, Demoted); err != nil {
		t.Fatal(err)
	}
	for _, p := range family {
		if n, err := Nice(p); err != nil || n != Demoted {
			t.Errorf("process %d: nice %d (%v), want %d", p, n, err, Demoted)
		}
	}
	if n, _ := Nice(os.Getpid()); n != own {
		t.Errorf("the test process went from nice %d to %d", own, n)
	}
	if err := Process(1<<22+1, Demoted); err == nil {
		t.Error("no error for a process that does not exist")
	}
}
