package cozeimport

import (
	"encoding/json"
	"fmt"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/workflow"
)

// selectorOp maps Coze's numbered condition operators to the DSL's.
func selectorOp(op int) (string, bool) {
	ops := map[int]string{1: "eq", 2: "ne", 3: "len_gt", 4: "len_gte", 5: "len_lt", 6: "len_lte", 7: "contains", 8: "not_contains", 9: "empty", 10: "not_empty",
		11: "true", 12: "false", 13: "gt", 14: "gte", 15: "lt", 16: "lte"}
	s, ok := ops[op]
	return s, ok
}

// convertSelector: each branch's conditions compare inputs; its port is
// branch_<index>, the else port "else".
func convertSelector(nc *nodeConv) error {
	var branches []map[string]any
	for i, b := range nc.in.Branches {
		logic := "and"
		if b.Condition.Logic == 1 {
			logic = "or"
		}
		var conds []map[string]any
		for j, cond := range b.Condition.Conditions {
			at := fmt.Sprintf("data.inputs.branches[%d].condition.conditions[%d]", i, j)
			op, ok := selectorOp(cond.Operator)
			if !ok {
				return errs.Invalid(nc.at+"."+at+".operator", "%d is not a Coze condition operator (1-16)", cond.Operator)
			}
			if cond.Left == nil {
				return errs.Invalid(nc.at+"."+at+".left", "is required")
			}
			entry := map[string]any{"op": op, "left": fmt.Sprintf("b%d_c%d_left", i, j)}
			left, err := nc.input(cond.Left.Input, at+".left")
			if err != nil {
				return err
			}
			nc.setInput(entry["left"].(string), left)
			if cond.Right != nil && cond.Right.Input != nil {
				right, err := nc.input(cond.Right.Input, at+".right")
				if err != nil {
					return err
				}
				if right.HasValue {
					entry["value"] = right.Value
				} else {
					entry["right"] = fmt.Sprintf("b%d_c%d_right", i, j)
					nc.setInput(entry["right"].(string), right)
				}
			}
			conds = append(conds, entry)
		}
		branches = append(branches, map[string]any{"port": fmt.Sprintf("branch_%d", i), "logic": logic, "conditions": conds})
	}
	return nc.config(map[string]any{"branches": branches, "compat": workflow.CompatCoze})
}

// convertText: concat renders its template; split splits its text.
func convertText(nc *nodeConv) error {
	if err := nc.inputParams(); err != nil {
		return err
	}
	switch nc.in.Method {
	case "concat":
		text, _ := paramText(nc.in.ConcatParams, "concatResult")
		tmpl, err := nc.template(text)
		if err != nil {
			return err
		}
		sep, _ := paramText(nc.in.ConcatParams, "arrayItemConcatChar")
		return nc.config(map[string]any{"op": "template", "template": tmpl, "array_join": sep})
	case "split":
		if len(nc.in.InputParameters) != 1 {
			return unsupported("a split reads one text; this one has %d inputs", len(nc.in.InputParameters))
		}
		text := nc.node.Inputs[nc.in.InputParameters[0].Name]
		nc.node.Inputs = map[string]workflow.Input{"text": text}
		var seps []string
		if p := findParam(nc.in.SplitParams, "delimiters"); p != nil {
			in, err := nc.input(p.Input, "data.inputs.splitParams.delimiters")
			if err != nil {
				return err
			}
			for _, s := range asList(in.Value) {
				if str, ok := s.(string); ok {
					seps = append(seps, str)
				}
			}
		}
		return nc.config(map[string]any{"op": "split", "separators": seps})
	}
	return unsupported("text method %q is unknown", nc.in.Method)
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// convertAggregator: each merge group outputs its first non-null variable.
func convertAggregator(nc *nodeConv) error {
	groups := map[string][]string{}
	for i, g := range nc.in.MergeGroups {
		if g == nil {
			continue
		}
		for j, v := range g.Variables {
			name := fmt.Sprintf("g%d_%d", i, j)
			in, err := nc.input(v, fmt.Sprintf("data.inputs.mergeGroups[%d].variables[%d]", i, j))
			if err != nil {
				return err
			}
			nc.setInput(name, in)
			groups[g.Name] = append(groups[g.Name], name)
		}
	}
	return nc.config(map[string]any{"groups": groups})
}

// assignments reads inputParameters of the form {left: the variable,
// right (or input): its new value}; varName names the variable.
func (nc *nodeConv) assignments(varName func(r blockRef, field string) (string, error)) error {
	for i, p := range nc.in.InputParameters {
		at := fmt.Sprintf("data.inputs.inputParameters[%d]", i)
		if p == nil || p.Left == nil || p.Left.Value == nil {
			return errs.Invalid(nc.at+"."+at+".left", "names no variable")
		}
		var r blockRef
		if err := json.Unmarshal(p.Left.Value.Content, &r); err != nil {
			return errs.Invalid(nc.at+"."+at+".left", "is not a reference: %v", err)
		}
		name, err := varName(r, at+".left")
		if err != nil {
			return err
		}
		value := p.Right
		if value == nil {
			value = p.Input
		}
		in, err := nc.input(value, at+".right")
		if err != nil {
			return err
		}
		nc.setInput(name, in)
	}
	return nil
}

// convertAssigner stores user and app variables (see variables.go).
func convertAssigner(nc *nodeConv) error {
	var app []string
	err := nc.assignments(func(r blockRef, field string) (string, error) {
		name, isApp, err := nc.assignedVariable(r, field)
		if isApp {
			app = append(app, name)
		}
		return name, err
	})
	if err != nil || len(app) == 0 {
		return err
	}
	nc.assignedTypes()
	return nc.config(map[string]any{"app": app})
}

// convertLoopSet sets loop variables of the enclosing loop.
func convertLoopSet(nc *nodeConv) error {
	return nc.assignments(func(r blockRef, field string) (string, error) {
		if p := nc.c.parents[nc.n.ID]; p == nil || p.ID != r.BlockID {
			return "", errs.Invalid(nc.at+"."+field, "does not name a variable of the enclosing loop")
		}
		return dotted(r.Name), nil
	})
}

// convertJSONStringify writes its one input as JSON.
func convertJSONStringify(nc *nodeConv) error { return nc.renameOnlyInput("value") }

// convertJSONParse parses its one input; the declared outputs are kept.
func convertJSONParse(nc *nodeConv) error {
	outs, err := nc.declaredOutputs()
	if err != nil {
		return err
	}
	nc.node.Outputs = outs
	if err := nc.renameOnlyInput("text"); err != nil {
		return err
	}
	if len(outs) == 1 && outs[0].Name == "output" { // Coze's output is the whole value, typed
		return nc.config(map[string]bool{"whole": true})
	}
	return nil
}

// renameOnlyInput converts the one input parameter under the DSL's name.
func (nc *nodeConv) renameOnlyInput(name string) error {
	if len(nc.in.InputParameters) != 1 || nc.in.InputParameters[0] == nil {
		return errs.Invalid(nc.at+".data.inputs.inputParameters", "must hold exactly one input")
	}
	in, err := nc.input(nc.in.InputParameters[0].Input, "data.inputs.inputParameters[0]")
	if err != nil {
		return err
	}
	nc.setInput(name, in)
	return nc.config(map[string]any{})
}
