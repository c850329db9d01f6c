package workflow

import (
	"context"
)

// questionKind asks the end user a question and waits for the answer.
type questionKind struct{}

type questionConfig struct {
	Question   string   `json:"question" jsonschema:"required,description=the question; {{input}} placeholders read the node's inputs"`
	AnswerType string   `json:"answer_type,omitempty" jsonschema:"enum=text,enum=option,description=text (default): a free answer; option: one of options"`
	Options    []string `json:"options,omitempty" jsonschema:"description=answer_type option: the choices"`
	AllowOther bool     `json:"allow_other,omitempty" jsonschema:"description=answer_type option: accept an answer that is none of the options (option_index -1)"`
	ModelID    string   `json:"model_id,omitempty" jsonschema:"description=answer_type text: a model that extracts the declared outputs from the answer\\, asking follow-up questions until the required ones are known"`
	MaxAnswers int      `json:"max_answers,omitempty" jsonschema:"minimum=0,maximum=10,description=with model_id: answers taken before the node fails for want of required fields (default 3)"`
	Persona    string   `json:"persona,omitempty" jsonschema:"description=with model_id: how the follow-up questions are asked"`
}

func (questionKind) describe() NodeTypeInfo {
	return NodeTypeInfo{Type: "question", Title: "Question", Category: categoryIO, DeclaredOutputs: true,
		Description: "Stops the run with an Interrupt event asking the question; the run resumes, on any process, " +
			"when POST /v1/workflow/stream_resume answers it. answer_type text: outputs answer and, with model_id, the " +
			"declared outputs a model extracts from it; option: outputs answer (the option) and option_index (from 0, " +
			"-1 for another answer when allow_other).",
		ConfigSchema: configSchema(&questionConfig{}),
		Outputs:      []Param{P("answer", TypeString)}}
}

func (questionKind) check(c *checker, n *Node) *nodeSpec {
	var cfg questionConfig
	if !c.decodeConfig(n, &cfg) {
		return nil
	}
	t, err := checkTemplate(cfg.Question, n.Inputs)
	if err != nil || cfg.Question == "" {
		c.fail(nodeField(n, "config.question"), "%s", orRequired(err))
		return nil
	}
	r := &questionRunner{cfg: cfg, question: t}
	spec := &nodeSpec{runner: r, outputs: []Param{P("answer", TypeString)}, asks: true}
	switch cfg.AnswerType {
	case "", "text":
		if len(cfg.Options) > 0 {
			c.fail(nodeField(n, "config.options"), "are for answer_type option")
		}
		if cfg.MaxAnswers < 0 || cfg.MaxAnswers > 10 {
			c.fail(nodeField(n, "config.max_answers"), "must be between 0 (3) and 10")
		}
		if cfg.ModelID != "" {
			if len(n.Outputs) == 0 {
				c.fail(nodeField(n, "outputs"), "model_id extracts the declared outputs: declare them")
			}
			r.extract = c.declaredOr(n, nil)
			spec.outputs = append(spec.outputs, r.extract...)
			spec.blocking = true
		} else {
			c.noOutputs(n)
		}
	case "option":
		c.noOutputs(n)
		if len(cfg.Options) == 0 {
			c.fail(nodeField(n, "config.options"), "are required for answer_type option")
		}
		spec.outputs = append(spec.outputs, P("option_index", TypeInteger))
	default:
		c.fail(nodeField(n, "config.answer_type"), "must be text or option; got %q", cfg.AnswerType)
		return nil
	}
	return spec
}

// questionRunner asks, or takes the answer of a resumed run.
type questionRunner struct {
	cfg      questionConfig
	question *template
	extract  []Param
}

func (r *questionRunner) run(ctx context.Context, x *nodeCtx, in map[string]any) (map[string]any, error) {
	key := x.f.nodeKey(x.pn)
	if len(r.extract) > 0 {
		return r.runExtract(ctx, x, key, r.question.render(in))
	}
	answer, ok := x.rc.answer(key)
	if !ok {
		r.ask(x, key, r.question.render(in))
		return nil, errInterrupted
	}
	if r.cfg.AnswerType == "option" {
		i, found := pickOption(r.cfg.Options, answer)
		if found {
			return map[string]any{"answer": r.cfg.Options[i], "option_index": int64(i)}, nil
		}
		return map[string]any{"answer": answer, "option_index": int64(-1)}, nil
	}
	return map[string]any{"answer": answer}, nil
}

// ask stops the run with the question, filed under key.
func (r *questionRunner) ask(x *nodeCtx, key, question string) {
	x.rc.interrupt(&Interrupt{Key: key, NodeID: x.pn.id, Type: x.pn.typ, Title: x.pn.title, Kind: InterruptQuestion,
		Question: question, Options: r.cfg.Options, AllowOther: r.cfg.AllowOther})
}

// formKind is the input node: it asks for a form of typed fields.
type formKind struct{}

type formConfig struct {
	Prompt string `json:"prompt,omitempty" jsonschema:"description=what the form is for, shown with it"`
}

func (formKind) describe() NodeTypeInfo {
	return NodeTypeInfo{Type: "input", Title: "Input", Category: categoryIO, DeclaredOutputs: true,
		Description: "Stops the run with an Interrupt event asking for a form: its declared outputs are the fields. " +
			"stream_resume answers with a JSON object of the fields, checked against their types.",
		ConfigSchema: configSchema(&formConfig{})}
}

func (formKind) check(c *checker, n *Node) *nodeSpec {
	var cfg formConfig
	if !c.decodeConfig(n, &cfg) {
		return nil
	}
	c.noInputs(n)
	if len(n.Outputs) == 0 {
		c.fail(nodeField(n, "outputs"), "declare the fields of the form as outputs")
		return nil
	}
	fields := c.declaredOr(n, nil)
	return &nodeSpec{outputs: fields, asks: true, runner: runFunc(func(_ context.Context, x *nodeCtx, _ map[string]any) (map[string]any, error) {
		key := x.f.nodeKey(x.pn)
		answer, ok := x.rc.answer(key)
		if !ok {
			x.rc.interrupt(&Interrupt{Key: key, NodeID: x.pn.id, Type: x.pn.typ, Title: x.pn.title, Kind: InterruptInput,
				Question: cfg.Prompt, Fields: fields, Coze: x.rc.coze})
			return nil, errInterrupted
		}
		read := formValues
		if x.rc.coze {
			read = cozeFormValues
		}
		out, err := read(fields, answer)
		if err != nil {
			return nil, permanent(err)
		}
		return out, nil
	})}
}
