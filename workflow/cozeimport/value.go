package cozeimport

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/workflow"
)

// unsupportedError marks a node that cannot be converted; the reason goes
// into the report.
type unsupportedError struct{ reason string }

func (e *unsupportedError) Error() string { return e.reason }

func unsupported(format string, args ...any) error {
	return &unsupportedError{reason: fmt.Sprintf(format, args...)}
}

var indexPattern = regexp.MustCompile(`\[(\d+)\]`)

// dotted turns a Coze path ("items[0].name") into a DSL path ("items.0.name").
func dotted(path string) string {
	return strings.Trim(indexPattern.ReplaceAllString(path, ".$1"), ".")
}

// input converts a blockInput read from field of the node.
func (nc *nodeConv) input(b *blockInput, field string) (workflow.Input, error) {
	if b == nil || b.Value == nil {
		return workflow.Input{}, errs.Invalid(nc.at+"."+field, "has no value")
	}
	switch b.Value.Type {
	case "literal", "":
		return nc.literal(b, field)
	case "ref":
		var r blockRef
		if err := json.Unmarshal(b.Value.Content, &r); err != nil {
			return workflow.Input{}, errs.Invalid(nc.at+"."+field, "is not a reference: %v", err)
		}
		in, err := nc.ref(r, field)
		if name, ok := strings.CutPrefix(in.Variable, "app."); ok && err == nil {
			nc.c.appVariableType(name, b.Type)
		}
		if b.Type != "" {
			// Coze converts what a node reads to the type its input
			// declares (coerce.go in the workflow package).
			in.Schema = schemaOf(b.Type, b.AssistType, b.Schema)
		}
		return in, err
	case "object_ref":
		return nc.objectInput(b, field)
	}
	return workflow.Input{}, errs.Invalid(nc.at+"."+field, "has an unknown value type %q", b.Value.Type)
}

// literal converts a literal; Coze keeps numbers, booleans, objects and
// lists as text.
func (nc *nodeConv) literal(b *blockInput, field string) (workflow.Input, error) {
	text, ok := b.literalText()
	if !ok {
		return workflow.Literal(nil), nil
	}
	bad := func(err error) (workflow.Input, error) {
		return workflow.Input{}, errs.Invalid(nc.at+"."+field, "is not a %s literal: %v", b.Type, err)
	}
	switch b.Type {
	case "integer":
		n, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return bad(err)
		}
		return workflow.Literal(int64(n)), nil
	case "float", "number":
		n, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return bad(err)
		}
		return workflow.Literal(n), nil
	case "boolean":
		v, err := strconv.ParseBool(text)
		if err != nil {
			return bad(err)
		}
		return workflow.Literal(v), nil
	case "object", "list":
		var v any
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			return bad(err)
		}
		return workflow.Literal(v), nil
	}
	return workflow.Literal(text), nil
}

// ref converts a reference to a node's output or to a variable.
func (nc *nodeConv) ref(r blockRef, field string) (workflow.Input, error) {
	switch r.Source {
	case "block-output", "":
		if _, ok := nc.c.byID[r.BlockID]; !ok {
			return nc.danglingRef(r, field)
		}
		node, path := nc.c.outputRef(nc.n, r.BlockID, dotted(r.Name))
		return workflow.RefTo(node, path), nil
	case sourceUser, sourceSystem, sourceApp:
		return nc.globalRef(r, field)
	}
	return workflow.Input{}, errs.Invalid(nc.at+"."+field, "has an unknown reference source %q", r.Source)
}

// danglingRef converts a reference to no node or to a node not in the
// canvas: an error, or with AllowPartial the same reference in the DSL,
// which validation reports, so the draft is kept as Coze keeps it.
func (nc *nodeConv) danglingRef(r blockRef, field string) (workflow.Input, error) {
	if nc.c.opts.AllowPartial {
		return workflow.RefTo(r.BlockID, dotted(r.Name)), nil
	}
	if r.BlockID == "" {
		return workflow.Input{}, errs.Invalid(nc.at+"."+field, "references no node (blockID is empty)")
	}
	return workflow.Input{}, errs.Invalid(nc.at+"."+field, "references node %s, which is not in the canvas", r.BlockID)
}

// outputRef maps a reference to an output of node id, read from node
// from, to the DSL: inside a loop or batch body the enclosing node's array
// parameter is its "item"; Coze output names that Pergola spells
// differently are renamed.
func (c *converter) outputRef(from *cozeNode, id, path string) (string, string) {
	for p := c.parents[from.ID]; p != nil; p = c.parents[p.ID] {
		if p.ID != id {
			continue
		}
		root, rest, _ := strings.Cut(path, ".")
		if c.isItemName(p, root) {
			return c.ids[id], joinPath("item", rest)
		}
		return c.ids[id], path
	}
	src := c.byID[id]
	root, rest, _ := strings.Cut(path, ".")
	if to, ok := outputRenames(string(src.Type))[root]; ok {
		return c.ids[id], joinPath(to, rest)
	}
	if v, ok := loopAlias(src, root); ok {
		return c.ids[id], joinPath(v, rest)
	}
	if handlesErrors(src) {
		if to, ok := errorOutputPath(root, rest); ok {
			return c.ids[id], to
		}
	}
	return c.ids[id], path
}

