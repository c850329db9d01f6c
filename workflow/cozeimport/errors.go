package cozeimport

import (
	"encoding/json"
)

// handlesErrors reports whether a node's failures let the run go on
// (settingOnError processType 2, default output, or 3, error branch;
// see processType):
// Coze then adds the outputs isSuccess and errorBody.
func handlesErrors(n *cozeNode) bool {
	var in struct {
		SettingOnError *settingOnError `json:"settingOnError"`
	}
	if n == nil || json.Unmarshal(n.Data.Inputs, &in) != nil {
		return false
	}
	p := in.SettingOnError.processType()
	return p == 2 || p == 3
}

// errorOutputPath maps Coze's isSuccess and errorBody to the DSL's success
// and error, whose fields keep Coze's names (errorMessage, errorCode) in
// workflows with Coze's conversions, which imports are.
func errorOutputPath(root, rest string) (string, bool) {
	switch root {
	case "isSuccess":
		return joinPath("success", rest), true
	case "errorBody":
		return joinPath("error", rest), true
	}
	return "", false
}
