// Package metrics turns what the runtime reports into Prometheus metrics.
package metrics

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/pergola-ai/pergola/application/chat"
)

// ChatHook counts model calls, tokens and tool calls of every chat.
type ChatHook struct {
	modelCalls   *prometheus.CounterVec
	modelSeconds *prometheus.HistogramVec
	tokens       *prometheus.CounterVec
	toolCalls    *prometheus.CounterVec
	toolSeconds  *prometheus.HistogramVec
}

var buckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}

// NewChatHook registers the chat metrics on reg.
func NewChatHook(reg prometheus.Registerer) *ChatHook {
	h := &ChatHook{
		modelCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pergola_model_calls_total", Help: "Model calls by model and outcome (ok, error).",
		}, []string{"model", "outcome"}),
		modelSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "pergola_model_call_seconds", Help: "Duration of model calls, streaming included.", Buckets: buckets,
		}, []string{"model"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pergola_model_tokens_total", Help: "Tokens by model and kind (input, output).",
		}, []string{"model", "kind"}),
		toolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pergola_tool_calls_total", Help: "Tool calls by tool and outcome (ok, error).",
		}, []string{"tool", "outcome"}),
		toolSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "pergola_tool_call_seconds", Help: "Duration of tool calls.", Buckets: buckets,
		}, []string{"tool"}),
	}
	reg.MustRegister(h.modelCalls, h.modelSeconds, h.tokens, h.toolCalls, h.toolSeconds)
	return h
}

// OnStep records one step of a run.
func (h *ChatHook) OnStep(_ context.Context, s chat.Step) {
	switch s.Kind {
	case chat.StepModelEnd:
		h.modelCalls.WithLabelValues(s.ModelID, outcome(s.Err)).Inc()
		h.modelSeconds.WithLabelValues(s.ModelID).Observe(s.Duration.Seconds())
		h.tokens.WithLabelValues(s.ModelID, "input").Add(float64(s.Usage.InputTokens))
		h.tokens.WithLabelValues(s.ModelID, "output").Add(float64(s.Usage.OutputTokens))
	case chat.StepToolResult:
		h.toolCalls.WithLabelValues(s.ToolName, outcome(s.Err)).Inc()
		h.toolSeconds.WithLabelValues(s.ToolName).Observe(s.Duration.Seconds())
	}
}

func outcome(err error) string {
	if err != nil {
		return "error"
	}
	return "ok"
}
