package pyrun

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// workspaceKey carries a test run's workspace in its context.
type workspaceKey struct{}

func inWorkspace(ws int64) context.Context {
	return context.WithValue(context.Background(), workspaceKey{}, ws)
}

// proc is a process given a job and its parent then.
type proc struct{ pid, parent int }

// newTenantRunner is newRunner whose runs belong to the workspace their
// context names, and tells each process given a job.
func newTenantRunner(t testing.TB, lim Limits) (*Runner, chan proc) {
	r := newRunner(t, lim)
	r.tenant = func(ctx context.Context) int64 { ws, _ := ctx.Value(workspaceKey{}).(int64); return ws }
	pids := make(chan proc, 100)
	r.onRun = func(pid int) { pids <- proc{pid, parentOf(pid)} }
	t.Cleanup(r.Close)
	return r, pids
}

// waitZygote runs trivial code in ws until ws's fork server is ready, and
// returns it.
func waitZygote(t testing.TB, r *Runner, ws int64) *zygote {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		r.zygotes.mu.Lock()
		z := r.zygotes.m[ws]
		ready := z != nil && z.ready
		r.zygotes.mu.Unlock()
		if ready {
			return z
		}
		if _, err := r.Run(inWorkspace(ws), "def main(args):\n    return {}\n", nil, 0); err != nil {
			t.Fatal(err)
		}
	}
	t.Fatalf("workspace %d has no fork server after 20s", ws)
	return nil
}

// parentOf is the parent's id of process pid, as /proc tells it (0 when
// it has ended).
func parentOf(pid int) int {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "PPid:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(rest))
			return n
		}
	}
	return 0
}

// serverOf is the fork server's python process: pid 1 of its sandbox.
func serverOf(t testing.TB, z *zygote) int {
	t.Helper()
	if p := z.hostPid(1); p > 0 {
		return p
	}
	t.Fatal("the fork server's python is not running")
	return 0
}

// runIn runs code in ws and returns what it answered and the process that
// ran it.
func runIn(t testing.TB, r *Runner, pids chan proc, ws int64, code string) (string, proc) {
	t.Helper()
	res, err := r.Run(inWorkspace(ws), code, map[string]any{"ws": ws}, 0)
	return fmtResult(res, err), <-pids
}

// TestRunsForkFromTheirWorkspaceServer: past the first, a workspace's runs
// are children of its own fork server, another workspace's of another;
// and what one run changes the next does not see.
func TestRunsForkFromTheirWorkspaceServer(t *testing.T) {
	r, pids := newTenantRunner(t, Limits{})
	z1, z2 := waitZygote(t, r, 1), waitZygote(t, r, 2)
	drain(pids)
	set := "import json\ndef main(args):\n    json.leaked = args.params['ws']\n    return {}\n"
	get := "import json\ndef main(args):\n    return {'leaked': getattr(json, 'leaked', None)}\n"
	for _, c := range []struct {
		ws int64
		z  *zygote
	}{{1, z1}, {2, z2}} {
		if got, p := runIn(t, r, pids, c.ws, set); got != "{} " || p.parent != serverOf(t, c.z) {
			t.Fatalf("workspace %d: %s, run by %+v; its server is %d", c.ws, got, p, serverOf(t, c.z))
		}
		if got, _ := runIn(t, r, pids, c.ws, get); got != `{"leaked":null} ` {
			t.Fatalf("workspace %d, the next run: %s", c.ws, got)
		}
	}
	if serverOf(t, z1) == serverOf(t, z2) {
		t.Fatal("two workspaces share a fork server")
	}
}

func drain(pids chan proc) {
	for len(pids) > 0 {
		<-pids
	}
}

