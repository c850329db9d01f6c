package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// apiClient calls the Pergola API with a token.
type apiClient struct {
	base, token string
	http        *http.Client
}

// envelope is the answer of the Coze-style API.
type envelope struct {
	Code int             `json:"code"`
	Msg  string          `json:"msg"`
	Data json.RawMessage `json:"data"`
}

// call sends a request and decodes its envelope; any status but want, or
// a non-zero code, is an error.
func (a *apiClient) call(method, path string, body any, want int) (*envelope, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, a.base+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := a.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var env envelope
	if err := json.Unmarshal(raw, &env); err != nil || resp.StatusCode != want || env.Code != 0 {
		return nil, fmt.Errorf("%s %s: status %d: %.300s", method, path, resp.StatusCode, raw)
	}
	return &env, nil
}

// workspace returns the id of the token's first workspace.
func (a *apiClient) workspace() (string, error) {
	env, err := a.call("GET", "/v1/workspaces", nil, 200)
	if err != nil {
		return "", err
	}
	var d struct {
		Workspaces []struct {
			ID string `json:"id"`
		} `json:"workspaces"`
	}
	if err := json.Unmarshal(env.Data, &d); err != nil || len(d.Workspaces) == 0 {
		return "", fmt.Errorf("no workspace in %s", env.Data)
	}
	return d.Workspaces[0].ID, nil
}

// publish creates a workflow and publishes it; it returns its id.
func (a *apiClient) publish(ws, name string, def map[string]any) (string, error) {
	env, err := a.call("POST", "/api/workflows", map[string]any{"workspace_id": ws, "name": name, "definition": def}, 201)
	if err != nil {
		return "", err
	}
	var d struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(env.Data, &d); err != nil || d.ID == "" {
		return "", fmt.Errorf("no workflow id in %s", env.Data)
	}
	if _, err := a.call("POST", "/api/workflows/"+d.ID+"/publish", nil, 201); err != nil {
		return "", err
	}
	return d.ID, nil
}

// run runs a workflow synchronously and checks its answer.
func (a *apiClient) run(id string) error {
	env, err := a.call("POST", "/v1/workflow/run", map[string]any{"workflow_id": id,
		"parameters": map[string]any{"name": "Ada"}}, 200)
	if err != nil {
		return err
	}
	var data string
	if err := json.Unmarshal(env.Data, &data); err != nil || data == "" {
		return fmt.Errorf("a run answered data %s", env.Data)
	}
	return nil
}

// latencies runs a workflow n times, one at a time, and returns the p50
// and p99 of the answers.
func latencies(a *apiClient, id string, n int) (p50, p99 time.Duration, err error) {
	took := make([]time.Duration, 0, n)
	for range n {
		t0 := time.Now()
		if err := a.run(id); err != nil {
			return 0, 0, err
		}
		took = append(took, time.Since(t0))
	}
	return pct(took, 50), pct(took, 99), nil
}

// throughput runs a workflow m times from clients goroutines and returns
// the runs per second.
func throughput(a *apiClient, id string, m, clients int) (float64, error) {
	work := make(chan struct{}, m)
	for range m {
		work <- struct{}{}
	}
	close(work)
	errc := make(chan error, clients)
	t0 := time.Now()
	for range clients {
		go func() {
			for range work {
				if err := a.run(id); err != nil {
					errc <- err
					return
				}
			}
			errc <- nil
		}()
	}
	var first error
	for range clients {
		if err := <-errc; err != nil && first == nil {
			first = err
		}
	}
	return float64(m) / time.Since(t0).Seconds(), first
}
