package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestTriggersAPI manages triggers through /api/triggers: bad fields are
// refused naming them, a cron schedule's next run is in its time zone,
// pause and resume, delete; a schedule whose workflow is deleted pauses
// itself saying why. On SQLite and on MariaDB with Redis.
func TestTriggersAPI(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			s := startServer(t, triggerEnv(b.env(t)))
			ws, wf := publishedCity(t, s)
			checkTriggerRefusals(t, s, ws, wf)
			checkCronTrigger(t, s, ws, wf)
			checkPausedWhenWorkflowDeleted(t, s, ws)
		})
	}
}

func checkTriggerRefusals(t *testing.T, s *testServer, ws, wf string) {
	draft := str(s.call(t, "POST", "/api/workflows", bootstrapToken, map[string]any{"workspace_id": ws, "name": "draft",
		"definition": json.RawMessage(cityWorkflow)}).must(t, 201).data, "id")
	for field, body := range map[string]map[string]any{
		"kind":             {"name": "x", "kind": "never", "workflow_id": wf},
		"cron":             {"name": "x", "kind": "schedule", "workflow_id": wf, "cron": "every day"},
		"time_zone":        {"name": "x", "kind": "schedule", "workflow_id": wf, "cron": "0 8 * * *", "time_zone": "Mars/Olympus"},
		"interval_seconds": {"name": "x", "kind": "schedule", "workflow_id": wf, "interval_seconds": 0.5},
		"missed":           {"name": "x", "kind": "schedule", "workflow_id": wf, "cron": "@daily", "missed": "all"},
		"workflow_id":      {"name": "x", "kind": "schedule", "workflow_id": draft, "cron": "@daily"},
		"name":             {"name": " ", "kind": "webhook", "workflow_id": wf},
		"auth":             {"name": "x", "kind": "webhook", "workflow_id": wf, "auth": "basic"},
	} {
		s.call(t, "POST", "/api/triggers", bootstrapToken, body).fails(t, 400, 4000, field)
	}
	s.call(t, "GET", "/api/triggers", bootstrapToken, nil).fails(t, 400, 4000, "workspace_id")
	s.call(t, "GET", "/api/triggers/12345", bootstrapToken, nil).fails(t, 404, 4200, "trigger")
}

func checkCronTrigger(t *testing.T, s *testServer, ws, wf string) {
	d := s.call(t, "POST", "/api/triggers", bootstrapToken, map[string]any{"name": "morning", "kind": "schedule",
		"workflow_id": wf, "cron": "0 8 * * *", "time_zone": "Europe/Paris", "inputs": map[string]any{"city": "Lyon"}}).must(t, 201).data
	id := str(d, "id")
	paris, _ := time.LoadLocation("Europe/Paris")
	if next := nextRun(t, s, id); next.In(paris).Hour() != 8 || next.In(paris).Minute() != 0 || !next.After(time.Now()) {
		t.Errorf("next run of 0 8 * * * in Paris = %v", next.In(paris))
	}
	if str(d, "missed") != "skip" || str(d, "state") != "active" {
		t.Errorf("created = %v, want missed skip by default and active", d)
	}
	p := s.call(t, "POST", "/api/triggers/"+id+"/pause", bootstrapToken, nil).must(t, 200).data
	if str(p, "state") != "paused" || p["next_run"] != nil || str(p, "pause_reason") == "" {
		t.Errorf("paused = %v", p)
	}
	if r := s.call(t, "POST", "/api/triggers/"+id+"/resume", bootstrapToken, nil).must(t, 200).data; str(r, "state") != "active" || str(r, "next_run") == "" {
		t.Errorf("resumed = %v", r)
	}
	list := items(t, s.call(t, "GET", "/api/triggers?workspace_id="+ws, bootstrapToken, nil).must(t, 200).data, "items")
	if len(list) != 1 || str(list[0], "id") != id || str(list[0], "secret") != "" {
		t.Errorf("list = %v", list)
	}
	s.call(t, "DELETE", "/api/triggers/"+id, bootstrapToken, nil).must(t, 200)
	s.call(t, "GET", "/api/triggers/"+id, bootstrapToken, nil).fails(t, 404, 4200, "trigger")
}

func checkPausedWhenWorkflowDeleted(t *testing.T, s *testServer, ws string) {
	wf := str(s.call(t, "POST", "/api/workflows", bootstrapToken, map[string]any{"workspace_id": ws, "name": "doomed",
		"definition": json.RawMessage(cityWorkflow)}).must(t, 201).data, "id")
	s.call(t, "POST", "/api/workflows/"+wf+"/publish", bootstrapToken, nil).must(t, 201)
	id, _ := intervalTrigger(t, s, wf)
	s.call(t, "DELETE", "/api/workflows/"+wf, bootstrapToken, nil).must(t, 200)
	deadline := time.Now().Add(5 * time.Second)
	for {
		d := s.call(t, "GET", "/api/triggers/"+id, bootstrapToken, nil).must(t, 200).data
		if str(d, "state") == "paused" {
			if !strings.Contains(str(d, "pause_reason"), "workflow") || str(d, "last_status") != "failed" {
				t.Errorf("trigger of a deleted workflow = %v", d)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("a trigger of a deleted workflow is still %v after 5s", d)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
