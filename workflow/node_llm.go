package workflow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// llmKind calls a language model.
type llmKind struct{}

type llmConfig struct {
	ModelID           string               `json:"model_id" jsonschema:"required,description=a model of GET /api/models"`
	System            string               `json:"system,omitempty" jsonschema:"description=the system prompt; {{input}} placeholders read the node's inputs"`
	Prompt            string               `json:"prompt,omitempty" jsonschema:"description=the user prompt (may be empty\\, as in Coze Studio); {{input}} placeholders read the node's inputs"`
	Temperature       *float64             `json:"temperature,omitempty" jsonschema:"minimum=0,maximum=2"`
	TopP              *float64             `json:"top_p,omitempty" jsonschema:"minimum=0,maximum=1"`
	MaxTokens         int                  `json:"max_tokens,omitempty" jsonschema:"minimum=0"`
	Output            string               `json:"output,omitempty" jsonschema:"enum=text,enum=json,description=text (default): the reply is the one string output; json: the reply is a JSON object filling the declared outputs"`
	Tools             []toolConfig         `json:"tools,omitempty" jsonschema:"description=plugin tools the model may call"`
	Workflows         []workflowToolConfig `json:"workflows,omitempty" jsonschema:"description=published workflows the model may call as tools; one whose end node returns text ends the node with that text"`
	MaxToolRounds     int                  `json:"max_tool_rounds,omitempty" jsonschema:"description=model-tool rounds before giving up (default 5\\, at most 20)"`
	ChatHistoryRounds int                  `json:"chat_history_rounds,omitempty" jsonschema:"minimum=0,maximum=50,description=in a run that is a conversation's turn (/v1/workflows/chat): the last rounds of the conversation given to the model between the system and the user prompt\\, as Coze's chat history"`
	BackupModelID     string               `json:"backup_model_id,omitempty" jsonschema:"description=the model every retry calls (settings.retries): the first attempt calls model_id\\, as Coze's backup model"`
	Knowledge         *llmKnowledgeConfig  `json:"knowledge,omitempty" jsonschema:"description=knowledge bases recalled before the model is called: the rendered user prompt is the query and the chunks found are quoted in the user prompt\\, as Coze's knowledgeFCParam"`
}

// toolConfig names a plugin tool.
type toolConfig struct {
	PluginID idValue `json:"plugin_id" jsonschema:"required"`
	Tool     string  `json:"tool" jsonschema:"required"`
}

func (llmKind) describe() NodeTypeInfo {
	return NodeTypeInfo{Type: "llm", Title: "LLM", Category: categoryAI,
		Description: "Calls a model with a system and a user prompt rendered from the inputs. Text output (one string " +
			"output, \"output\" by default, streamed in streamed runs into the end or message node that shows it) or " +
			"JSON output filling the declared outputs. Optional plugin tools. Records tokens.",
		ConfigSchema: configSchema(&llmConfig{}),
		Outputs:      []Param{P("output", TypeString)}, DeclaredOutputs: true}
}

