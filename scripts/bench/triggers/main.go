// Command bench-triggers measures how fast the trigger dispatchers of
// several processes claim due schedule ticks, and that none is claimed
// twice. "setup" stores N schedule triggers all due now in a MariaDB
// database (the workflow runs are not what is measured: a stub runner
// answers each at once); "claim" is one dispatcher process: it runs the
// dispatcher's pass (due, claim by compare-and-set, record) until nothing
// is due and writes the ids of the triggers it claimed, one a line.
//
// Usage: bench-triggers -dsn DSN setup -n 2000
//
//	bench-triggers -dsn DSN claim -out FILE
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"sync"
	"time"

	triggerapp "github.com/pergola-ai/pergola/application/trigger"
	appwf "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/trigger"
	"github.com/pergola-ai/pergola/domain/workflow"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

func main() {
	dsn := flag.String("dsn", "", "MariaDB DSN shared by the processes")
	n := flag.Int("n", 2000, "setup: triggers due at once")
	out := flag.String("out", "", "claim: file of the claimed trigger ids")
	flag.Parse()
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, sqlstore.Config{DSN: *dsn})
	if err != nil {
		fail(err)
	}
	defer db.Close()
	switch flag.Arg(0) {
	case "setup":
		err = setup(ctx, db, *n)
	case "claim":
		err = claim(ctx, db, *out)
	default:
		err = fmt.Errorf("want setup or claim, got %q", flag.Arg(0))
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench-triggers:", err)
	os.Exit(1)
}

func setup(ctx context.Context, db *sqlstore.DB, n int) error {
	if _, err := db.Migrate(ctx); err != nil {
		return err
	}
	u := &identity.User{Email: "bench@x.io", Name: "bench"}
	if err := db.Users().CreateUser(ctx, u); err != nil {
		return err
	}
	ws := &identity.Workspace{Name: "bench", Kind: identity.WorkspaceTeam, OwnerID: u.ID}
	if err := db.Workspaces().CreateWorkspace(ctx, ws); err != nil {
		return err
	}
	due := time.Now().Add(-time.Second)
	for i := range n {
		t := &trigger.Trigger{WorkspaceID: ws.ID, CreatorID: u.ID, Name: fmt.Sprint("t", i), Kind: trigger.KindSchedule,
			WorkflowID: 1, Interval: time.Hour, Missed: trigger.MissedRunOnce, State: trigger.StateActive, NextRun: &due}
		if err := db.Triggers().Create(ctx, t); err != nil {
			return err
		}
	}
	return nil
}

// stubRunner starts nothing and notes which triggers it was asked to run.
type stubRunner struct {
	mu  sync.Mutex
	ids []string
}

func (r *stubRunner) RunAsync(_ context.Context, _ identity.Principal, req appwf.RunRequest) (*workflow.Run, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ids = append(r.ids, req.UserID)
	return &workflow.Run{ID: int64(len(r.ids))}, nil
}

func (r *stubRunner) Run(context.Context, identity.Principal, appwf.RunRequest) (*appwf.Outcome, error) {
	return nil, fmt.Errorf("not in the benchmark")
}

func (r *stubRunner) Prepare(context.Context, identity.Principal, appwf.RunRequest) (*appwf.Prepared, error) {
	return nil, fmt.Errorf("not in the benchmark")
}

func claim(ctx context.Context, db *sqlstore.DB, out string) error {
	runner := &stubRunner{}
	svc := triggerapp.New(triggerapp.Deps{Store: db.Triggers(), Runner: runner, MinInterval: time.Second})
	start := time.Now()
	for {
		due, err := db.Triggers().Due(ctx, time.Now(), 1)
		if err != nil {
			return err
		}
		if len(due) == 0 {
			break
		}
		if _, err := svc.DispatchDue(ctx); err != nil {
			return err
		}
	}
	elapsed := time.Since(start)
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, id := range runner.ids {
		fmt.Fprintln(w, id)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Printf("claimed %d ticks in %s\n", len(runner.ids), elapsed.Round(time.Millisecond))
	return f.Close()
}
