package provider

import (
	"testing"

	"github.com/cloudwego/eino/schema"
)

// TestFillToolResults: an empty tool result is sent as NoOutput, in a
// copy; other messages, and a result with text, are sent as they are.
func TestFillToolResults(t *testing.T) {
	in := []*schema.Message{schema.UserMessage("q"), schema.ToolMessage("", "c1"), schema.ToolMessage("ok", "c2")}
	out := fillToolResults(in)
	if out[1].Content != NoOutput || out[1].ToolCallID != "c1" || out[2] != in[2] || out[0] != in[0] {
		t.Fatalf("filled = %v", out)
	}
	if in[1].Content != "" {
		t.Fatal("the caller's message was modified")
	}
	if full := []*schema.Message{schema.UserMessage("q")}; &fillToolResults(full)[0] != &full[0] {
		t.Fatal("messages with nothing to fill were copied")
	}
}
