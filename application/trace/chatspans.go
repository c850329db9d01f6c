package trace

import (
	"strconv"
	"time"

	"github.com/pergola-ai/pergola/application/chat"
	"github.com/pergola-ai/pergola/domain/bot"
)

// callInfo is what the invoke_agent span and every chat span of a turn
// share: the model, the conversation and the request's settings.
type callInfo struct {
	model        modelInfo
	conversation string
	temperature  *float64
	topP         *float64
	maxTokens    int
	json         bool
}

// params takes the request's settings from the bot's model settings.
func (c *callInfo) params(cfg *bot.Config) {
	if cfg == nil {
		return
	}
	m := cfg.Model
	c.temperature, c.topP, c.maxTokens, c.json = m.Temperature, m.TopP, m.MaxTokens, m.ResponseFormat == "json"
}

// set puts the shared attributes on sp.
func (c *callInfo) set(sp *Span) {
	c.model.set(sp)
	if c.conversation != "" && c.conversation != "0" {
		sp.Attributes[AttrConversation] = c.conversation
	}
	if c.temperature != nil {
		sp.Attributes[AttrRequestTemperature] = *c.temperature
	}
	if c.topP != nil {
		sp.Attributes[AttrRequestTopP] = *c.topP
	}
	if c.maxTokens > 0 {
		sp.Attributes[AttrRequestMaxTokens] = c.maxTokens
	}
	if c.json {
		sp.Attributes[AttrOutputType] = "json"
	}
}

// agentSpanName is "invoke_agent {gen_ai.agent.name}", or "invoke_agent"
// for a bot without a name.
func agentSpanName(cfg *bot.Config) string {
	if cfg == nil || cfg.Name == "" {
		return OpInvokeAgent
	}
	return OpInvokeAgent + " " + cfg.Name
}

// agentVersion is a bot's published version, or "draft".
func agentVersion(v int64) string {
	if v == 0 {
		return "draft"
	}
	return strconv.FormatInt(v, 10)
}

// newModelSpan starts the span of a model call described by call.
func newModelSpan(call callInfo, start time.Time) *Span {
	sp := newSpan(OpChat+" "+call.model.name, KindModel, start)
	sp.Attributes[AttrOperation] = OpChat
	sp.Attributes[AttrRequestStream] = true // the agent streams every call
	call.set(sp)
	return sp
}

func (b *building) modelStart(call callInfo, system, prompt string, now time.Time) {
	sp := newModelSpan(call, now)
	if system != "" {
		sp.setText(AttrSystem, system)
	}
	sp.setText(AttrPrompt, prompt)
	b.model, b.ttft = nil, false
	if b.add(b.trace.Root, sp) {
		b.model = sp
	}
	b.skipped = b.model == nil
}

func (b *building) firstToken(now time.Time) {
	if b.model == nil || b.ttft {
		return
	}
	b.ttft = true
	d := now.Sub(b.model.Start)
	b.model.Attributes[AttrTTFT] = float64(d.Microseconds()) / 1000
	b.model.Attributes[AttrTimeToFirstChunk] = d.Seconds()
}

func (b *building) modelEnd(s chat.Step, completion string, now time.Time) {
	sp, skipped := b.model, b.skipped
	b.model, b.skipped = nil, false
	b.usage[0] += s.Usage.InputTokens
	b.usage[1] += s.Usage.OutputTokens
	if s.Output != nil {
		b.trace.Root.Attributes[AttrFinishReasons] = []string{finishReason(s.Output)}
	}
	if sp == nil && skipped {
		return
	}
	if sp == nil { // a call that failed before it started
		sp = newModelSpan(b.call, now.Add(-s.Duration))
		if !b.add(b.trace.Root, sp) {
			return
		}
	}
	sp.Attributes[AttrInputTokens] = s.Usage.InputTokens
	sp.Attributes[AttrOutputTokens] = s.Usage.OutputTokens
	if s.Output != nil {
		sp.Attributes[AttrFinishReasons] = []string{finishReason(s.Output)}
		if id := responseID(s.Output); id != "" {
			sp.Attributes[AttrResponseID] = id
		}
		sp.setText(AttrCompletion, completion)
	}
	sp.finish(now, errText(s.Err))
}

func (b *building) toolCall(s chat.Step, now time.Time) {
	sp := newSpan(OpExecuteTool+" "+s.ToolName, KindTool, now)
	sp.Attributes[AttrOperation] = OpExecuteTool
	sp.Attributes[AttrToolName] = s.ToolName
	sp.Attributes[AttrToolCallID] = s.ToolCallID
	sp.Attributes[AttrToolType] = toolType(s.ToolOrigin)
	if s.ToolDescription != "" {
		sp.Attributes[AttrToolDescription] = s.ToolDescription
	}
	sp.setText(AttrToolArgs, s.Arguments)
	setOrigin(sp, s.ToolOrigin)
	if b.add(b.trace.Root, sp) {
		b.tools[s.ToolCallID] = sp
	} else {
		b.tools[s.ToolCallID] = nil // left out: its result is too
	}
}

func (b *building) toolResult(s chat.Step, now time.Time) {
	sp, seen := b.tools[s.ToolCallID]
	delete(b.tools, s.ToolCallID)
	if seen && sp == nil {
		return
	}
	if sp == nil {
		b.toolCall(chat.Step{ToolName: s.ToolName, ToolCallID: s.ToolCallID, Arguments: s.Arguments,
			ToolOrigin: s.ToolOrigin, ToolDescription: s.ToolDescription}, now.Add(-s.Duration))
		sp = b.tools[s.ToolCallID]
		delete(b.tools, s.ToolCallID)
		if sp == nil {
			return
		}
	}
	sp.setText(AttrToolResult, s.Text)
	setOrigin(sp, s.ToolOrigin)
	sp.finish(now, errText(s.Err))
}

// toolType is the conventions' gen_ai.tool.type of a tool by where it
// comes from: a plugin's operation is an extension (it calls an outside
// API), a table or knowledge tool a datastore, the rest functions.
func toolType(origin string) string {
	if _, err := strconv.ParseInt(origin, 10, 64); err == nil {
		return ToolExtension
	}
	switch origin {
	case "table", "knowledge":
		return ToolDatastore
	}
	return ToolFunction
}

// setOrigin names where a tool comes from: its plugin's id for a plugin
// tool, its kind (workflow, table, ...) otherwise.
func setOrigin(sp *Span, origin string) {
	if origin == "" {
		return
	}
	if _, err := strconv.ParseInt(origin, 10, 64); err == nil {
		sp.Attributes[AttrPluginID] = origin
		return
	}
	sp.Attributes[AttrToolOrigin] = origin
}
