package cozeimport

import (
	"encoding/json"
	"fmt"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/workflow"
)

// convertLoop: array, count or infinite; variableParameters become loop
// variables; the blocks become the body; outputs referencing body nodes
// are collected.
func convertLoop(nc *nodeConv) error {
	mode := nc.in.LoopType
	switch mode {
	case "array":
		if err := nc.items(); err != nil {
			return err
		}
	case "count":
		in, err := nc.input(nc.in.LoopCount, "data.inputs.loopCount")
		if err != nil {
			return err
		}
		nc.setInput("count", in)
	case "infinite":
	default:
		return errs.Invalid(nc.at+".data.inputs.loopType", "must be array, count or infinite; got %q", mode)
	}
	for i, p := range nc.in.VariableParameters {
		in, err := nc.input(p.Input, fmt.Sprintf("data.inputs.variableParameters[%d]", i))
		if err != nil {
			return err
		}
		nc.setInput(p.Name, in)
	}
	collect, err := nc.body()
	if err != nil {
		return err
	}
	return nc.config(map[string]any{"mode": mode, "collect": collect})
}

// convertBatch: the items run the body in parallel, concurrentSize at
// once, the first batchSize of them.
func convertBatch(nc *nodeConv) error {
	if err := nc.items(); err != nil {
		return err
	}
	lim := workflow.DefaultLimits()
	cfg := map[string]any{}
	if err := nc.batchSize(nc.in.ConcurrentSize, "concurrentSize", "concurrency", 10, lim.MaxParallel, cfg); err != nil {
		return err
	}
	if err := nc.batchSize(nc.in.BatchSize, "batchSize", "batch_size", 100, lim.MaxIterations, cfg); err != nil {
		return err
	}
	collect, err := nc.body()
	if err != nil {
		return err
	}
	cfg["collect"] = collect
	return nc.config(cfg)
}

// batchSize keeps Coze's batch size field as the batch's size name: a
// literal as its config (Coze's default def for 0, at most limit); a
// reference as the input of that name, read when the batch runs, with
// def as its config, which the batch takes when the input reads null or
// 0, as Coze's node does.
func (nc *nodeConv) batchSize(b *blockInput, field, name string, def, limit int, cfg map[string]any) error {
	if b == nil || b.Value == nil {
		return nil
	}
	if b.Value.Type == "ref" {
		in, err := nc.input(b, "data.inputs."+field)
		if err != nil {
			return err
		}
		nc.setInput(name, in)
		cfg[name] = min(def, limit)
		return nil
	}
	n, ok := b.literalInt()
	if !ok {
		return nil
	}
	if n <= 0 {
		n = int64(def)
	}
	if n > int64(limit) {
		nc.flag("%s lowered from %d to %d", name, n, limit)
		n = int64(limit)
	}
	cfg[name] = n
	return nil
}

// items converts the array a loop or batch iterates: the DSL iterates one.
func (nc *nodeConv) items() error {
	if len(nc.in.InputParameters) != 1 || nc.in.InputParameters[0] == nil {
		return unsupported("it iterates %d arrays at once; Pergola iterates one", len(nc.in.InputParameters))
	}
	in, err := nc.input(nc.in.InputParameters[0].Input, "data.inputs.inputParameters[0]")
	if err != nil {
		return err
	}
	nc.setInput("items", in)
	return nil
}

// body converts the blocks and inner edges, and the outputs into collect
// entries.
func (nc *nodeConv) body() (map[string]workflow.Ref, error) {
	body, err := nc.c.graph(nc.n.Blocks, nc.n.Edges, nc.n, nc.at+".blocks")
	if err != nil {
		return nil, err
	}
	nc.node.Body = body
	collect := map[string]workflow.Ref{}
	for i, raw := range nc.n.Data.Outputs {
		at := fmt.Sprintf("%s.data.outputs[%d]", nc.at, i)
		var p cozeParam
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, errs.Invalid(at, "is not an output: %v", err)
		}
		if p.Input == nil || p.Input.Value == nil || p.Input.Value.Type != "ref" {
			return nil, errs.Invalid(at, "must reference an output of a node of the body")
		}
		var r blockRef
		if err := json.Unmarshal(p.Input.Value.Content, &r); err != nil {
			return nil, errs.Invalid(at, "is not a reference: %v", err)
		}
		if r.BlockID == nc.n.ID {
			continue // the loop's variables are its outputs already (renamed outputs are read as them: loopAlias)
		}
		node, path := nc.c.outputRef(nc.n, r.BlockID, dotted(r.Name))
		collect[p.Name] = workflow.Ref{Node: node, Path: path}
	}
	return collect, nil
}

// convertQuestion asks the user: a free answer (answer_type text, with
// the extra outputs a model extracts) or one of static options.
func convertQuestion(nc *nodeConv) error {
	if err := nc.inputParams(); err != nil {
		return err
	}
	q, err := nc.template(nc.in.Question)
	if err != nil {
		return err
	}
	cfg := map[string]any{"question": q}
	switch nc.in.AnswerType {
	case "", "text":
		if nc.in.ExtractOutput {
			outs, err := nc.declaredOutputs()
			if err != nil {
				return err
			}
			for _, o := range outs {
				if o.Name != "USER_RESPONSE" {
					nc.node.Outputs = append(nc.node.Outputs, o)
				}
			}
			var llm struct {
				ModelType    flexString `json:"modelType"`
				SystemPrompt string     `json:"systemPrompt"`
			}
			_ = json.Unmarshal(nc.in.LLMParam, &llm)
			cfg["model_id"] = nc.modelID(string(llm.ModelType))
			if nc.in.Limit > 0 {
				cfg["max_answers"] = min(nc.in.Limit, 10)
			}
			if llm.SystemPrompt != "" {
				cfg["persona"] = llm.SystemPrompt
			}
		}
	case "option":
		if nc.in.OptionType == "dynamic" {
			return unsupported("its options are computed at run time (dynamic_option); the question node takes static options")
		}
		var options []string
		for _, o := range nc.in.Options {
			options = append(options, o.Name)
		}
		cfg["answer_type"], cfg["options"], cfg["allow_other"] = "option", options, true
		nc.flag("optionId is now option_index, counted from 0 (-1 for another answer)")
	default:
		return errs.Invalid(nc.at+".data.inputs.answer_type", "must be text or option; got %q", nc.in.AnswerType)
	}
	return nc.config(cfg)
}

// convertInputNode asks the user for a form: the declared outputs are its
// fields.
func convertInputNode(nc *nodeConv) error {
	outs, err := nc.declaredOutputs()
	if err != nil {
		return err
	}
	nc.node.Outputs = outs
	return nc.config(map[string]any{})
}
