package main

import (
	"testing"
)

// TestTriggerScheduleTwoProcesses runs two pergola processes on MariaDB
// and Redis with a trigger ticking every second: each tick is claimed by
// one process and runs once, in the run history as the trigger's; after
// one process is killed (SIGKILL) the other keeps ticking, still once per
// tick.
func TestTriggerScheduleTwoProcesses(t *testing.T) {
	env := triggerEnv(backends()[1].env(t))
	p1 := startSelf(t, env)
	p2 := startSelf(t, env)
	_, wf := publishedCity(t, p1.testServer)
	id, first := intervalTrigger(t, p2.testServer, wf)
	claimed := waitTicks(t, p1.testServer, wf, id, first, 4, 0)
	p1.kill(t)
	waitTicks(t, p2.testServer, wf, id, first, claimed+3, 1)
	tr := p2.call(t, "GET", "/api/triggers/"+id, bootstrapToken, nil).must(t, 200).data
	if str(tr, "state") != "active" || str(tr, "last_status") != "started" || str(tr, "last_run_id") == "" {
		t.Errorf("trigger after the ticks = %v", tr)
	}
}

// TestTriggerScheduleOnSQLite ticks a schedule in one process on SQLite.
func TestTriggerScheduleOnSQLite(t *testing.T) {
	s := startServer(t, triggerEnv(backends()[0].env(t)))
	_, wf := publishedCity(t, s)
	id, first := intervalTrigger(t, s, wf)
	waitTicks(t, s, wf, id, first, 3, 0)
}
