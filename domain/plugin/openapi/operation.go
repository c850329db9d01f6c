package openapi

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/plugin"
)

// operation builds the tool of one operation.
type operation struct {
	p            *parser
	path, method string
	item, op     map[string]any
	conv         *converter
	tool         plugin.Tool
	props        map[string]any
	required     []any
}

// pathVar matches the {name} segments of a path template.
var pathVar = regexp.MustCompile(`\{([^{}/]+)\}`)

// ignoredHeaders are header parameters OpenAPI says to ignore.
var ignoredHeaders = []string{"accept", "content-type", "authorization"}

func (o *operation) label() string {
	l := strings.ToUpper(o.method) + " " + o.path
	if id, _ := o.op["operationId"].(string); id != "" {
		l += " (" + id + ")"
	}
	return l
}

func (o *operation) fail(format string, a ...any) error {
	return errs.Invalid("openapi", "%s: %s", o.label(), fmt.Sprintf(format, a...))
}

func (o *operation) build(server string) error {
	server, err := o.p.pickServer(o.op["servers"], server, o.label()+": servers")
	if err != nil {
		return err
	}
	if server == "" {
		return o.fail("has no server URL: the document declares no servers; give server_url with the API's base URL")
	}
	o.conv = newConverter(o.p.r)
	o.props = map[string]any{}
	o.tool = plugin.Tool{Method: strings.ToUpper(o.method), ServerURL: server, Path: o.path, Description: o.description()}
	if err := o.name(); err != nil {
		return err
	}
	if err := o.params(); err != nil {
		return err
	}
	if skip, err := o.body(); err != nil || skip != "" {
		if skip != "" {
			o.p.res.Warnings = append(o.p.res.Warnings, o.label()+": skipped: "+skip)
		}
		return err
	}
	return o.finish()
}

func (o *operation) description() string {
	var parts []string
	for _, k := range []string{"summary", "description"} {
		if s, _ := o.op[k].(string); strings.TrimSpace(s) != "" {
			parts = append(parts, strings.TrimSpace(s))
		}
	}
	if len(parts) == 0 {
		return strings.ToUpper(o.method) + " " + o.path
	}
	return plugin.TrimDescription(strings.Join(parts, "\n"))
}

func (o *operation) name() error {
	id, _ := o.op["operationId"].(string)
	raw := id
	if raw == "" {
		raw = o.method + "_" + o.path
	}
	name := plugin.ToolName(raw)
	if name == "" {
		return o.fail("operationId %q gives no usable tool name; use letters, digits, _ or -", id)
	}
	if other, dup := o.p.names[name]; dup {
		if id != "" && plugin.ToolName(id) == id {
			return o.fail("operationId: the tool name %q is already taken by %s; operation ids must be unique", name, other)
		}
		name = o.p.freeName(name)
	}
	o.p.names[name] = o.label()
	o.tool.Name, o.tool.OperationID = name, id
	if id == "" {
		o.tool.OperationID = name
	}
	return nil
}

// params gathers the path item's and the operation's parameters; the
// operation's replace the path item's of the same name and location.
func (o *operation) params() error {
	type entry struct {
		at string
		m  map[string]any
	}
	var list []entry
	for _, src := range []struct{ at, key string }{{"path item parameters", "item"}, {"parameters", "op"}} {
		node := o.item
		if src.key == "op" {
			node = o.op
		}
		for i, raw := range asList(node["parameters"]) {
			at := fmt.Sprintf("%s[%d]", src.at, i)
			m, _, err := o.p.r.deref(raw)
			if err != nil {
				return o.fail("%s: %v", at, err)
			}
			list = slices.DeleteFunc(list, func(e entry) bool { return e.m["name"] == m["name"] && e.m["in"] == m["in"] })
			list = append(list, entry{at, m})
		}
	}
	for _, e := range list {
		if err := o.param(e.at, e.m); err != nil {
			return err
		}
	}
	return o.checkPathTemplate()
}

