package cozeimport

import (
	"encoding/json"
	"strconv"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/workflow"
)

// llmSettings are the settings of an LLM node, kept by Coze as a list of
// named literals in llmParam.
type llmSettings struct {
	model, prompt, system     string
	temperature, topP         *float64
	maxTokens, responseFormat int
	historyRounds             int // 0: no chat history
}

// defaultHistoryRounds is Coze's chatHistoryRound when it is not set.
const defaultHistoryRounds = 3

func (nc *nodeConv) llmSettings() (llmSettings, error) {
	var list []*cozeParam
	if err := json.Unmarshal(nc.in.LLMParam, &list); err != nil {
		return llmSettings{}, errs.Invalid(nc.at+".data.inputs.llmParam", "is not a list of parameters: %v", err)
	}
	var s llmSettings
	num := func(name string) *float64 {
		t, ok := paramText(list, name)
		if f, err := strconv.ParseFloat(t, 64); ok && err == nil {
			return &f
		}
		return nil
	}
	s.model, _ = paramText(list, "modelType")
	s.prompt, _ = paramText(list, "prompt")
	s.system, _ = paramText(list, "systemPrompt")
	s.temperature, s.topP = num("temperature"), num("topP")
	if f := num("maxTokens"); f != nil {
		s.maxTokens = int(*f)
	}
	if f := num("responseFormat"); f != nil {
		s.responseFormat = int(*f)
	}
	if t, _ := paramText(list, "enableChatHistory"); t == "true" {
		s.historyRounds = defaultHistoryRounds
		if f := num("chatHistoryRound"); f != nil && *f >= 1 {
			s.historyRounds = min(int(*f), workflow.MaxChatHistoryRounds)
		}
	}
	return s, nil
}

// modelID maps a Coze model (modelType) to a Pergola model.
func (nc *nodeConv) modelID(coze string) string {
	if id, ok := nc.c.opts.Models[coze]; ok {
		return id
	}
	if nc.c.opts.DefaultModelID != "" {
		nc.flag("model %s of Coze Studio replaced by the default model %s", coze, nc.c.opts.DefaultModelID)
		return nc.c.opts.DefaultModelID
	}
	nc.flag("model %s is a Coze Studio model: map it to a Pergola model", coze)
	return "coze-" + coze
}

// convertLLM: prompts, sampling, text or JSON output, plugin tools.
func convertLLM(nc *nodeConv) error {
	if err := nc.inputParams(); err != nil {
		return err
	}
	s, err := nc.llmSettings()
	if err != nil {
		return err
	}
	cfg := map[string]any{"model_id": nc.modelID(s.model)}
	if cfg["prompt"], err = nc.template(s.prompt); err != nil {
		return err
	}
	if s.system != "" {
		if cfg["system"], err = nc.template(s.system); err != nil {
			return err
		}
	}
	if s.temperature != nil {
		cfg["temperature"] = *s.temperature
	}
	if s.topP != nil {
		cfg["top_p"] = *s.topP
	}
	if s.maxTokens > 0 {
		cfg["max_tokens"] = s.maxTokens
	}
	if s.historyRounds > 0 {
		cfg["chat_history_rounds"] = s.historyRounds
	}
	outs, err := nc.declaredOutputs()
	if err != nil {
		return err
	}
	nc.node.Outputs = outs
	if answer := withoutReasoning(outs); s.responseFormat == 2 && !(len(answer) == 1 && answer[0].Type == "string") {
		cfg["output"] = "json"
	}
	if tools := nc.llmTools(); len(tools) > 0 {
		cfg["tools"] = tools
	}
	if flows := nc.llmWorkflows(); len(flows) > 0 {
		cfg["workflows"] = flows
	}
	k, err := nc.llmKnowledge()
	if err != nil {
		return err
	}
	if k != nil {
		cfg["knowledge"] = k
	}
	if backup := nc.backupModel(); backup != "" {
		cfg["backup_model_id"] = backup
	}
	return nc.config(cfg)
}

