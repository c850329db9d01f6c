package sqlstore

import (
	"encoding/json"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/workflow"
)

// inlineNode is one node record as a run's row holds it, in a JSON array:
// inputs and outputs (JSON already) are kept as they are, not quoted
// again; text that is not JSON goes to input_text or output_text.
type inlineNode struct {
	Seq          int64           `json:"seq"`
	NodeID       string          `json:"node_id"`
	Type         string          `json:"type,omitempty"`
	Title        string          `json:"title,omitempty"`
	Parent       string          `json:"parent,omitempty"`
	Index        int             `json:"index"`
	Status       string          `json:"status,omitempty"`
	Handled      bool            `json:"handled,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	InputText    *string         `json:"input_text,omitempty"`
	Output       json.RawMessage `json:"output,omitempty"`
	OutputText   *string         `json:"output_text,omitempty"`
	Error        string          `json:"error,omitempty"`
	Logs         string          `json:"logs,omitempty"`
	StartedMS    int64           `json:"started_ms"`
	DurationUS   int64           `json:"duration_us,omitempty"`
	InputTokens  int64           `json:"input_tokens,omitempty"`
	OutputTokens int64           `json:"output_tokens,omitempty"`
	Attempts     int             `json:"attempts,omitempty"`
}

// encodeNodes writes node records as a run's row keeps them; ok is false
// when they are too many or too large for one row. It appends by hand:
// encoding/json would cost about as much as running the nodes did.
func encodeNodes(recs []workflow.NodeRun) (string, bool) {
	if len(recs) > inlineMaxNodes {
		return "", false
	}
	b := make([]byte, 0, 160*len(recs)+2)
	b = append(b, '[')
	for i := range recs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendNode(b, &recs[i])
		if len(b) > inlineMaxBytes {
			return "", false
		}
	}
	return string(append(b, ']')), true
}

// appendNode appends one record as an inlineNode object.
func appendNode(b []byte, r *workflow.NodeRun) []byte {
	b = strconv.AppendInt(append(b, `{"seq":`...), r.Seq, 10)
	b = appendString(append(b, `,"node_id":`...), r.NodeID)
	b = appendField(b, "type", r.Type)
	b = appendField(b, "title", r.Title)
	b = appendField(b, "parent", r.Parent)
	b = strconv.AppendInt(append(b, `,"index":`...), int64(r.Index), 10)
	b = appendField(b, "status", r.Status)
	if r.Handled {
		b = append(b, `,"handled":true`...)
	}
	b = appendJSON(b, "input", r.Input)
	b = appendJSON(b, "output", r.Output)
	b = appendField(b, "error", r.Error)
	b = appendField(b, "logs", r.Logs)
	b = strconv.AppendInt(append(b, `,"started_ms":`...), dbTime(r.StartedAt).UnixMilli(), 10)
	b = appendInt(b, "duration_us", r.Duration.Microseconds())
	b = appendInt(b, "input_tokens", r.InputTokens)
	b = appendInt(b, "output_tokens", r.OutputTokens)
	b = appendInt(b, "attempts", int64(r.Attempts))
	return append(b, '}')
}

// appendField appends ,"key":"value" unless value is empty.
func appendField(b []byte, key, value string) []byte {
	if value == "" {
		return b
	}
	b = append(append(append(b, `,"`...), key...), `":`...)
	return appendString(b, value)
}

// appendInt appends ,"key":n unless n is 0.
func appendInt(b []byte, key string, n int64) []byte {
	if n == 0 {
		return b
	}
	b = append(append(append(b, `,"`...), key...), `":`...)
	return strconv.AppendInt(b, n, 10)
}

// appendJSON appends ,"key":<value> for JSON text, ,"key_text":"value"
// for any other text (invalid UTF-8 included, which encoding/json
// replaces: a MySQL utf8mb4 column refuses it), and nothing for none.
func appendJSON(b []byte, key, value string) []byte {
	if value == "" {
		return b
	}
	if !utf8.ValidString(value) || !json.Valid([]byte(value)) {
		return appendField(b, key+"_text", value)
	}
	b = append(append(append(b, `,"`...), key...), `":`...)
	return append(b, value...)
}

// appendString appends s as a JSON string: as it is when it is plain
// ASCII, through encoding/json when it needs escaping.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	return append(append(append(b, '"'), s...), '"')
}

// decodeNodes reads the node records a run's row holds, in seq order.
func decodeNodes(runID int64, text string) ([]workflow.NodeRun, error) {
	var in []inlineNode
	if err := json.Unmarshal([]byte(text), &in); err != nil {
		return nil, err
	}
	out := make([]workflow.NodeRun, len(in))
	for i, n := range in {
		out[i] = workflow.NodeRun{RunID: runID, Seq: n.Seq, NodeID: n.NodeID, Type: n.Type, Title: n.Title, Parent: n.Parent,
			Index: n.Index, Status: n.Status, Handled: n.Handled, Input: jsonOrText(n.Input, n.InputText),
			Output: jsonOrText(n.Output, n.OutputText), Error: n.Error, Logs: n.Logs,
			StartedAt: time.UnixMilli(n.StartedMS).UTC(), Duration: time.Duration(n.DurationUS) * time.Microsecond,
			InputTokens: n.InputTokens, OutputTokens: n.OutputTokens, Attempts: n.Attempts}
	}
	slices.SortStableFunc(out, func(a, b workflow.NodeRun) int { return int(a.Seq - b.Seq) })
	return out, nil
}

func jsonOrText(raw json.RawMessage, text *string) string {
	if text != nil {
		return *text
	}
	return string(raw)
}
