package workflow

import (
	"encoding/json"
	"strings"

	wf "github.com/pergola-ai/pergola/workflow"
)

// ChatAnswer turns the text of a chat message into the answer to an
// interrupt. A question takes the text as it is. An input node takes a
// JSON object of its fields; in a chat, as in Coze Studio's chatflows,
// the message may instead hold one "name: value" line per field, each
// value converted to its field's type.
func ChatAnswer(in *wf.Interrupt, text string) string {
	if in.Kind != wf.InterruptInput || isJSONObject(text) {
		return text
	}
	types := make(map[string]wf.Schema, len(in.Fields))
	for _, f := range in.Fields {
		types[f.Name] = f.Schema
	}
	obj := map[string]any{}
	for _, line := range strings.Split(text, "\n") {
		name, value, ok := strings.Cut(line, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			continue
		}
		obj[name] = fieldValue(types[name], strings.TrimSpace(value))
	}
	b, _ := json.Marshal(obj)
	return string(b)
}

// fieldValue converts the text of a field to its type; what does not
// convert stays text, for the form's check to refuse.
func fieldValue(s wf.Schema, text string) any {
	if s.Type == wf.TypeString || s.Type == wf.TypeAny {
		return text
	}
	v, warns := wf.Coerce(s, text)
	if len(warns) > 0 || v == nil {
		return text
	}
	return v
}

func isJSONObject(text string) bool {
	var obj map[string]any
	return json.Unmarshal([]byte(strings.TrimSpace(text)), &obj) == nil && obj != nil
}