func (o *operation) param(at string, m map[string]any) error {
	name, _ := m["name"].(string)
	in, _ := m["in"].(string)
	if name == "" {
		return o.fail("%s: name is required", at)
	}
	at = fmt.Sprintf("%s (%s)", at, name)
	loc := plugin.Location(in)
	switch loc {
	case plugin.InPath, plugin.InQuery, plugin.InCookie:
	case plugin.InHeader:
		if slices.Contains(ignoredHeaders, strings.ToLower(name)) {
			return nil
		}
	default:
		return o.fail("%s: in must be path, query, header or cookie, got %q", at, in)
	}
	required, _ := m["required"].(bool)
	if loc == plugin.InPath && !required {
		return o.fail("%s: a path parameter must have required: true", at)
	}
	if _, taken := o.props[name]; taken {
		return o.fail("%s: another parameter is already named %q; parameter names must be unique across path, query, header and cookie", at, name)
	}
	schema, err := o.paramSchema(at, m)
	if err != nil {
		return err
	}
	o.props[name] = schema
	if required {
		o.required = append(o.required, name)
	}
	style, _ := m["style"].(string)
	explode, set := m["explode"].(bool)
	if !set {
		explode = style == "" && (loc == plugin.InQuery || loc == plugin.InCookie) || style == "form"
	}
	o.tool.Params = append(o.tool.Params, plugin.Param{Name: name, In: loc, Required: required, Explode: explode, Style: style})
	return nil
}

// paramSchema converts a parameter's schema (or the schema of its one
// content entry) and carries its description over.
func (o *operation) paramSchema(at string, m map[string]any) (map[string]any, error) {
	raw, ok := m["schema"]
	if !ok {
		if content, _ := m["content"].(map[string]any); len(content) > 0 {
			entry, _ := content[sortedKeys(content)[0]].(map[string]any)
			raw, ok = entry["schema"]
		}
	}
	if !ok {
		return nil, o.fail("%s: has no schema", at)
	}
	s, err := o.conv.convert(raw, 0)
	if err != nil {
		return nil, o.fail("%s: schema: %v", at, err)
	}
	if d, _ := m["description"].(string); d != "" && s["description"] == nil {
		s["description"] = d
	}
	if ex, ok := m["example"]; ok && s["examples"] == nil {
		s["examples"] = []any{ex}
	}
	return s, nil
}

func (o *operation) checkPathTemplate() error {
	inTemplate := map[string]bool{}
	for _, match := range pathVar.FindAllStringSubmatch(o.path, -1) {
		inTemplate[match[1]] = true
		if !slices.ContainsFunc(o.tool.Params, func(p plugin.Param) bool { return p.In == plugin.InPath && p.Name == match[1] }) {
			return o.fail("the path has {%s} but no path parameter named %q is declared", match[1], match[1])
		}
	}
	for _, p := range o.tool.Params {
		if p.In == plugin.InPath && !inTemplate[p.Name] {
			return o.fail("path parameter %q does not appear in the path", p.Name)
		}
	}
	return nil
}

func (o *operation) finish() error {
	schema := map[string]any{"type": "object", "properties": o.props}
	if len(o.required) > 0 {
		schema["required"] = o.required
	}
	b, err := json.Marshal(schema)
	if err != nil {
		return o.fail("parameters: %v", err)
	}
	if len(b) > plugin.MaxSchemaBytes {
		return o.fail("the parameters' schema is %d bytes once $refs are expanded; the limit is %d", len(b), plugin.MaxSchemaBytes)
	}
	// A JSON round trip gives the schema the shape it has when read back
	// from storage, so the same checks run on both.
	var norm map[string]any
	if err := json.Unmarshal(b, &norm); err != nil {
		return o.fail("parameters: %v", err)
	}
	o.tool.Schema = norm
	o.p.res.Tools = append(o.p.res.Tools, o.tool)
	return nil
}

// freeName makes a derived name unique with a numeric suffix: names made
// from paths, or cut to 64 characters, can meet.
func (p *parser) freeName(name string) string {
	for i := 2; ; i++ {
		suffix := "_" + strconv.Itoa(i)
		candidate := name
		if len(candidate)+len(suffix) > 64 {
			candidate = candidate[:64-len(suffix)]
		}
		candidate += suffix
		if _, taken := p.names[candidate]; !taken {
			return candidate
		}
	}
}
