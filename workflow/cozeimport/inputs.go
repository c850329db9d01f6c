package cozeimport

import (
	"encoding/json"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/workflow"
)

// cozeInputs is data.inputs: every type keeps its settings here, under
// keys of its own.
type cozeInputs struct {
	InputParameters []*cozeParam    `json:"inputParameters"`
	Content         *blockInput     `json:"content"`
	TerminatePlan   string          `json:"terminatePlan"`
	LLMParam        json.RawMessage `json:"llmParam"`
	FCParam         *fcParam        `json:"fcParam"`
	SettingOnError  *settingOnError `json:"settingOnError"`
	// Batch is Coze's batch mode of a single node (not the batch node).
	Batch *nodeBatch `json:"batch"`

	LoopType           string       `json:"loopType"`
	LoopCount          *blockInput  `json:"loopCount"`
	VariableParameters []*cozeParam `json:"variableParameters"`
	BatchSize          *blockInput  `json:"batchSize"`
	ConcurrentSize     *blockInput  `json:"concurrentSize"`

	Branches []struct {
		Condition struct {
			Logic      int `json:"logic"`
			Conditions []struct {
				Operator int        `json:"operator"`
				Left     *cozeParam `json:"left"`
				Right    *cozeParam `json:"right"`
			} `json:"conditions"`
		} `json:"condition"`
	} `json:"branches"`
	Intents []struct {
		Name string `json:"name"`
	} `json:"intents"`

	Method       string       `json:"method"`
	ConcatParams []*cozeParam `json:"concatParams"`
	SplitParams  []*cozeParam `json:"splitParams"`
	MergeGroups  []*cozeParam `json:"mergeGroups"`
	APIParam     []*cozeParam `json:"apiParam"`

	WorkflowID      flexString `json:"workflowId"`
	WorkflowVersion flexString `json:"workflowVersion"`

	Code     string     `json:"code"`
	Language flexString `json:"language"`

	DatasetParam       []*cozeParam        `json:"datasetParam"`
	StrategyParam      *knowledgeStrategy  `json:"strategyParam"`
	ChatHistorySetting *chatHistorySetting `json:"chatHistorySetting"`

	DatabaseInfoList []struct {
		DatabaseInfoID flexString `json:"databaseInfoID"`
	} `json:"databaseInfoList"`
	SQL         string       `json:"sql"`
	SelectParam *selectParam `json:"selectParam"`
	InsertParam *fieldParam  `json:"insertParam"`
	UpdateParam *fieldParam  `json:"updateParam"`
	DeleteParam *fieldParam  `json:"deleteParam"`

	APIInfo struct {
		Method string `json:"method"`
		URL    string `json:"url"`
	} `json:"apiInfo"`
	Body    httpBody     `json:"body"`
	Headers []*cozeParam `json:"headers"`
	Params  []*cozeParam `json:"params"`
	Auth    *httpAuth    `json:"auth"`
	Setting *struct {
		Timeout    int64 `json:"timeout"`
		RetryTimes int64 `json:"retryTimes"`
	} `json:"setting"`

	AnswerType    string `json:"answer_type"`
	OptionType    string `json:"option_type"`
	ExtractOutput bool   `json:"extra_output"`
	Limit         int    `json:"limit"`
	Question      string `json:"question"`
	Options       []struct {
		Name string `json:"name"`
	} `json:"options"`
}

// settingOnError is a node's error handling: processType 1 throws, 2
// outputs dataOnErr, 3 follows the exception branch.
type settingOnError struct {
	Switch      bool   `json:"switch"`
	ProcessType *int   `json:"processType"`
	DataOnErr   string `json:"dataOnErr"`
	RetryTimes  int    `json:"retryTimes"`
	TimeoutMs   int    `json:"timeoutMs"`
	Ext         struct {
		// BackupLLMParam is the LLM node's backup model, as JSON text.
		BackupLLMParam string `json:"backupLLmParam"`
	} `json:"ext"`
}

// processType is how the node handles a failure: as Coze reads it, a
// canvas without processType whose switch is on with a dataOnErr (older
// canvases) outputs the default; 0 when nothing is set.
func (s *settingOnError) processType() int {
	switch {
	case s == nil:
		return 0
	case s.ProcessType != nil:
		return *s.ProcessType
	case s.Switch && s.DataOnErr != "":
		return 2
	}
	return 0
}

// fcParam lists the tools an LLM node may call.
type fcParam struct {
	PluginFCParam *struct {
		PluginList []struct {
			PluginID flexString `json:"plugin_id"`
			APIName  string     `json:"api_name"`
		} `json:"pluginList"`
	} `json:"pluginFCParam"`
	WorkflowFCParam *struct {
		WorkflowList []struct {
			WorkflowID flexString `json:"workflow_id"`
		} `json:"workflowList"`
	} `json:"workflowFCParam"`
	KnowledgeFCParam json.RawMessage `json:"knowledgeFCParam"`
}

func decodeInputs(n *cozeNode, at string) (*cozeInputs, error) {
	in := &cozeInputs{}
	if len(n.Data.Inputs) == 0 || string(n.Data.Inputs) == "null" {
		return in, nil
	}
	if err := json.Unmarshal(n.Data.Inputs, in); err != nil {
		return nil, errs.Invalid(at+".data.inputs", "cannot be read: %v", err)
	}
	return in, nil
}

// settings converts settingOnError: retries (at most 5), timeout, and
// what a failure does.
func (nc *nodeConv) settings() error {
	s := nc.in.SettingOnError
	if s == nil {
		return nil
	}
	out := &workflow.Settings{TimeoutMS: s.TimeoutMs, Retries: min(max(s.RetryTimes, 0), 5)}
	if s.RetryTimes > 5 {
		nc.flag("retries lowered from %d to 5", s.RetryTimes)
	}
	switch s.processType() {
	case 2:
		out.OnError = workflow.OnErrorDefault
		if s.DataOnErr != "" {
			if err := json.Unmarshal([]byte(s.DataOnErr), &out.DefaultOutput); err != nil {
				return errs.Invalid(nc.at+".data.inputs.settingOnError.dataOnErr", "is not a JSON object: %v", err)
			}
			renameKeys(out.DefaultOutput, outputRenames(string(nc.n.Type)))
		}
	case 3:
		out.OnError = workflow.OnErrorBranch
	}
	if out.TimeoutMS == 0 && out.Retries == 0 && out.OnError == "" {
		return nil
	}
	if old := nc.node.Settings; old != nil {
		out.TimeoutMS, out.Retries = max(out.TimeoutMS, old.TimeoutMS), max(out.Retries, old.Retries)
	}
	nc.node.Settings = out
	return nil
}

// renameKeys renames the keys of m that Pergola spells differently.
func renameKeys(m map[string]any, renames map[string]string) {
	for from, to := range renames {
		if v, ok := m[from]; ok {
			delete(m, from)
			m[to] = v
		}
	}
}
