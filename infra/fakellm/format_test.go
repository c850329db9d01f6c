package fakellm_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// TestResponseFormat: with json_schema the default answer is a JSON object
// valid for the schema, with json_object a JSON object, and what OpenAI
// refuses (no "JSON" in the messages, an invalid schema) is a 400 on
// response_format.
func TestResponseFormat(t *testing.T) {
	s := fakellm.Start(t)
	schema := `{"type":"object","additionalProperties":false,"required":["name","kind","age","tags","ok","when"],"properties":{
		"name":{"type":"string"},"kind":{"type":"string","enum":["cat","dog"]},"age":{"type":"integer","minimum":3},
		"tags":{"type":"array","items":{"type":"string"}},"ok":{"type":"boolean"},"when":{"type":"string","format":"date-time"}}}`
	status, body := post(t, s, `{"model":"fake","messages":[{"role":"user","content":"a pet"}],
		"response_format":{"type":"json_schema","json_schema":{"name":"pet","strict":true,"schema":`+schema+`}}}`)
	want := `{"age":3,"kind":"cat","name":"x","ok":true,"tags":["x"],"when":"2024-01-01T00:00:00Z"}`
	if status != http.StatusOK || answer(t, body) != want {
		t.Fatalf("json_schema: %d %s, want the answer %s", status, body, want)
	}
	status, body = post(t, s, `{"model":"fake","messages":[{"role":"user","content":"hi, in JSON"}],"response_format":{"type":"json_object"}}`)
	if status != http.StatusOK || answer(t, body) != `{"echo":"echo: hi, in JSON"}` {
		t.Fatalf("json_object: %d %s", status, body)
	}
	refused := []struct{ name, format, want string }{
		{"json_object without the word", `{"type":"json_object"}`, "must contain the word 'json'"},
		{"unknown type", `{"type":"xml"}`, "Invalid value: 'xml'"},
		{"schema not an object", `{"type":"json_schema","json_schema":{"name":"n","schema":{"type":"string"}}}`, "must be a JSON Schema of"},
		{"bad name", `{"type":"json_schema","json_schema":{"name":"a b","schema":{"type":"object"}}}`, "json_schema.name"},
		{"unknown type inside", `{"type":"json_schema","json_schema":{"name":"n","schema":{"type":"object","properties":{"a":{"type":"str"}}}}}`, "is not a valid type"},
		{"strict without required", `{"type":"json_schema","json_schema":{"name":"n","strict":true,"schema":{"type":"object","additionalProperties":false,"properties":{"a":{"type":"string"}}}}}`, "Missing 'a'"},
	}
	for _, c := range refused {
		status, body := post(t, s, `{"model":"fake","messages":[{"role":"user","content":"hi"}],"response_format":`+c.format+`}`)
		if status != http.StatusBadRequest || !strings.Contains(string(body), c.want) || !strings.Contains(string(body), `"param":"response_format"`) {
			t.Errorf("%s: %d %s, want 400 on response_format saying %q", c.name, status, body, c.want)
		}
	}
}

func answer(t *testing.T, body []byte) string {
	t.Helper()
	var c struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(body, &c); err != nil || len(c.Choices) == 0 {
		t.Fatalf("body %s: %v", body, err)
	}
	return c.Choices[0].Message.Content
}
