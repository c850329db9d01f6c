package fakellm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// callDirective starts a tool call request in a user message.
const callDirective = "#call"

// defaultReply is the stateless behaviour described in the package doc.
func defaultReply(r Request) Reply {
	reply := unformattedReply(r)
	if r.Format != nil && len(reply.ToolCalls) == 0 {
		reply.Text = formatted(r.Format, reply.Text)
	}
	return reply
}

func unformattedReply(r Request) Reply {
	if n := len(r.Messages); n > 0 && r.Messages[n-1].Role == "tool" {
		return Text("tool said: " + trailingToolContents(r.Messages))
	}
	text := r.LastUserText()
	var calls []ToolCall
	for _, c := range parseCalls(text) {
		if r.HasTool(c.Function.Name) {
			calls = append(calls, c)
		}
	}
	if len(calls) > 0 {
		return Calls(calls...)
	}
	return Text("echo: " + text + imagesSeen(r))
}

// imagesSeen describes the image parts of the last user message, so a
// client that cannot read the recorded requests (the fakellm command)
// still sees what reached the model: " [image: image/png, 2016 bytes]" per
// data URL image, " [image: <url>]" per linked one.
func imagesSeen(r Request) string {
	var b strings.Builder
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role != "user" {
			continue
		}
		for _, img := range r.Messages[i].Images {
			if img.Data != nil {
				fmt.Fprintf(&b, " [image: %s, %d bytes]", img.MimeType, len(img.Data))
			} else {
				fmt.Fprintf(&b, " [image: %s]", img.URL)
			}
		}
		break
	}
	return b.String()
}

func trailingToolContents(msgs []Message) string {
	start := len(msgs)
	for start > 0 && msgs[start-1].Role == "tool" {
		start--
	}
	contents := make([]string, 0, len(msgs)-start)
	for _, m := range msgs[start:] {
		contents = append(contents, m.Content)
	}
	return strings.Join(contents, "; ")
}

// parseCalls finds every "#call <tool_name> <json args>" directive in text.
func parseCalls(text string) []ToolCall {
	var calls []ToolCall
	for {
		i := strings.Index(text, callDirective+" ")
		if i < 0 {
			return calls
		}
		text = strings.TrimLeftFunc(text[i+len(callDirective):], unicode.IsSpace)
		end := strings.IndexFunc(text, unicode.IsSpace)
		if end < 0 {
			end = len(text)
		}
		name, rest := text[:end], text[end:]
		if name == "" {
			continue
		}
		args, consumed := leadingJSON(rest)
		calls = append(calls, Call(name, args))
		text = rest[consumed:]
	}
}

// leadingJSON decodes the JSON value at the start of s (after spaces) and
// returns it compacted with the number of bytes it used, or "{}" and 0.
func leadingJSON(s string) (string, int) {
	trimmed := strings.TrimLeftFunc(s, unicode.IsSpace)
	if !strings.HasPrefix(trimmed, "{") {
		return "{}", 0
	}
	dec := json.NewDecoder(strings.NewReader(trimmed))
	var raw json.RawMessage
	if dec.Decode(&raw) != nil {
		return "{}", 0
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return "{}", 0
	}
	return b.String(), len(s) - len(trimmed) + int(dec.InputOffset())
}

// countTokens is the fake's tokenizer: ceil(runes/4).
func countTokens(s string) int {
	return (utf8.RuneCountInString(s) + 3) / 4
}

func promptTokens(r Request) int {
	n := 0
	for _, m := range r.Messages {
		n += countTokens(m.Content)
		for _, c := range m.ToolCalls {
			n += countTokens(c.Function.Name) + countTokens(c.Function.Arguments)
		}
	}
	return n
}

func completionTokens(reply Reply) int {
	n := countTokens(reply.Text)
	for _, c := range reply.ToolCalls {
		n += countTokens(c.Function.Name) + countTokens(c.Function.Arguments)
	}
	return n
}

// usageFor returns the usage a reply reports for a request.
func usageFor(r Request, reply Reply) Usage {
	if reply.Usage != nil {
		return *reply.Usage
	}
	return Usage{PromptTokens: promptTokens(r), CompletionTokens: completionTokens(reply)}
}
