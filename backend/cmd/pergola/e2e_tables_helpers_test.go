package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/infra/tablestore/tablestoretest"
)

// tableBackends are backends() with a database for the rows of tables on
// MariaDB, reached by a user that may use that database only.
func tableBackends() []backend {
	out := backends()
	for i := range out {
		if out[i].name == "sqlite" {
			continue
		}
		env := out[i].env
		out[i].env = func(t *testing.T) map[string]string {
			e := env(t)
			e["PERGOLA_TABLES_DSN"] = tablestoretest.MySQL(t)
			return e
		}
	}
	return out
}

// answerText joins the deltas of a streamed answer.
func answerText(t *testing.T, events []sseEvent) string {
	t.Helper()
	var b strings.Builder
	for _, e := range events {
		if e.name == "conversation.message.delta" {
			b.WriteString(str(e.obj(t), "content"))
		}
	}
	return b.String()
}

// sqlCall is a user message that makes the fake model call the table's
// tool with sql.
func sqlCall(tableName, sql string) []map[string]any {
	args, _ := json.Marshal(map[string]string{"sql": sql})
	return userMessage("#call " + tableName + " " + string(args))
}

// raw sends a request and returns the status, the content type and the
// body as they are, for answers that are not JSON.
func (s *testServer) raw(t *testing.T, method, path, token, body string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "text/csv")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}
