package cozeimport

import (
	"encoding/json"
	"strconv"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/workflow"
)

// convertStart: the start node's declared outputs are the parameters.
func convertStart(nc *nodeConv) error {
	outs, err := nc.declaredOutputs()
	nc.node.Outputs = outs
	if err != nil {
		return err
	}
	for i, raw := range nc.n.Data.Outputs {
		var v cozeVariable
		if json.Unmarshal(raw, &v) != nil || v.DefaultValue == nil || v.DefaultValue == "" || i >= len(outs) {
			continue
		}
		def, warnings := workflow.Coerce(outs[i].Schema, v.DefaultValue)
		for _, w := range warnings {
			nc.flag("default of %s: %s", v.Name, w)
		}
		outs[i].Default = def
	}
	return nil
}

// convertEnd: terminatePlan returnVariables returns the inputs;
// useAnswerContent renders the content template.
func convertEnd(nc *nodeConv) error {
	if err := nc.inputParams(); err != nil {
		return err
	}
	if nc.in.TerminatePlan != "useAnswerContent" {
		return nc.config(map[string]string{"mode": "variables"})
	}
	text, _ := nc.in.Content.literalText()
	tmpl, err := nc.template(text)
	if err != nil {
		return err
	}
	return nc.config(map[string]string{"mode": "text", "template": tmpl})
}

// convertEmitter: an output emitter shows its content as a message.
func convertEmitter(nc *nodeConv) error {
	if err := nc.inputParams(); err != nil {
		return err
	}
	text, _ := nc.in.Content.literalText()
	tmpl, err := nc.template(text)
	if err != nil {
		return err
	}
	return nc.config(map[string]string{"template": tmpl})
}

// paramsAndOutputs converts the node's input parameters and declared
// outputs.
func (nc *nodeConv) paramsAndOutputs() error {
	if err := nc.inputParams(); err != nil {
		return err
	}
	outs, err := nc.declaredOutputs()
	nc.node.Outputs = outs
	return err
}

// convertCode keeps the code: TypeScript (language 5) or Python
// (language 3), which runs where the server has python3 and bubblewrap.
func convertCode(nc *nodeConv) error {
	if err := nc.paramsAndOutputs(); err != nil {
		return err
	}
	code, lang := nc.in.Code, "javascript"
	switch nc.in.Language {
	case "5": // Coze's template is TypeScript: main({ params }: Args): Promise<Output>
		lang = "typescript"
	case "3": // Coze's template: async def main(args: Args) -> Output, args.params
		lang = "python"
	default:
		return unsupported("code in language %q cannot be run", nc.in.Language)
	}
	return nc.config(map[string]string{"language": lang, "code": code})
}

// convertPlugin: apiParam names the plugin and the tool; the inputs are
// the tool's arguments.
func convertPlugin(nc *nodeConv) error {
	if err := nc.paramsAndOutputs(); err != nil {
		return err
	}
	pluginID, _ := paramText(nc.in.APIParam, "pluginID")
	tool, _ := paramText(nc.in.APIParam, "apiName")
	if pluginID == "" || tool == "" {
		return errs.Invalid(nc.at+".data.inputs.apiParam", "must name the plugin (pluginID) and the tool (apiName)")
	}
	id := nc.pluginID(pluginID)
	return nc.config(map[string]any{"plugin_id": id, "tool": tool})
}

// pluginID maps a Coze plugin id to Pergola's.
func (nc *nodeConv) pluginID(coze string) int64 {
	if id, ok := nc.c.opts.Plugins[coze]; ok {
		return id
	}
	nc.flag("plugin %s is a Coze Studio plugin: map it to a Pergola plugin", coze)
	id, _ := strconv.ParseInt(coze, 10, 64)
	return id
}

// paramText returns the literal text of the param named name.
func paramText(params []*cozeParam, name string) (string, bool) {
	p := findParam(params, name)
	if p == nil {
		return "", false
	}
	return p.Input.literalText()
}
