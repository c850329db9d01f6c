package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/pergola-ai/pergola/scripts/bench/internal/benchkit"
)

// target is something that runs the 2-node echo workflow over HTTP.
type target struct {
	name string
	run  func(name string) (time.Duration, error)
}

// pergolaRun runs a published workflow through POST /v1/workflow/run and
// checks its output echoes the name.
func pergolaRun(cl *benchkit.Client, id string) func(name string) (time.Duration, error) {
	return func(name string) (time.Duration, error) {
		t0 := time.Now()
		env, err := cl.Call("POST", "/v1/workflow/run", map[string]any{"workflow_id": id, "parameters": map[string]any{"name": name}}, 200)
		took := time.Since(t0)
		if err != nil {
			return took, err
		}
		var data string // Coze's run answers its output as a JSON string
		var out struct {
			Out string `json:"out"`
		}
		if json.Unmarshal(env.Data, &data) != nil || json.Unmarshal([]byte(data), &out) != nil || out.Out != name {
			return took, fmt.Errorf("workflow run answered %s, want out %q", env.Data, name)
		}
		return took, nil
	}
}

// n8nRun posts {"name": …} to an n8n webhook whose workflow answers
// {"out": name} (Webhook → Respond to Webhook) and checks the answer.
func n8nRun(client *http.Client, url string) func(name string) (time.Duration, error) {
	return func(name string) (time.Duration, error) {
		body, _ := json.Marshal(map[string]string{"name": name})
		t0 := time.Now()
		resp, err := client.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			return time.Since(t0), err
		}
		raw, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		took := time.Since(t0)
		if err != nil {
			return took, err
		}
		var out struct {
			Out string `json:"out"`
		}
		if resp.StatusCode != 200 || json.Unmarshal(raw, &out) != nil || out.Out != name {
			return took, fmt.Errorf("n8n answered %d %.200s, want out %q", resp.StatusCode, raw, name)
		}
		return took, nil
	}
}
