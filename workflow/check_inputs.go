package workflow

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// inputKind is where an input's value comes from.
type inputKind uint8

const (
	inLiteral inputKind = iota
	inRef
	inVariable
	inTemplate
	inObject
)

// boundRef is a reference resolved against the graphs: up frames above
// the reader's, the node at idx of that frame's graph, or the composite
// node's own values (item, index, loop variables) when idx is -1.
type boundRef struct {
	up   int
	idx  int
	path []string
}

// boundInput is a typed input ready to be resolved at run time.
type boundInput struct {
	name     string
	kind     inputKind
	value    any
	ref      boundRef
	variable string
	pieces   []tmplPiece
	fields   []boundInput // of an object input
	want     Schema       // conformed at run time; TypeAny checks nothing
}

// tmplPiece is literal text or a reference of an input template.
type tmplPiece struct {
	text string
	ref  *boundRef
}

var (
	inputNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)
	keywordPattern   = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)
)

// sysVariables are the run's own values an input may read as variables.
var sysVariables = []string{"sys.user_id", "sys.bot_id", "sys.workflow_id", "sys.execute_id", "sys.connector_id"}

// typeNode types every input of a node, checks them against what the node
// type expects, and lets the node finish its own checks.
func (c *checker) typeNode(info *nodeInfo) {
	if info.spec == nil {
		return
	}
	n := info.node
	info.inTypes = map[string]Schema{}
	for _, name := range slices.Sorted(maps.Keys(n.Inputs)) {
		in := n.Inputs[name]
		at := nodeField(n, "inputs."+name)
		if !inputNamePattern.MatchString(name) {
			c.fail(at, "an input name must start with a letter or _ and hold letters, digits or _ (at most 64)")
			continue
		}
		b, s, ok := c.bindInput(info, at, name, &in)
		if !ok {
			continue
		}
		if want, has := info.spec.want[name]; has && !want.accepts(s) {
			if !c.coze {
				c.fail(at, "is %s, but a %s node needs %s here", describeSource(&in, s), n.Type, want)
				continue
			}
			// Coze's conversions: converted to what the node needs.
			b.want, s = want, want
		}
		if w, has := info.spec.want[name]; has && b.want.Type == TypeAny {
			b.want = w
		}
		info.inTypes[name] = s
		info.bound = append(info.bound, b)
	}
	for _, name := range info.spec.required {
		if _, ok := n.Inputs[name]; !ok {
			c.fail(nodeField(n, "inputs."+name), "is required by a %s node", n.Type)
		}
	}
	if info.spec.finish != nil {
		info.spec.finish(c, info)
	}
	c.checkDefaultOutput(info)
}

func describeSource(in *Input, s Schema) string {
	if in.Ref != nil {
		return fmt.Sprintf("%s, a %s", in.Ref, s)
	}
	return "a " + s.String()
}

// bindInput checks one input and returns it bound, with its schema.
func (c *checker) bindInput(info *nodeInfo, at, name string, in *Input) (boundInput, Schema, bool) {
	b := boundInput{name: name}
	if in.sources() != 1 {
		c.fail(at, "must set exactly one of value, ref, variable, template and object")
		return b, Schema{}, false
	}
	if !in.Type.known() {
		c.fail(at+".type", "unknown type %q; use one of %v", in.Type, Types)
		return b, Schema{}, false
	}
	var got Schema
	switch {
	case in.HasValue:
		b.kind, b.value = inLiteral, in.Value
		got = S(typeOfValue(in.Value))
	case in.Ref != nil:
		ref, s, err := c.resolveRef(info, *in.Ref)
		if err != nil {
			c.fail(at+".ref", "%v", err)
			return b, Schema{}, false
		}
		b.kind, b.ref, got = inRef, ref, s
	case in.Variable != "":
		if !keywordPattern.MatchString(in.Variable) && !slices.Contains(sysVariables, in.Variable) && !isAppVariable(in.Variable) {
			c.fail(at+".variable", "must be a bot variable keyword, app.<app variable> or one of %s; got %q", strings.Join(sysVariables, ", "), in.Variable)
			return b, Schema{}, false
		}
		b.kind, b.variable, got = inVariable, in.Variable, S(TypeString)
		if isAppVariable(in.Variable) {
			got = S(TypeAny)
		}
	case in.Object != nil:
		var ok bool
		if b.fields, got, ok = c.bindObject(info, at, in.Object); !ok {
			return b, Schema{}, false
		}
		b.kind = inObject
	default:
		pieces, err := c.bindTemplate(info, *in.Template)
		if err != nil {
			c.fail(at+".template", "%v", err)
			return b, Schema{}, false
		}
		b.kind, b.pieces, got = inTemplate, pieces, S(TypeString)
	}
	if in.Type != TypeAny {
		declared := in.Schema
		if !c.coze && !declared.accepts(got) {
			c.fail(at, "is declared %s but is %s", declared, describeSource(in, got))
			return b, Schema{}, false
		}
		b.want, got = declared, declared
	}
	return b, got, true
}

