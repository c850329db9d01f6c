package main

import (
	"strings"
	"testing"
	"time"

	channelapp "github.com/pergola-ai/pergola/application/channel"
)

// TestTriggersHardening tries what a careless builder or an attacker
// sends to the trigger routes: schedules that would get around the
// minimum interval or never fire, fixed inputs the workflow refuses,
// misspelt or unknown fields, sizes that overflow, a webhook call whose
// request id was burnt by a refused call, a replayed signed call, an
// over-long Idempotency-Key and a page number that overflows. Every one
// is a 400 naming the field, or the documented answer. On SQLite and on
// MariaDB with Redis.
func TestTriggersHardening(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			s := startServer(t, triggerEnv(b.env(t)))
			ws, wf := publishedCity(t, s)
			t.Run("create", func(t *testing.T) { checkCreateHardening(t, s, wf) })
			t.Run("patch", func(t *testing.T) { checkPatchHardening(t, s, wf) })
			t.Run("webhook retry", func(t *testing.T) { checkWebhookRetry(t, s, wf) })
			t.Run("webhook replay", func(t *testing.T) { checkWebhookReplay(t, s, wf) })
			s.call(t, "GET", "/api/triggers?workspace_id="+ws+"&page_size=100&page_num=922337203685477580", bootstrapToken, nil).
				fails(t, 400, 4000, "page_num: must be at most")
		})
	}
}

func checkCreateHardening(t *testing.T, s *testServer, wf string) {
	city := map[string]any{"city": "Paris"}
	for want, body := range map[string]map[string]any{
		"cron: @every is not taken":      {"cron": "@every 1s", "inputs": city},
		"cron: give the time zone":       {"cron": "CRON_TZ=Asia/Tokyo 0 8 * * *", "inputs": city},
		"cron: \"0 0 30 2 *\" never":     {"cron": "0 0 30 2 *", "inputs": city},
		"time_zone: unknown IANA":        {"cron": "0 8 * * *", "time_zone": "Local", "inputs": city},
		"interval_seconds: the interval": {"interval_seconds": 1e18, "inputs": city},
		"inputs.city: is required":       {"interval_seconds": 60},
		"inputs.city: want string":       {"interval_seconds": 60, "inputs": map[string]any{"city": 5}},
		"interval: is not a known field": {"interval": 60, "inputs": city},
	} {
		body["name"], body["kind"], body["workflow_id"] = "x", "schedule", wf
		s.call(t, "POST", "/api/triggers", bootstrapToken, body).fails(t, 400, 4000, want)
	}
}

func checkPatchHardening(t *testing.T, s *testServer, wf string) {
	id, _ := intervalTrigger(t, s, wf)
	path := "/api/triggers/" + id
	for want, body := range map[string]map[string]any{
		"timezone: is not a known field": {"timezone": "Europe/Paris"},
		"secret: is not a known field":   {"secret": "rotated"},
		"channel_id: only a bot trigger": {"channel_id": "5"},
		"cron: @every is not taken":      {"cron": "@every 2s"},
		"inputs.city: is required":       {"inputs": map[string]any{}},
		"interval_seconds: the interval": {"interval_seconds": 9.3e18},
	} {
		s.call(t, "PATCH", path, bootstrapToken, body).fails(t, 400, 4000, want)
	}
	d := s.call(t, "GET", path, bootstrapToken, nil).must(t, 200).data
	if str(d, "time_zone") != "" || str(d, "cron") != "" || str(d["inputs"].(map[string]any), "city") != "Paris" {
		t.Errorf("after refused edits the trigger is %v, want it unchanged", d)
	}
	s.call(t, "DELETE", path, bootstrapToken, nil).must(t, 200)
}

// checkWebhookRetry: a call refused before its run started (a missing
// input) does not burn its Idempotency-Key: the corrected retry runs.
func checkWebhookRetry(t *testing.T, s *testServer, wf string) {
	d := s.call(t, "POST", "/api/triggers", bootstrapToken, map[string]any{"name": "retry hook", "kind": "webhook",
		"workflow_id": wf, "auth": "header", "secret": "retry-secret"}).must(t, 201).data
	path := str(d, "webhook_path")
	hdr := map[string]string{"X-Pergola-Secret": "retry-secret", "Idempotency-Key": "order-17"}
	if status, out := hookCall(t, s, path, []byte(`{}`), hdr); status != 400 {
		t.Fatalf("a call without city = %d %v, want 400", status, out)
	}
	status, out := hookCall(t, s, path, []byte(`{"city":"Oslo"}`), hdr)
	if data, _ := out["data"].(map[string]any); status != 202 || data["duplicate"] == true || str(data, "execute_id") == "0" {
		t.Errorf("the corrected retry = %d %v, want 202 and a run of its own", status, out)
	}
	hdr["Idempotency-Key"] = strings.Repeat("k", 129)
	if status, out := hookCall(t, s, path, []byte(`{"city":"Oslo"}`), hdr); status != 400 || !strings.Contains(str(out, "msg"), "Idempotency-Key") {
		t.Errorf("a 129-character Idempotency-Key = %d %v, want 400 naming it", status, out)
	}
}

// checkWebhookReplay: a copy of a signed call, sent again within the
// signature's five minutes (with or without a new Idempotency-Key),
// answers the first call's run as a duplicate and runs nothing.
func checkWebhookReplay(t *testing.T, s *testServer, wf string) {
	d := s.call(t, "POST", "/api/triggers", bootstrapToken, map[string]any{"name": "signed hook", "kind": "webhook",
		"workflow_id": wf, "secret": "replay-secret"}).must(t, 201).data
	path, id := str(d, "webhook_path"), str(d, "id")
	body := []byte(`{"city":"Oslo"}`)
	sig := channelapp.Sign("replay-secret", time.Now(), body)
	status, out := hookCall(t, s, path, body, map[string]string{channelapp.SignatureHeader: sig})
	first := str(out["data"].(map[string]any), "execute_id")
	if status != 202 || first == "" {
		t.Fatalf("signed call = %d %v, want 202", status, out)
	}
	upper := strings.ToUpper(sig[strings.Index(sig, "v1=")+3:])
	for _, hdr := range []map[string]string{
		{channelapp.SignatureHeader: sig},
		{channelapp.SignatureHeader: sig, "Idempotency-Key": "fresh"},
		{channelapp.SignatureHeader: sig[:strings.Index(sig, "v1=")+3] + upper},
	} {
		status, out := hookCall(t, s, path, body, hdr)
		if data, _ := out["data"].(map[string]any); status != 200 || data["duplicate"] != true || str(data, "execute_id") != first {
			t.Errorf("replayed copy %v = %d %v, want 200, duplicate, execute id %s", hdr, status, out, first)
		}
	}
	later := channelapp.Sign("replay-secret", time.Now().Add(time.Second), body)
	if status, out := hookCall(t, s, path, body, map[string]string{channelapp.SignatureHeader: later}); status != 202 {
		t.Errorf("a new signed call of the same body = %d %v, want 202", status, out)
	}
	waitFor(t, "two runs: the first call and the newly signed one", func() bool { return triggerRuns(t, s, wf, id) == 2 })
}