func (llmKind) check(c *checker, n *Node) *nodeSpec {
	var cfg llmConfig
	if !c.decodeConfig(n, &cfg) {
		return nil
	}
	r := &llmRunner{cfg: cfg, rounds: cfg.MaxToolRounds}
	if cfg.ModelID == "" {
		c.fail(nodeField(n, "config.model_id"), "is required: a model of GET /api/models")
	}
	var err error
	if r.system, err = checkTemplate(cfg.System, n.Inputs); err != nil {
		c.fail(nodeField(n, "config.system"), "%v", err)
	}
	if r.prompt, err = checkTemplate(cfg.Prompt, n.Inputs); err != nil {
		c.fail(nodeField(n, "config.prompt"), "%v", err)
	}
	if cfg.MaxToolRounds < 0 || cfg.MaxToolRounds > 20 {
		c.fail(nodeField(n, "config.max_tool_rounds"), "must be between 0 (5) and 20")
	}
	if r.rounds == 0 {
		r.rounds = 5
	}
	if cfg.BackupModelID != "" && (n.Settings == nil || n.Settings.Retries == 0) {
		c.fail(nodeField(n, "config.backup_model_id"), "is called on retries: set settings.retries (1 or more)")
	}
	c.checkChatHistory(n, cfg.ChatHistoryRounds)
	if k := cfg.Knowledge; k != nil {
		rc := c.checkRecall(n, "config.knowledge", k.recallConfig)
		r.knowledge, r.noRecall = &rc, k.NoRecallReply
	}
	c.checkTools(n, cfg.Tools)
	c.checkWorkflowTools(n, cfg.Workflows)
	spec := &nodeSpec{runner: r, blocking: true}
	if len(cfg.Workflows) > 0 {
		spec.finish = func(c *checker, info *nodeInfo) { info.spec.asks = r.loadFlows(c, n) }
	}
	switch cfg.Output {
	case "", "text":
		spec.outputs = c.declaredOr(n, []Param{P("output", TypeString)})
		var text []Param
		text, r.reasoning = withoutReasoning(spec.outputs)
		if len(text) != 1 || !isStringLike(text[0].Type) {
			c.fail(nodeField(n, "outputs"), "text output is one string output (and optionally %s); use output json for more", ReasoningOutput)
			return nil
		}
		r.field = text[0].Name
		spec.streamField = r.field
	case "json":
		if len(n.Outputs) == 0 {
			c.fail(nodeField(n, "outputs"), "json output needs declared outputs: the fields the model fills")
			return nil
		}
		spec.outputs = c.declaredOr(n, nil)
		r.outputs, r.reasoning = withoutReasoning(spec.outputs)
		r.json = true
	default:
		c.fail(nodeField(n, "config.output"), "must be text or json; got %q", cfg.Output)
		return nil
	}
	return spec
}

func orRequired(err error) string {
	if err == nil {
		return "is required"
	}
	return err.Error()
}

func (c *checker) checkTools(n *Node, tools []toolConfig) {
	for i, t := range tools {
		at := nodeField(n, "config.tools["+strconv.Itoa(i)+"]")
		if t.PluginID <= 0 {
			c.fail(at+".plugin_id", "is required")
		}
		if t.Tool == "" {
			c.fail(at+".tool", "is required")
		}
	}
}

// llmStreams reports whether a node of spec generates field as text a
// streamed run can pass on.
func llmStreams(spec *nodeSpec, field string) bool {
	return spec != nil && spec.streamField != "" && spec.streamField == field
}

// llmRunner runs an llm node.
type llmRunner struct {
	cfg            llmConfig
	system, prompt *template
	field          string
	json           bool
	rounds         int
	flows          []flowTool
	outputs        []Param // the fields of a json reply
	reasoning      bool    // ReasoningOutput is declared
	knowledge      *recall // recalled before the model is called
	noRecall       string
}

func (r *llmRunner) run(ctx context.Context, x *nodeCtx, in map[string]any) (map[string]any, error) {
	cm, err := chatModel(ctx, x, r.modelFor(x))
	if err != nil {
		return nil, err
	}
	history, err := r.chatHistory(ctx, x)
	if err != nil {
		return nil, err
	}
	msgs := make([]*schema.Message, 0, 2+len(history))
	if sys := r.systemPrompt(in); sys != "" {
		msgs = append(msgs, schema.SystemMessage(sys))
	}
	user, err := r.withKnowledge(ctx, x, r.prompt.render(in))
	if err != nil {
		return nil, err
	}
	msgs = append(append(msgs, history...), schema.UserMessage(user))
	opts := r.options()
	var reply *schema.Message
	if len(r.cfg.Tools) > 0 || len(r.cfg.Workflows) > 0 {
		reply, err = r.withTools(ctx, x, cm, msgs, opts, r.textPipe(x))
	} else if p := r.textPipe(x); p != nil {
		reply, err = streamReply(ctx, x, cm, msgs, opts, p)
	} else {
		reply, err = generate(ctx, x, cm, msgs, opts)
	}
	if err != nil {
		return nil, err
	}
	out := map[string]any{r.field: reply.Content}
	if r.json {
		if out, err = parseJSONReply(reply.Content); err != nil {
			return nil, err
		}
	}
	if r.reasoning {
		out[ReasoningOutput] = reply.ReasoningContent
	}
	return out, nil
}

