package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"

	wf "github.com/pergola-ai/pergola/workflow"
)

// questionOf turns a run's interrupt into what the client asks: a
// question node's text (with its options as an enum unless other answers
// are allowed) or an input node's form.
func questionOf(in *wf.Interrupt) Question {
	if in.Kind == wf.InterruptInput {
		return Question{Message: formMessage(in), Schema: formSchema(in.Fields)}
	}
	answer := map[string]any{"type": "string", "title": "Answer"}
	if len(in.Options) > 0 && !in.AllowOther {
		answer["enum"] = in.Options
	} else if len(in.Options) > 0 {
		answer["description"] = "One of " + strings.Join(in.Options, ", ") + ", or another answer."
	}
	msg := in.Question
	if msg == "" {
		msg = in.Title
	}
	return Question{Message: msg, Schema: map[string]any{"type": "object",
		"properties": map[string]any{"answer": answer}, "required": []any{"answer"}}}
}

func formMessage(in *wf.Interrupt) string {
	if in.Question != "" {
		return in.Question
	}
	if in.Title != "" {
		return in.Title
	}
	return "The workflow needs these values to continue."
}

// formSchema is the flat schema elicitation allows: scalars as they are,
// objects and arrays as JSON text.
func formSchema(fields []wf.Param) map[string]any {
	props := map[string]any{}
	var required []any
	for _, f := range fields {
		var s map[string]any
		switch f.Type {
		case wf.TypeString, wf.TypeInteger, wf.TypeNumber, wf.TypeBoolean:
			s = map[string]any{"type": string(f.Type)}
		default:
			s = map[string]any{"type": "string", "description": "JSON"}
		}
		if f.Description != "" {
			s["description"] = f.Description
		}
		s["title"] = f.Name
		props[f.Name] = s
		if f.Required {
			required = append(required, f.Name)
		}
	}
	out := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		out["required"] = required
	}
	return out
}

// answerData is the resume data of an answer: a question's text, or an
// input node's JSON object (fields given as JSON text decoded).
func answerData(in *wf.Interrupt, content map[string]any) (string, error) {
	if in.Kind != wf.InterruptInput {
		a, ok := content["answer"]
		if !ok {
			return "", errs.Invalid("answer", "is missing")
		}
		if s, ok := a.(string); ok {
			return s, nil
		}
		return fmt.Sprint(a), nil
	}
	obj := map[string]any{}
	for _, f := range in.Fields {
		v, ok := content[f.Name]
		if !ok {
			continue
		}
		if s, isText := v.(string); isText && f.Type != wf.TypeString && f.Type != wf.TypeFile {
			var decoded any
			if json.Unmarshal([]byte(s), &decoded) == nil {
				v = decoded
			}
		}
		obj[f.Name] = v
	}
	b, err := json.Marshal(obj)
	return string(b), err
}
