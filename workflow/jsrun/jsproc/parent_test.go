package jsproc

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestWorkersDieWithTheParent starts a process holding a pool of two
// workers, kills it with SIGKILL (no cleanup runs) and wants both
// workers gone.
func TestWorkersDieWithTheParent(t *testing.T) {
	cmd := exec.Command(workerCommand()[0], "poolparent")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("reading the workers' ids: %v", err)
	}
	pids := strings.Fields(strings.Trim(strings.TrimSpace(line), "[]"))
	if len(pids) != 2 {
		t.Fatalf("parent printed %q, want two worker ids", line)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	for _, s := range pids {
		pid, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		waitGone(t, pid)
	}
}

// waitGone waits until process pid has ended (gone, or a zombie nobody
// reaped yet), failing the test if it still runs after ten seconds.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if !running(pid) {
			return
		}
	}
	t.Fatalf("process %d still runs", pid)
}

// running reports whether process pid exists and is not a zombie.
func running(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, ok := strings.Cut(string(stat), ") ")
	return ok && !strings.HasPrefix(rest, "Z")
}