// backupModel maps the LLM node's backup model, which Coze calls on
// retries only: none without retries.
func (nc *nodeConv) backupModel() string {
	s := nc.in.SettingOnError
	if s == nil || s.RetryTimes <= 0 || s.Ext.BackupLLMParam == "" {
		return ""
	}
	var p struct {
		ModelType flexString `json:"modelType"`
	}
	if json.Unmarshal([]byte(s.Ext.BackupLLMParam), &p) != nil || p.ModelType == "" {
		nc.flag("the backup model is not readable and is left out")
		return ""
	}
	return nc.modelID(string(p.ModelType))
}

// llmTools converts the plugin tools of an LLM node.
func (nc *nodeConv) llmTools() []map[string]any {
	fc := nc.in.FCParam
	if fc == nil {
		return nil
	}
	var tools []map[string]any
	if fc.PluginFCParam != nil {
		for _, p := range fc.PluginFCParam.PluginList {
			tools = append(tools, map[string]any{"plugin_id": nc.pluginID(string(p.PluginID)), "tool": p.APIName})
		}
	}
	return tools
}

// convertIntent: the intents become ports; the query input is classified.
func convertIntent(nc *nodeConv) error {
	if err := nc.inputParams(); err != nil {
		return err
	}
	var llm struct {
		ModelType    flexString  `json:"modelType"`
		SystemPrompt *blockInput `json:"systemPrompt"`
	}
	if len(nc.in.LLMParam) > 0 {
		if err := json.Unmarshal(nc.in.LLMParam, &llm); err != nil {
			return errs.Invalid(nc.at+".data.inputs.llmParam", "cannot be read: %v", err)
		}
	}
	intents := make([]map[string]string, 0, len(nc.in.Intents))
	for i, in := range nc.in.Intents {
		intents = append(intents, map[string]string{"name": in.Name, "port": "branch_" + strconv.Itoa(i)})
	}
	cfg := map[string]any{"model_id": nc.modelID(string(llm.ModelType)), "intents": intents}
	if sys, ok := llm.SystemPrompt.literalText(); ok && sys != "" {
		cfg["system"] = sys
	}
	return nc.config(cfg)
}

// withoutReasoning leaves out the reasoning_content output, which the
// model's reasoning fills.
func withoutReasoning(outs []workflow.Param) []workflow.Param {
	var kept []workflow.Param
	for _, p := range outs {
		if p.Name != workflow.ReasoningOutput {
			kept = append(kept, p)
		}
	}
	return kept
}

// llmWorkflows converts the workflow skills of an LLM node to workflow
// tools, through the import's workflow mappings. With
// RequireWorkflowMappings (imports) a skill whose workflow is neither
// imported nor mapped is left out and reported, as a sub-workflow node
// in that case is kept as a placeholder (CheckReferences lets either
// through only with AllowPartial).
func (nc *nodeConv) llmWorkflows() []map[string]int64 {
	fc := nc.in.FCParam
	if fc == nil || fc.WorkflowFCParam == nil {
		return nil
	}
	var flows []map[string]int64
	for _, w := range fc.WorkflowFCParam.WorkflowList {
		ref, ok := nc.c.opts.Workflows[string(w.WorkflowID)]
		if !ok && nc.c.opts.RequireWorkflowMappings {
			nc.flag("workflow tool %s is left out: its workflow is neither in the import nor mapped "+
				"(put its canvas in the export or the manifest, or map it in mappings.workflows)", w.WorkflowID)
			continue
		}
		if !ok {
			nc.flag("workflow %s is a Coze Studio workflow: import it and map it to a published Pergola workflow", w.WorkflowID)
			ref.ID, _ = strconv.ParseInt(string(w.WorkflowID), 10, 64)
			ref.Version = 1
		}
		flows = append(flows, map[string]int64{"workflow_id": ref.ID, "version": ref.Version})
	}
	return flows
}