// bindTemplate binds the placeholders of an input template, each a
// reference written node.path.
func (c *checker) bindTemplate(info *nodeInfo, s string) ([]tmplPiece, error) {
	t, err := parseTemplate(s)
	if err != nil {
		return nil, err
	}
	pieces := make([]tmplPiece, len(t.parts))
	for i, p := range t.parts {
		if p.path == nil {
			pieces[i] = tmplPiece{text: p.text}
			continue
		}
		r := Ref{Node: p.path[0], Path: strings.Join(p.path[1:], ".")}
		ref, _, err := c.resolveRef(info, r)
		if err != nil {
			return nil, fmt.Errorf("{{%s}}: %w", r, err)
		}
		pieces[i] = tmplPiece{ref: &ref}
	}
	return pieces, nil
}

// resolveRef finds what r reads from the point of view of info: a node
// before it in its graph, the composite node it runs in, or, going out, a
// node before that composite node.
func (c *checker) resolveRef(info *nodeInfo, r Ref) (boundRef, Schema, error) {
	path := splitPath(r.Path)
	if r.Node == info.node.ID {
		return boundRef{}, Schema{}, fmt.Errorf("node %s cannot read its own outputs", r.Node)
	}
	from, g := info, info.graph
	for up := 0; g != nil; up++ {
		if t, ok := g.byID[r.Node]; ok {
			if !g.ancestors[from.node.ID][r.Node] {
				return boundRef{}, Schema{}, fmt.Errorf("node %s does not run before %s; only nodes on a path leading to it can be read", r.Node, from.node.ID)
			}
			if t.spec == nil {
				return boundRef{}, Schema{}, fmt.Errorf("node %s is itself invalid", r.Node)
			}
			return typedRef(boundRef{up: up, idx: t.index, path: path}, c.outputsOf(t), r)
		}
		if g.owner != nil && g.owner.node.ID == r.Node {
			return typedRef(boundRef{up: up, idx: -1, path: path}, g.owner.vars, r)
		}
		from, g = g.owner, g.parent
	}
	if other, ok := c.all[r.Node]; ok && other.graph.owner != nil {
		return boundRef{}, Schema{}, fmt.Errorf("node %s is inside the body of %s; its outputs are read through %s's outputs", r.Node, other.graph.owner.node.ID, other.graph.owner.node.ID)
	}
	return boundRef{}, Schema{}, fmt.Errorf("no node %q", r.Node)
}

func typedRef(b boundRef, outputs []Param, r Ref) (boundRef, Schema, error) {
	s, why, ok := schemaAt(outputs, b.path)
	if !ok {
		return boundRef{}, Schema{}, fmt.Errorf("%s: %s", r, why)
	}
	return b, s, nil
}

// bindObject binds the fields of an object input, in name order; the
// object's schema lists them.
func (c *checker) bindObject(info *nodeInfo, at string, fields map[string]Input) ([]boundInput, Schema, bool) {
	out := make([]boundInput, 0, len(fields))
	s := Schema{Type: TypeObject}
	ok := true
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		in := fields[name]
		b, got, fine := c.bindInput(info, at+".object."+name, name, &in)
		if !fine {
			ok = false
			continue
		}
		out = append(out, b)
		s.Properties = append(s.Properties, Param{Name: name, Schema: got})
	}
	return out, s, ok
}