// isItemName reports whether name is the array a loop or batch iterates.
func (c *converter) isItemName(owner *cozeNode, name string) bool {
	var in struct {
		InputParameters []*cozeParam `json:"inputParameters"`
		Batch           *nodeBatch   `json:"batch"`
	}
	_ = json.Unmarshal(owner.Data.Inputs, &in)
	if c.batched[owner.ID] {
		return in.Batch != nil && findParam(in.Batch.InputLists, name) != nil
	}
	return findParam(in.InputParameters, name) != nil
}

func joinPath(a, b string) string {
	if b == "" {
		return a
	}
	return a + "." + b
}

// outputRenames maps the output names of a Coze node type to Pergola's.
func outputRenames(cozeType string) map[string]string {
	switch cozeType {
	case "45":
		return map[string]string{"statusCode": "status_code"}
	case "43", "12":
		return map[string]string{"outputList": "rows", "rowNum": "row_count"}
	case "42", "44", "46":
		return map[string]string{"rowNum": "rows_affected"}
	case "40":
		return map[string]string{"isSuccess": "success"}
	case "22":
		return map[string]string{"classificationId": "classification_id"}
	case "6":
		return map[string]string{"outputList": "chunks"}
	case "27":
		return map[string]string{"documentId": "document_id", "fileName": "file_name", "fileUrl": "file_url"}
	case "60":
		return map[string]string{"isSuccess": "success"}
	case "18":
		return map[string]string{"USER_RESPONSE": "answer", "optionContent": "answer", "optionId": "option_index"}
	}
	return nil
}

// arrayItemName is the name Coze's editor gives the one field wrapping an
// array's item.
const arrayItemName = "[Array Item]"

// schemaOf converts a Coze type (with its assist type and schema) to a
// DSL schema.
func schemaOf(typ string, assist int64, raw json.RawMessage) workflow.Schema {
	switch typ {
	case "string":
		if assist != 0 && assist != 10000 {
			return workflow.S(workflow.TypeFile)
		}
		return workflow.S(workflow.TypeString)
	case "integer":
		return workflow.S(workflow.TypeInteger)
	case "float", "number":
		return workflow.S(workflow.TypeNumber)
	case "boolean":
		return workflow.S(workflow.TypeBoolean)
	case "image", "file":
		return workflow.S(workflow.TypeFile)
	case "object":
		var props []cozeVariable
		_ = json.Unmarshal(raw, &props)
		if len(props) == 1 && props[0].Name == arrayItemName {
			// Coze's editor wraps the fields of an array's items this way.
			return schemaOf(props[0].Type, props[0].AssistType, props[0].Schema)
		}
		return workflow.Schema{Type: workflow.TypeObject, Properties: params(props)}
	case "list":
		var item cozeVariable
		if err := json.Unmarshal(raw, &item); err != nil || item.Type == "" {
			return workflow.Schema{Type: workflow.TypeArray}
		}
		return workflow.ArrayOf(schemaOf(item.Type, item.AssistType, item.Schema))
	}
	return workflow.Schema{}
}

// params converts declared variables to DSL params.
func params(vars []cozeVariable) []workflow.Param {
	var out []workflow.Param
	for _, v := range vars {
		out = append(out, workflow.Param{Name: v.Name, Schema: schemaOf(v.Type, v.AssistType, v.Schema),
			Required: v.Required, Description: v.Description})
	}
	return out
}

// declaredOutputs reads the node's outputs as declared variables,
// leaving out those Pergola does not produce (errorBody).
func (nc *nodeConv) declaredOutputs() ([]workflow.Param, error) {
	var vars []cozeVariable
	for i, raw := range nc.n.Data.Outputs {
		var v cozeVariable
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, errs.Invalid(fmt.Sprintf("%s.data.outputs[%d]", nc.at, i), "is not a variable: %v", err)
		}
		if v.Name == "errorBody" || (v.Name == "isSuccess" && handlesErrors(nc.n)) {
			continue
		}
		vars = append(vars, v)
	}
	return params(vars), nil
}

// objectInput converts an object assembled from inputs (object_ref): its
// schema lists the fields, each with an input of its own.
func (nc *nodeConv) objectInput(b *blockInput, field string) (workflow.Input, error) {
	var fields []*cozeParam
	if len(b.Schema) > 0 {
		if err := json.Unmarshal(b.Schema, &fields); err != nil {
			return workflow.Input{}, errs.Invalid(nc.at+"."+field+".schema", "is not a list of fields: %v", err)
		}
	}
	obj := make(map[string]workflow.Input, len(fields))
	for i, f := range fields {
		at := fmt.Sprintf("%s.schema[%d]", field, i)
		if f == nil || f.Name == "" || f.Input == nil {
			return workflow.Input{}, errs.Invalid(nc.at+"."+at, "must name a field and its input")
		}
		in, err := nc.input(f.Input, at+".input")
		if err != nil {
			return workflow.Input{}, err
		}
		obj[f.Name] = in
	}
	return workflow.ObjectInput(obj), nil
}

// loopAlias returns the loop variable a loop's output re-exports under
// another name: the DSL reads the variable itself.
func loopAlias(loop *cozeNode, output string) (string, bool) {
	if loop == nil || loop.Type != "21" {
		return "", false
	}
	for _, raw := range loop.Data.Outputs {
		var p cozeParam
		if json.Unmarshal(raw, &p) != nil || p.Name != output || p.Input == nil || p.Input.Value == nil || p.Input.Value.Type != "ref" {
			continue
		}
		var r blockRef
		if json.Unmarshal(p.Input.Value.Content, &r) == nil && r.BlockID == loop.ID && dotted(r.Name) != output {
			return dotted(r.Name), true
		}
	}
	return "", false
}
