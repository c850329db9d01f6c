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
	Type     string          `json:"type"`
	Function *oaFunctionSpec `json:"function"`
	oaFunctionSpec
}

type oaFunctionSpec struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
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
		spec := t.oaFunctionSpec
		if t.Function != nil {
			spec = *t.Function
		}
		rt.Tools = append(rt.Tools, bot.ClientTool{Name: spec.Name, Description: spec.Description, Parameters: spec.Parameters})
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
