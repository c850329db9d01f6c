package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// conditionKind is if / else-if / else: the first branch whose conditions
// hold is taken, or "else".
type conditionKind struct{}

type conditionConfig struct {
	Branches []conditionBranch `json:"branches" jsonschema:"required,minItems=1,description=tried in order; the first that holds is taken"`
	Compat   string            `json:"compat,omitempty" jsonschema:"enum=coze,description=coze: empty also holds for 0 and false and 'None'; false holds for null; not_contains is false for null (Coze Studio's selector)"`
}

type conditionBranch struct {
	Port       string           `json:"port,omitempty" jsonschema:"description=the port of the branch; default branch_<index>"`
	Logic      string           `json:"logic,omitempty" jsonschema:"enum=and,enum=or,description=and (default): every condition holds; or: any does"`
	Conditions []conditionEntry `json:"conditions" jsonschema:"required,minItems=1"`
}

type conditionEntry struct {
	Left  string          `json:"left" jsonschema:"required,description=the input compared"`
	Op    string          `json:"op" jsonschema:"required,enum=eq,enum=ne,enum=gt,enum=gte,enum=lt,enum=lte,enum=contains,enum=not_contains,enum=starts_with,enum=ends_with,enum=matches,enum=empty,enum=not_empty,enum=true,enum=false,enum=len_gt,enum=len_gte,enum=len_lt,enum=len_lte"`
	Right string          `json:"right,omitempty" jsonschema:"description=the input compared with; or give value"`
	Value json.RawMessage `json:"value,omitempty" jsonschema:"description=a literal compared with"`
}

// ElsePort is the port a condition node takes when no branch holds.
const ElsePort = "else"

func (conditionKind) describe() NodeTypeInfo {
	return NodeTypeInfo{Type: "condition", Title: "Condition", Category: categoryLogic,
		Description: "If / else-if / else. Each branch compares inputs (typed: numbers by value, texts, arrays, objects) " +
			"joined by and/or; the first branch that holds is taken, otherwise the \"else\" port.",
		ConfigSchema: configSchema(&conditionConfig{}),
		Outputs:      []Param{P("branch", TypeString)},
		Ports:        []string{"branch_<index> or the branch's port", ElsePort}}
}

// compiledBranch is a branch ready to evaluate.
type compiledBranch struct {
	port  string
	or    bool
	conds []compiledCond
}

type compiledCond struct {
	left, right string
	value       any
	hasValue    bool
	op          compareOp
	opName      string
}

func (conditionKind) check(c *checker, n *Node) *nodeSpec {
	var cfg conditionConfig
	if !c.decodeConfig(n, &cfg) {
		return nil
	}
	c.noOutputs(n)
	if cfg.Compat != "" && cfg.Compat != CompatCoze {
		c.fail(nodeField(n, "config.compat"), "must be coze or absent; got %q", cfg.Compat)
	}
	if len(cfg.Branches) == 0 {
		c.fail(nodeField(n, "config.branches"), "needs at least one branch")
		return nil
	}
	var branches []compiledBranch
	ports := []string{}
	for i, b := range cfg.Branches {
		at := nodeField(n, "config.branches["+strconv.Itoa(i)+"]")
		cb := compiledBranch{port: b.Port, or: b.Logic == "or"}
		if cb.port == "" {
			cb.port = "branch_" + strconv.Itoa(i)
		}
		if cb.port == ElsePort || cb.port == ErrorPort || slices.Contains(ports, cb.port) {
			c.fail(at+".port", "%q is taken; ports must be unique and not else or error", cb.port)
		}
		if b.Logic != "" && b.Logic != "and" && b.Logic != "or" {
			c.fail(at+".logic", "must be and or or; got %q", b.Logic)
		}
		if len(b.Conditions) == 0 {
			c.fail(at+".conditions", "needs at least one condition")
		}
		for j, e := range b.Conditions {
			if cc, ok := c.checkCondition(n, at+".conditions["+strconv.Itoa(j)+"]", e, cfg.Compat); ok {
				cb.conds = append(cb.conds, cc)
			}
		}
		ports = append(ports, cb.port)
		branches = append(branches, cb)
	}
	spec := &nodeSpec{outputs: []Param{P("branch", TypeString)}, ports: append(ports, ElsePort),
		runner: runFunc(func(_ context.Context, x *nodeCtx, in map[string]any) (map[string]any, error) {
			port, err := chooseBranch(branches, in)
			x.port = port
			return map[string]any{"branch": port}, err
		})}
	spec.finish = func(c *checker, info *nodeInfo) { typeConditions(c, info, cfg) }
	return spec
}

func (c *checker) checkCondition(n *Node, at string, e conditionEntry, compat string) (compiledCond, bool) {
	op, ok := lookupOp(e.Op, compat)
	if !ok {
		c.fail(at+".op", "unknown comparison %q; use one of %s", e.Op, compareOpNames())
		return compiledCond{}, false
	}
	cc := compiledCond{left: e.Left, right: e.Right, op: op, opName: e.Op}
	if _, has := n.Inputs[e.Left]; !has {
		c.fail(at+".left", "names no input of the node: %q", e.Left)
		return cc, false
	}
	hasRight := e.Right != "" || len(e.Value) > 0
	switch {
	case op.unary && hasRight:
		c.fail(at, "%s compares one value; remove right and value", e.Op)
		return cc, false
	case !op.unary && !hasRight:
		c.fail(at, "%s needs right (an input) or value (a literal)", e.Op)
		return cc, false
	case e.Right != "" && len(e.Value) > 0:
		c.fail(at, "set right or value, not both")
		return cc, false
	case e.Right != "":
		if _, has := n.Inputs[e.Right]; !has {
			c.fail(at+".right", "names no input of the node: %q", e.Right)
			return cc, false
		}
	case len(e.Value) > 0:
		v, err := decodeValue(e.Value)
		if err != nil {
			c.fail(at+".value", "is not a JSON value: %v", err)
			return cc, false
		}
		cc.value, cc.hasValue = v, true
	}
	return cc, true
}

// typeConditions checks the comparisons against the types of the inputs.
func typeConditions(c *checker, info *nodeInfo, cfg conditionConfig) {
	for i, b := range cfg.Branches {
		for j, e := range b.Conditions {
			op, ok := lookupOp(e.Op, cfg.Compat)
			left, known := info.inTypes[e.Left]
			if !ok || !known || len(op.left) == 0 || left.Type == TypeAny || slices.Contains(op.left, left.Type) {
				continue
			}
			c.fail(nodeField(info.node, fmt.Sprintf("config.branches[%d].conditions[%d].op", i, j)),
				"%s cannot compare input %s, a %s", e.Op, e.Left, left)
		}
	}
}

// chooseBranch returns the port of the first branch that holds.
func chooseBranch(branches []compiledBranch, in map[string]any) (string, error) {
	for _, b := range branches {
		ok, err := b.holds(in)
		if err != nil {
			return "", fmt.Errorf("branch %s: %w", b.port, err)
		}
		if ok {
			return b.port, nil
		}
	}
	return ElsePort, nil
}

func (b compiledBranch) holds(in map[string]any) (bool, error) {
	for _, c := range b.conds {
		r := c.value
		if !c.hasValue {
			r = in[c.right]
		}
		ok, err := c.op.eval(in[c.left], r)
		if err != nil {
			return false, fmt.Errorf("%s %s: %w", c.left, c.opName, err)
		}
		if ok == b.or {
			return ok, nil
		}
	}
	return !b.or, nil
}
