package workflow

// DSLSchema returns the JSON Schema (draft 2020-12) of a workflow
// definition, with the config of every node type of the catalog. It is
// what idl/workflow-dsl.schema.json holds; a test keeps the two equal.
// The schema checks the shape; Validate checks the rest (references,
// types, the graph).
func (c *Catalog) DSLSchema() map[string]any {
	var types []any
	var perType []any
	for _, info := range c.Types() {
		types = append(types, info.Type)
		perType = append(perType, map[string]any{
			"if":   obj("properties", obj("type", obj("const", info.Type)), "required", []any{"type"}),
			"then": obj("properties", obj("config", info.ConfigSchema)),
		})
	}
	return map[string]any{
		"$schema":              "https://json-schema.org/draft/2020-12/schema",
		"$id":                  "https://github.com/pergola-ai/pergola/idl/workflow-dsl.schema.json",
		"title":                "Pergola workflow definition",
		"description":          "Nodes joined by edges. Edges carry control (what runs after what, which branch); inputs carry data. The body of a loop or batch node is a definition too. JSON or YAML.",
		"type":                 "object",
		"required":             []any{"nodes", "edges"},
		"additionalProperties": false,
		"properties": obj(
			"nodes", obj("type", "array", "items", ref("node")),
			"edges", obj("type", "array", "items", ref("edge")),
			"compat", obj("enum", []any{CompatCoze}, "description", "coze: Coze Studio's conversions of parameters, typed inputs and outputs (a value that cannot be converted is null and a warning in the node's logs); imports set it"),
		),
		"$defs": map[string]any{
			"node":     nodeSchema(types, perType),
			"edge":     edgeSchema(),
			"input":    inputSchema(),
			"ref":      refSchema(),
			"schema":   typeSchema(),
			"param":    paramSchema(),
			"settings": settingsSchema(),
		},
	}
}

func obj(kv ...any) map[string]any {
	m := make(map[string]any, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func ref(name string) map[string]any { return obj("$ref", "#/$defs/"+name) }

func typeNames() []any {
	out := make([]any, len(Types))
	for i, t := range Types {
		out[i] = string(t)
	}
	return out
}

func nodeSchema(types, perType []any) map[string]any {
	return obj("type", "object", "required", []any{"id", "type"}, "additionalProperties", false,
		"properties", obj(
			"id", obj("type", "string", "pattern", nodeIDPattern.String(), "description", "unique in the workflow, bodies included"),
			"type", obj("enum", types),
			"title", obj("type", "string"),
			"config", obj("type", "object", "description", "the settings of the node's type"),
			"inputs", obj("type", "object", "propertyNames", obj("pattern", inputNamePattern.String()), "additionalProperties", ref("input")),
			"outputs", obj("type", "array", "items", ref("param")),
			"settings", ref("settings"),
			"body", obj("$ref", "#", "description", "loop and batch: the nodes of one iteration; edges from the node's own id start it"),
		),
		"allOf", perType)
}

func edgeSchema() map[string]any {
	return obj("type", "object", "required", []any{"from", "to"}, "additionalProperties", false,
		"properties", obj("from", obj("type", "string"), "to", obj("type", "string"),
			"from_port", obj("type", "string", "description", "the branch of a condition or intent node, or error")))
}

func inputSchema() map[string]any {
	return obj("type", "object", "additionalProperties", false,
		"description", "exactly one of value (a literal), ref (an earlier node's output), variable (a bot variable, app.<app variable> or sys.*), template (text over earlier outputs: {{node.path}}) and object (an object whose fields are inputs); type optionally declares what the node expects",
		"properties", obj(
			"type", obj("enum", typeNames()),
			"items", ref("schema"),
			"properties", obj("type", "array", "items", ref("param")),
			"value", obj(),
			"ref", ref("ref"),
			"variable", obj("type", "string"),
			"template", obj("type", "string"),
			"object", obj("type", "object", "additionalProperties", ref("input")),
		),
		"oneOf", []any{obj("required", []any{"value"}), obj("required", []any{"ref"}),
			obj("required", []any{"variable"}), obj("required", []any{"template"}), obj("required", []any{"object"})})
}

func refSchema() map[string]any {
	return obj("type", "object", "required", []any{"node"}, "additionalProperties", false,
		"properties", obj("node", obj("type", "string"),
			"path", obj("type", "string", "description", "dotted keys and indexes into the node's outputs, e.g. items.0.name")))
}

func typeSchema() map[string]any {
	return obj("type", "object", "required", []any{"type"},
		"properties", obj("type", obj("enum", typeNames()), "items", ref("schema"),
			"properties", obj("type", "array", "items", ref("param"))))
}

func paramSchema() map[string]any {
	return obj("type", "object", "required", []any{"name", "type"}, "additionalProperties", false,
		"properties", obj(
			"name", obj("type", "string", "pattern", inputNamePattern.String()),
			"type", obj("enum", typeNames()),
			"items", ref("schema"),
			"properties", obj("type", "array", "items", ref("param")),
			"required", obj("type", "boolean"),
			"description", obj("type", "string"),
			"default", obj("description", "start node parameters: the value when a run gives none, or gives \"\", [] or {}"),
		))
}

func settingsSchema() map[string]any {
	return obj("type", "object", "additionalProperties", false,
		"properties", obj(
			"timeout_ms", obj("type", "integer", "minimum", 0, "maximum", maxTimeoutMS),
			"retries", obj("type", "integer", "minimum", 0, "maximum", maxRetries),
			"retry_backoff_ms", obj("type", "integer", "minimum", 0, "maximum", 60000),
			"on_error", obj("enum", []any{OnErrorFail, OnErrorDefault, OnErrorBranch}),
			"default_output", obj("type", "object"),
		))
}
