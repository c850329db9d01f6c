// Package metrics turns what the runtime reports into Prometheus metrics.
package metrics

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/pergola-ai/pergola/application/chat"
	"github.com/pergola-ai/pergola/application/trace"
)

// ChatHook counts model calls, tokens, turns and tool calls of every chat,
// and times the first token of each turn. Workspace, bot and tool labels
// are bounded by Labels.
type ChatHook struct {
	labels       *Labels
	modelCalls   *prometheus.CounterVec
	modelSeconds *prometheus.HistogramVec
	tokens       *prometheus.CounterVec
	botTokens    *prometheus.CounterVec
	turns        *prometheus.CounterVec
	firstToken   *prometheus.HistogramVec
	toolCalls    *prometheus.CounterVec
	toolSeconds  *prometheus.HistogramVec
	starts       sync.Map // chat id → turnStart, until the turn's first text
}

// turnStart is when a turn's run began and the model it calls.
type turnStart struct {
	at    time.Time
	model string
}

var buckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}

// NewChatHook registers the chat metrics on reg; l bounds their labels.
func NewChatHook(reg prometheus.Registerer, l *Labels) *ChatHook {
	h := &ChatHook{
		labels:       l,
		modelCalls:   counter("pergola_model_calls_total", "Model calls by model and outcome (ok, error).", "model", "outcome"),
		modelSeconds: histogram("pergola_model_call_seconds", "Duration of model calls, streaming included.", "model"),
		tokens:       counter("pergola_model_tokens_total", "Tokens by model and kind (input, output).", "model", "kind"),
		botTokens: counter("pergola_bot_tokens_total", "Tokens of chats by workspace, bot, model and kind (input, output).",
			"workspace", "bot", "model", "kind"),
		turns: counter("pergola_chat_turns_total",
			"Runs of chat turns by workspace, bot and outcome (completed, failed, requires_action, question).", "workspace", "bot", "outcome"),
		firstToken: histogram("pergola_chat_first_token_seconds",
			"Seconds from the start of a turn's run to the first text of its answer, by model.", "model"),
		toolCalls:   counter("pergola_tool_calls_total", "Tool calls by plugin, tool and outcome (ok, error).", "plugin", "tool", "outcome"),
		toolSeconds: histogram("pergola_tool_call_seconds", "Duration of tool calls by plugin and tool.", "plugin", "tool"),
	}
	reg.MustRegister(h.modelCalls, h.modelSeconds, h.tokens, h.botTokens, h.turns, h.firstToken, h.toolCalls, h.toolSeconds)
	return h
}

func counter(name, help string, labels ...string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
}

func histogram(name, help string, labels ...string) *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
}

// OnStep records one step of a run.
func (h *ChatHook) OnStep(_ context.Context, s chat.Step) {
	switch s.Kind {
	case chat.StepTurnStart:
		h.starts.Store(s.ChatID, turnStart{at: time.Now(), model: s.ModelID})
	case chat.StepTextDelta:
		if v, ok := h.starts.LoadAndDelete(s.ChatID); ok {
			st := v.(turnStart)
			observe(h.firstToken.WithLabelValues(st.model), time.Since(st.at).Seconds(), s.ChatID)
		}
	case chat.StepTurnEnd:
		h.starts.Delete(s.ChatID)
		h.turns.WithLabelValues(h.labels.workspaces.ID(s.WorkspaceID), h.labels.bots.ID(s.BotID), turnOutcome(s)).Inc()
	case chat.StepModelEnd:
		h.modelEnd(s)
	case chat.StepToolResult:
		plugin, tool := h.labels.tool(s.ToolOrigin, s.ToolName)
		h.toolCalls.WithLabelValues(plugin, tool, outcome(s.Err)).Inc()
		observe(h.toolSeconds.WithLabelValues(plugin, tool), s.Duration.Seconds(), s.ChatID)
	}
}

func (h *ChatHook) modelEnd(s chat.Step) {
	h.modelCalls.WithLabelValues(s.ModelID, outcome(s.Err)).Inc()
	observe(h.modelSeconds.WithLabelValues(s.ModelID), s.Duration.Seconds(), s.ChatID)
	in, out := float64(s.Usage.InputTokens), float64(s.Usage.OutputTokens)
	h.tokens.WithLabelValues(s.ModelID, "input").Add(in)
	h.tokens.WithLabelValues(s.ModelID, "output").Add(out)
	// The chat's bot, as /api/usage counts the chat's tokens, also after
	// a handoff to another bot.
	chatBot := s.ChatBotID
	if chatBot == 0 {
		chatBot = s.BotID
	}
	ws, bot := h.labels.workspaces.ID(s.WorkspaceID), h.labels.bots.ID(chatBot)
	h.botTokens.WithLabelValues(ws, bot, s.ModelID, "input").Add(in)
	h.botTokens.WithLabelValues(ws, bot, s.ModelID, "output").Add(out)
}

// observe records v with an exemplar naming the chat's trace (the id the
// OTLP exporter gives it), shown when /metrics is read as OpenMetrics.
func observe(o prometheus.Observer, v float64, chatID int64) {
	eo, ok := o.(prometheus.ExemplarObserver)
	if !ok || chatID == 0 {
		o.Observe(v)
		return
	}
	eo.ObserveWithExemplar(v, prometheus.Labels{"trace_id": trace.OTelIDHex(trace.KindChat, chatID)})
}

// turnOutcome is the outcome a turn_end step names; a run that failed
// without naming it is "failed".
func turnOutcome(s chat.Step) string {
	switch s.Text {
	case "completed", "failed", "requires_action", "question":
		return s.Text
	}
	if s.Err != nil {
		return "failed"
	}
	return "completed"
}

func outcome(err error) string {
	if err != nil {
		return "error"
	}
	return "ok"
}