// textPipe is the pipe a text reply streams into; nil when it streams
// nowhere.
func (r *llmRunner) textPipe(x *nodeCtx) *textPipe {
	if r.json {
		return nil
	}
	return x.f.openStream(x.pn)
}

// modelFor names the model of this attempt: the backup model on retries
// when there is one.
func (r *llmRunner) modelFor(x *nodeCtx) string {
	if x.attempt > 0 && r.cfg.BackupModelID != "" {
		return r.cfg.BackupModelID
	}
	return r.cfg.ModelID
}

func (r *llmRunner) systemPrompt(in map[string]any) string {
	sys := r.system.render(in)
	if !r.json {
		return sys
	}
	var names []string
	for _, p := range r.outputs {
		names = append(names, p.Name)
	}
	hint := "Reply with one JSON object only, with the fields: " + strings.Join(names, ", ") + "."
	if sys == "" {
		return hint
	}
	return sys + "\n\n" + hint
}

func (r *llmRunner) options() []model.Option {
	var opts []model.Option
	if t := r.cfg.Temperature; t != nil {
		opts = append(opts, model.WithTemperature(float32(*t)))
	}
	if p := r.cfg.TopP; p != nil {
		opts = append(opts, model.WithTopP(float32(*p)))
	}
	if r.cfg.MaxTokens > 0 {
		opts = append(opts, model.WithMaxTokens(r.cfg.MaxTokens))
	}
	return opts
}

// chatModel returns the node's model through the provider port.
func chatModel(ctx context.Context, x *nodeCtx, id string) (model.ToolCallingChatModel, error) {
	p := x.rc.eng.ports.Models
	x.modelID = id
	if p == nil {
		return nil, permanent(errors.New("models are not available in this process"))
	}
	cm, err := p.ChatModel(ctx, id)
	if err != nil {
		return nil, permanent(fmt.Errorf("model %s: %w", id, err))
	}
	return cm, nil
}

// generate calls the model once and counts its tokens.
func generate(ctx context.Context, x *nodeCtx, cm model.BaseChatModel, msgs []*schema.Message, opts []model.Option) (*schema.Message, error) {
	x.model = &ModelCall{ModelID: x.modelID, Input: msgs}
	msg, err := cm.Generate(ctx, msgs, opts...)
	if err != nil {
		return nil, fmt.Errorf("model error: %w", err)
	}
	x.countTokens(msg)
	return msg, nil
}

// streamReply calls the model streaming, passing the text on as it comes.
func streamReply(ctx context.Context, x *nodeCtx, cm model.BaseChatModel, msgs []*schema.Message, opts []model.Option, p *textPipe) (*schema.Message, error) {
	x.model = &ModelCall{ModelID: x.modelID, Stream: true, Input: msgs}
	sr, err := cm.Stream(ctx, msgs, opts...)
	if err != nil {
		return nil, fmt.Errorf("model error: %w", err)
	}
	defer sr.Close()
	var chunks []*schema.Message
	for {
		chunk, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("model error: %w", err)
		}
		chunks = append(chunks, chunk)
		if chunk.Content != "" {
			p.write(chunk.Content)
		}
	}
	msg, err := schema.ConcatMessages(chunks)
	if err != nil {
		return nil, fmt.Errorf("model reply: %w", err)
	}
	x.countTokens(msg)
	return msg, nil
}

func (x *nodeCtx) countTokens(msg *schema.Message) {
	x.model.reply(msg)
	if msg != nil && msg.ResponseMeta != nil && msg.ResponseMeta.Usage != nil {
		u := msg.ResponseMeta.Usage
		x.usage.add(Usage{InputTokens: int64(u.PromptTokens), OutputTokens: int64(u.CompletionTokens)})
	}
}

// parseJSONReply reads the object a model replied, fences and prose
// around it allowed.
func parseJSONReply(s string) (map[string]any, error) {
	start, end := strings.Index(s, "{"), strings.LastIndex(s, "}")
	if start < 0 || end < start {
		return nil, fmt.Errorf("the model did not reply a JSON object: %s", preview(s, 80))
	}
	v, err := decodeValue([]byte(s[start : end+1]))
	if err != nil {
		return nil, fmt.Errorf("the model's reply is not valid JSON: %v", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the model did not reply a JSON object: %s", preview(s, 80))
	}
	return m, nil
}
