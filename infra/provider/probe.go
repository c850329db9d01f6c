package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/schema"
	"google.golang.org/genai"

	"github.com/pergola-ai/pergola/domain/llm"
)

// DefaultProbeTimeout bounds Probe when the Factory sets no ProbeTimeout.
const DefaultProbeTimeout = 30 * time.Second

// ProbePrompt is the message Probe sends.
const ProbePrompt = "Reply with the word: pong"

// ProbeResult is the outcome of testing a model configuration.
type ProbeResult struct {
	OK           bool
	Reply        string // the model's answer, trimmed
	LatencyMS    int64  // from sending the request to the full answer
	Error        string // why it failed, readable by the admin; empty when OK
	InputTokens  int
	OutputTokens int
}

// Probe sends ProbePrompt to m and reports whether and how the model
// answered; it is the "test this model" action. Failures, configuration
// errors included, are reported in the result, never as a Go error.
func (f Factory) Probe(ctx context.Context, m llm.Model) ProbeResult {
	timeout := f.ProbeTimeout
	if timeout <= 0 {
		timeout = DefaultProbeTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	cm, err := f.ChatModel(ctx, m)
	if err != nil {
		return ProbeResult{Error: err.Error()}
	}
	start := time.Now()
	msg, err := cm.Generate(ctx, []*schema.Message{schema.UserMessage(ProbePrompt)})
	res := ProbeResult{LatencyMS: time.Since(start).Milliseconds()}
	if err != nil {
		res.Error = describe(err, timeout)
		return res
	}
	res.OK, res.Reply = true, strings.TrimSpace(msg.Content)
	if msg.ResponseMeta != nil && msg.ResponseMeta.Usage != nil {
		res.InputTokens = msg.ResponseMeta.Usage.PromptTokens
		res.OutputTokens = msg.ResponseMeta.Usage.CompletionTokens
	}
	return res
}

// describe turns a provider error into one line an admin can act on.
func describe(err error, timeout time.Duration) string {
	var oa *openai.APIError
	if errors.As(err, &oa) && oa.HTTPStatusCode != 0 {
		return fmt.Sprintf("the provider answered HTTP %d: %s", oa.HTTPStatusCode, strings.TrimSpace(oa.Message))
	}
	var ga genai.APIError
	if errors.As(err, &ga) {
		return fmt.Sprintf("the provider answered HTTP %d (%s): %s", ga.Code, ga.Status, strings.TrimSpace(ga.Message))
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("no answer within %s", timeout)
	}
	return err.Error()
}
