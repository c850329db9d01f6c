package workflow

import (
	"maps"
	"slices"
	"strconv"
)

// checkParams checks declared params (outputs, properties): names valid
// and unique, types known, array items and object properties well formed.
func (c *checker) checkParams(field string, params []Param) bool {
	ok := true
	seen := map[string]bool{}
	for i, p := range params {
		at := field + "[" + strconv.Itoa(i) + "]"
		switch {
		case !inputNamePattern.MatchString(p.Name):
			c.fail(at+".name", "must start with a letter or _ and hold letters, digits or _ (at most 64); got %q", p.Name)
			ok = false
		case seen[p.Name]:
			c.fail(at+".name", "%q is declared twice", p.Name)
			ok = false
		}
		seen[p.Name] = true
		if !c.checkSchema(at, p.Schema) {
			ok = false
		}
	}
	return ok
}

func (c *checker) checkSchema(at string, s Schema) bool {
	if s.Type == TypeAny {
		c.fail(at+".type", "is required: one of %v", Types)
		return false
	}
	if !s.Type.known() {
		c.fail(at+".type", "unknown type %q; use one of %v", s.Type, Types)
		return false
	}
	if s.Items != nil && s.Type != TypeArray {
		c.fail(at+".items", "is only for arrays")
		return false
	}
	if len(s.Properties) > 0 && s.Type != TypeObject {
		c.fail(at+".properties", "are only for objects")
		return false
	}
	if s.Items != nil && !c.checkSchema(at+".items", *s.Items) {
		return false
	}
	return c.checkParams(at+".properties", s.Properties)
}

// declaredOr returns the node's declared outputs after checking them, or
// def when it declares none.
func (c *checker) declaredOr(n *Node, def []Param) []Param {
	if len(n.Outputs) == 0 {
		return def
	}
	c.checkParams(nodeField(n, "outputs"), n.Outputs)
	return n.Outputs
}

// noOutputs reports declared outputs on a node whose type derives its own.
func (c *checker) noOutputs(n *Node) {
	if len(n.Outputs) > 0 {
		c.fail(nodeField(n, "outputs"), "a %s node derives its outputs; remove them", n.Type)
	}
}

// noInputs reports inputs on a node type that reads none.
func (c *checker) noInputs(n *Node) {
	if len(n.Inputs) > 0 {
		c.fail(nodeField(n, "inputs"), "a %s node reads no inputs", n.Type)
	}
}

// inputsAsOutputs types a node's outputs as its inputs, for nodes that pass
// their inputs through (end with variables, sub-workflow calls).
func inputsAsOutputs(info *nodeInfo) []Param {
	out := make([]Param, 0, len(info.inTypes))
	for _, name := range slices.Sorted(maps.Keys(info.inTypes)) {
		out = append(out, Param{Name: name, Schema: info.inTypes[name]})
	}
	return out
}

// checkDefaultOutput checks the default output of a node whose errors
// take it: every key an output, every value of the output's type.
func (c *checker) checkDefaultOutput(info *nodeInfo) {
	n := info.node
	if n.Settings == nil || n.Settings.OnError != OnErrorDefault {
		return
	}
	for _, k := range slices.Sorted(maps.Keys(n.Settings.DefaultOutput)) {
		p, ok := findParam(info.spec.outputs, k)
		if !ok {
			c.fail(nodeField(n, "settings.default_output."+k), "is not an output of the node")
			continue
		}
		if _, err := conform(p.Schema, normalize(cloneValue(n.Settings.DefaultOutput[k])), false); err != nil {
			c.fail(nodeField(n, "settings.default_output."+k), "%v", err)
		}
	}
}
