package cozeimport

import (
	"encoding/json"
	"strings"
)

// handlesErrors reports whether a node's failures let the run go on
// (settingOnError processType 2, default output, or 3, error branch):
// Coze then adds the outputs isSuccess and errorBody.
func handlesErrors(n *cozeNode) bool {
	var in struct {
		SettingOnError *settingOnError `json:"settingOnError"`
	}
	if n == nil || json.Unmarshal(n.Data.Inputs, &in) != nil || in.SettingOnError == nil || in.SettingOnError.ProcessType == nil {
		return false
	}
	p := *in.SettingOnError.ProcessType
	return p == 2 || p == 3
}

// errorOutputPath maps Coze's isSuccess and errorBody.{errorMessage,
// errorCode} to the DSL's success and error.{message, code}.
func errorOutputPath(root, rest string) (string, bool) {
	switch root {
	case "isSuccess":
		return joinPath("success", rest), true
	case "errorBody":
		field, deeper, _ := strings.Cut(rest, ".")
		switch field {
		case "errorMessage":
			field = "message"
		case "errorCode":
			field = "code"
		}
		return joinPath("error", joinPath(field, deeper)), true
	}
	return "", false
}
