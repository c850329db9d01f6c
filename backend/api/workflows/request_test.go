package workflows

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/workflow"
)

func TestRunRequest(t *testing.T) {
	cases := []struct {
		body    string
		version int64
		params  string
		err     string
	}{
		{body: `{"workflow_id":"7","parameters":{"q":"hi","n":2}}`, params: `map[n:2 q:hi]`},
		{body: `{"workflow_id":7,"parameters":"{\"q\":\"hi\"}","workflow_version":"v3"}`, version: 3, params: `map[q:hi]`},
		{body: `{"workflow_id":"7","version":"2"}`, version: 2, params: `map[]`},
		{body: `{"parameters":{}}`, err: "workflow_id: is required"},
		{body: `{"workflow_id":"7","is_async":true}`, params: `map[]`},
		{body: `{"workflow_id":"7","parameters":[1]}`, err: "parameters: must be an object"},
		{body: `{"workflow_id":"7","workflow_version":"latest"}`, err: `workflow_version: must be a published version number`},
	}
	for _, tc := range cases {
		var req runRequest
		if err := json.Unmarshal([]byte(tc.body), &req); err != nil {
			t.Fatalf("%s: %v", tc.body, err)
		}
		got, err := req.toApp(workflow.RunSync)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.body, err, tc.err)
			}
			continue
		}
		if err != nil || got.Version != tc.version || fmtMap(got.Params) != tc.params {
			t.Errorf("%s: %+v, %v", tc.body, got, err)
		}
	}
}

func TestDefinitionBytes(t *testing.T) {
	for raw, want := range map[string]string{`{"nodes":[]}`: `{"nodes":[]}`, `"nodes: []"`: `nodes: []`, `null`: ``, ``: ``} {
		got, err := definitionBytes(json.RawMessage(raw))
		if err != nil || string(got) != want {
			t.Errorf("definitionBytes(%s) = %q, %v", raw, got, err)
		}
	}
	if _, err := definitionBytes(json.RawMessage(`[1]`)); err == nil {
		t.Error("an array was accepted as a definition")
	}
}

func fmtMap(m map[string]any) string {
	b := strings.Builder{}
	b.WriteString("map[")
	first := true
	for _, k := range []string{"n", "q"} {
		if v, ok := m[k]; ok {
			if !first {
				b.WriteString(" ")
			}
			first = false
			b.WriteString(k + ":" + strings.Trim(string(mustJSON(v)), `"`))
		}
	}
	b.WriteString("]")
	return b.String()
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