// TestZygoteTimeoutKillsTheChild: a run that outlasts its time limit is
// killed, not its fork server, and the workspace's next run forks from it.
func TestZygoteTimeoutKillsTheChild(t *testing.T) {
	r, pids := newTenantRunner(t, Limits{})
	z := waitZygote(t, r, 1)
	drain(pids)
	_, err := r.Run(inWorkspace(1), "def main(args):\n    while True:\n        pass\n", nil, time.Second)
	looping := (<-pids).pid
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	for deadline := time.Now().Add(5 * time.Second); processExists(looping); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the timed-out child %d still runs", looping)
		}
	}
	got, p := runIn(t, r, pids, 1, "def main(args):\n    return {'ok': 1}\n")
	if got != `{"ok":1} ` || !z.alive() || p.parent != serverOf(t, z) {
		t.Fatalf("after the timeout: %s, server alive %v", got, z.alive())
	}
}

func processExists(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !strings.Contains(string(b), ") Z ")
}

// TestZygoteRestartsAfterItDies: a fork server that was killed is
// replaced; the workspace's runs go on meanwhile.
func TestZygoteRestartsAfterItDies(t *testing.T) {
	r, pids := newTenantRunner(t, Limits{})
	z := waitZygote(t, r, 1)
	z.kill()
	drain(pids)
	if got, _ := runIn(t, r, pids, 1, "def main(args):\n    return {'ok': 1}\n"); got != `{"ok":1} ` {
		t.Fatalf("the run after the server died: %s", got)
	}
	if z2 := waitZygote(t, r, 1); z2 == z || !z2.alive() {
		t.Fatal("the dead server was not replaced")
	}
}

// TestZygotesAreBounded: past Limits.Zygotes workspaces, the least
// recently used idle server ends; one idle Limits.WarmIdle ends too.
func TestZygotesAreBounded(t *testing.T) {
	r, _ := newTenantRunner(t, Limits{Zygotes: 1, WarmIdle: time.Second})
	z1 := waitZygote(t, r, 1)
	z2 := waitZygote(t, r, 2)
	waitEnded(t, z1, 5*time.Second)
	if !z2.alive() {
		t.Fatal("the new workspace's server ended")
	}
	waitEnded(t, z2, 5*time.Second) // idle for WarmIdle
}

func waitEnded(t *testing.T, z *zygote, within time.Duration) {
	t.Helper()
	select {
	case <-z.exited:
	case <-time.After(within):
		t.Fatalf("workspace %d's fork server still runs after %s", z.tenant, within)
	}
}

// TestZygoteRegistryRules: a server that failed to start pauses starts
// (runs take workers meanwhile); a busy server is never ended for
// another workspace's; a starting one serves no run.
func TestZygoteRegistryRules(t *testing.T) {
	zs := &zygotes{max: 1, idle: time.Minute, m: map[int64]*zygote{}}
	now := time.Now()
	_, start, _ := zs.get(1, now)
	if start == nil {
		t.Fatal("the first run of a workspace started no server")
	}
	if ready, again, _ := zs.get(1, now); ready != nil || again != nil {
		t.Fatal("a run used, or started another of, a server still starting")
	}
	zs.started(start, errors.New("no descriptors"), now)
	if ready, again, _ := zs.get(1, now.Add(time.Second)); ready != nil || again != nil {
		t.Fatal("a server started right after one failed")
	}
	later := now.Add(zygotePause)
	_, start, _ = zs.get(1, later)
	if start == nil {
		t.Fatal("no server started after the pause")
	}
	start.exited = make(chan struct{}) // a running sandbox, for alive
	zs.started(start, nil, later)
	busy, _, _ := zs.get(1, later)
	if busy != start {
		t.Fatal("the ready server served no run")
	}
	if _, other, ended := zs.get(2, later); other != nil || len(ended) != 0 {
		t.Fatal("a busy server was ended for another workspace's")
	}
	zs.leave(busy, later)
	if _, other, ended := zs.get(2, later); other == nil || len(ended) != 1 || ended[0] != busy {
		t.Fatal("the idle server was not ended for the new workspace's")
	}
}
