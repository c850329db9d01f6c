package cozeimport

import (
	"encoding/json"
	"testing"
)

// llmNode is Coze LLM node 7 with the given extra llmParam entries.
func llmNode(extra string) string {
	lit := func(typ, name, v string) string {
		return `{"name":"` + name + `","input":{"type":"` + typ + `","value":{"type":"literal","content":` + v + `}}}`
	}
	params := lit("string", "modelType", `"1001"`) + "," + lit("string", "prompt", `"{{input}}"`) + "," +
		lit("string", "systemPrompt", `""`) + "," + lit("string", "responseFormat", `"0"`)
	if extra != "" {
		params += "," + extra
	}
	return `{"id":"7","type":"3","data":{"inputs":{"inputParameters":[{"name":"input","input":` + startRef("q", "string") +
		`}],"llmParam":[` + params + `]},"outputs":[{"name":"output","type":"string"}]}}`
}

// TestLLMChatHistory: Coze's enableChatHistory with chatHistoryRound
// becomes chat_history_rounds (3, Coze's default, when no round is set;
// bounded by the DSL's maximum); disabled history sets nothing.
func TestLLMChatHistory(t *testing.T) {
	on := `{"name":"enableChatHistory","input":{"type":"boolean","value":{"type":"literal","content":true}}}`
	off := `{"name":"enableChatHistory","input":{"type":"boolean","value":{"type":"literal","content":false}}}`
	round := func(n string) string {
		return `{"name":"chatHistoryRound","input":{"type":"integer","value":{"type":"literal","content":"` + n + `"}}}`
	}
	tests := []struct {
		name, extra string
		want        any
	}{
		{"none", "", nil},
		{"disabled", off + "," + round("5"), nil},
		{"enabled with rounds", on + "," + round("5"), 5.0},
		{"enabled without rounds", on, 3.0},
		{"rounds above the maximum", on + "," + round("500"), 50.0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, rep := converted(t, llmNode(tt.extra))
			var n struct {
				Config map[string]any `json:"config"`
			}
			if err := json.Unmarshal([]byte(got), &n); err != nil {
				t.Fatalf("node %q: %v", got, err)
			}
			if n.Config["chat_history_rounds"] != tt.want {
				t.Fatalf("chat_history_rounds = %v, want %v (node %s)", n.Config["chat_history_rounds"], tt.want, got)
			}
			if len(rep.NeedsConversion) > 0 {
				t.Errorf("needs conversion: %+v", rep.NeedsConversion)
			}
		})
	}
}
