package workflows

import (
	"encoding/json"
	"strconv"
	"strings"

	workflowapp "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/workflow"
)

// runRequest is the body of /v1/workflow/run and /v1/workflow/stream_run.
type runRequest struct {
	WorkflowID      httpx.ID          `json:"workflow_id"`
	Parameters      json.RawMessage   `json:"parameters"`
	BotID           httpx.ID          `json:"bot_id"`
	Ext             map[string]string `json:"ext"`
	IsAsync         bool              `json:"is_async"`
	AppID           httpx.ID          `json:"app_id"`
	WorkflowVersion string            `json:"workflow_version"`
	Version         string            `json:"version"`
}

// toApp converts the request. Parameters come as an object, or as text
// holding one (as Coze Studio's clients send them); the end user is
// ext.user_id, else the caller.
func (r *runRequest) toApp(mode workflow.RunMode) (workflowapp.RunRequest, error) {
	out := workflowapp.RunRequest{WorkflowID: int64(r.WorkflowID), BotID: int64(r.BotID), AppID: int64(r.AppID), Mode: mode,
		Stream: mode == workflow.RunStream, UserID: r.Ext["user_id"]}
	if out.WorkflowID == 0 {
		return out, errs.Invalid("workflow_id", "is required")
	}
	if r.IsAsync {
		out.Mode, out.Stream = workflow.RunAsync, false
	}
	params, err := parseParameters(r.Parameters)
	if err != nil {
		return out, err
	}
	out.Params = params
	label := r.WorkflowVersion
	if label == "" {
		label = r.Version
	}
	if out.Version, err = parseVersion(label); err != nil {
		return out, err
	}
	return out, nil
}

func parseParameters(raw json.RawMessage) (map[string]any, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return map[string]any{}, nil
	}
	if s[0] == '"' {
		if err := json.Unmarshal([]byte(s), &s); err != nil {
			return nil, errs.Invalid("parameters", "is not valid JSON: %v", err)
		}
	}
	var params map[string]any
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&params); err != nil {
		return nil, errs.Invalid("parameters", "must be an object of the workflow's parameters")
	}
	if params == nil {
		params = map[string]any{}
	}
	return params, nil
}

// resumeRequest is the body of /v1/workflow/stream_resume.
type resumeRequest struct {
	WorkflowID    httpx.ID `json:"workflow_id"`
	EventID       string   `json:"event_id"`
	ResumeData    string   `json:"resume_data"`
	InterruptType int      `json:"interrupt_type"`
}

func (r *resumeRequest) toApp() (workflowapp.ResumeRequest, error) {
	if r.WorkflowID == 0 {
		return workflowapp.ResumeRequest{}, errs.Invalid("workflow_id", "is required")
	}
	if r.EventID == "" {
		return workflowapp.ResumeRequest{}, errs.Invalid("event_id", "is required: the event_id of the Interrupt event")
	}
	return workflowapp.ResumeRequest{WorkflowID: int64(r.WorkflowID), EventID: r.EventID, Data: r.ResumeData,
		InterruptType: r.InterruptType, Stream: true}, nil
}

// parseVersion reads "", "3" or "v3"; "" is the latest version.
func parseVersion(label string) (int64, error) {
	if label == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(strings.TrimPrefix(strings.ToLower(label), "v"), 10, 64)
	if err != nil || n <= 0 {
		return 0, errs.Invalid("workflow_version", "must be a published version number such as 3; got %q", label)
	}
	return n, nil
}
