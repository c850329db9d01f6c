package chat

import (
	"encoding/json"
	"strconv"

	chatapp "github.com/pergola-ai/pergola/application/chat"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
)

// oaTool is a tool of a request: chat completions nest the function
// ({"type":"function","function":{...}}), the Responses API does not
// ({"type":"function","name",...}); both are read.
type oaTool struct {
	Type        string          `json:"type"`
	Function    *oaFunctionSpec `json:"function"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// oaFunctionSpec is a function's name, description and parameters (a
// JSON Schema, read by requestTools so that an error names the tool).
type oaFunctionSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// spec returns the tool's function, nested or not.
func (t oaTool) spec() oaFunctionSpec {
	if t.Function != nil {
		return *t.Function
	}
	return oaFunctionSpec{Name: t.Name, Description: t.Description, Parameters: t.Parameters}
}

// parameters reads a function's parameters: absent, null or an object.
func (s oaFunctionSpec) parameters(at string) (map[string]any, error) {
	var params map[string]any
	if len(s.Parameters) > 0 && json.Unmarshal(s.Parameters, &params) != nil {
		return nil, errs.Invalid(at+".parameters", `must be a JSON Schema object, such as {"type":"object","properties":{...}}; got %s`, excerpt(s.Parameters))
	}
	return params, nil
}

// excerpt is the start of a raw JSON value, for an error message.
func excerpt(raw json.RawMessage) string {
	if len(raw) > 40 {
		return string(raw[:40]) + "..."
	}
	return string(raw)
}

// requestTools reads tools and tool_choice; only function tools are
// Pergola's to offer (the bot's own tools run on the server).
func requestTools(tools []oaTool, choice json.RawMessage) (chatapp.RequestTools, error) {
	rt := chatapp.RequestTools{Field: "tools"}
	for i, t := range tools {
		at := "tools[" + strconv.Itoa(i) + "]"
		if t.Type != "function" {
			return rt, errs.Invalid(at+".type", `only "function" tools can be sent; got %q (the bot's own tools run on the server)`, t.Type)
		}
		spec := t.spec()
		if t.Function != nil {
			at += ".function"
		}
		params, err := spec.parameters(at)
		if err != nil {
			return rt, err
		}
		rt.Tools = append(rt.Tools, bot.ClientTool{Name: spec.Name, Description: spec.Description, Parameters: params})
	}
	c, err := toolChoice(choice)
	rt.Choice = c
	return rt, err
}

// toolChoice reads "auto" | "none" | "required" | {"type":"function",
// "function":{"name"}} | {"type":"function","name"} (Responses).
func toolChoice(raw json.RawMessage) (chatapp.ToolChoice, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return chatapp.ToolChoice{}, nil
	}
	var mode string
	if json.Unmarshal(raw, &mode) == nil {
		return chatapp.ToolChoice{Mode: mode}, nil
	}
	var obj struct {
		Type     string `json:"type"`
		Name     string `json:"name"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil || obj.Type != "function" {
		return chatapp.ToolChoice{}, errs.Invalid("tool_choice", `must be "auto", "none", "required" or {"type":"function","function":{"name":"..."}}`)
	}
	name := obj.Function.Name
	if name == "" {
		name = obj.Name
	}
	return chatapp.ToolChoice{Mode: chatapp.ToolChoiceFunction, Name: name}, nil
}
