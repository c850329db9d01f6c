package workflows

import (
	"context"
	"strconv"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/workflow"
)

// RunHistoryDTO is Coze's WorkflowRunHistory, with every node's record in
// nodes.
type RunHistoryDTO struct {
	ExecuteID         string                      `json:"execute_id"`
	ExecuteStatus     string                      `json:"execute_status"`
	BotID             string                      `json:"bot_id"`
	ConnectorID       string                      `json:"connector_id"`
	ConnectorUID      string                      `json:"connector_uid"`
	RunMode           int                         `json:"run_mode"`
	LogID             string                      `json:"logid"`
	CreateTime        int64                       `json:"create_time"`
	UpdateTime        int64                       `json:"update_time"`
	Output            string                      `json:"output"`
	NodeExecuteStatus map[string]NodeExecuteState `json:"node_execute_status"`
	ErrorCode         string                      `json:"error_code"`
	ErrorMessage      string                      `json:"error_message"`
	DebugURL          string                      `json:"debug_url"`
	Usage             UsageDTO                    `json:"usage"`
	WorkflowVersion   int64                       `json:"workflow_version"`
	Nodes             []NodeDTO                   `json:"nodes"`
}

// NodeExecuteState is how far a node got, as Coze shows it.
type NodeExecuteState struct {
	NodeID          string  `json:"node_id"`
	IsFinish        bool    `json:"is_finish"`
	LoopIndex       *int    `json:"loop_index"`
	BatchIndex      *int    `json:"batch_index"`
	UpdateTime      int64   `json:"update_time"`
	SubExecuteID    *string `json:"sub_execute_id"`
	NodeExecuteUUID string  `json:"node_execute_uuid"`
	Status          string  `json:"status"`
}

// executeStatus and runMode name a run as Coze does.
var (
	executeStatus = map[workflow.RunStatus]string{workflow.RunRunning: "Running", workflow.RunSucceeded: "Success",
		workflow.RunFailed: "Fail", workflow.RunInterrupted: "Interrupted", workflow.RunCancelled: "Cancel"}
	runMode = map[workflow.RunMode]int{workflow.RunSync: 0, workflow.RunStream: 1, workflow.RunAsync: 2, workflow.RunTest: 0}
)

func newRunHistory(r *workflow.Run, nodes []workflow.NodeRun, logID string) RunHistoryDTO {
	d := RunHistoryDTO{ExecuteID: strconv.FormatInt(r.ID, 10), ExecuteStatus: executeStatus[r.Status],
		BotID: strconv.FormatInt(r.BotID, 10), ConnectorID: r.ConnectorID, ConnectorUID: r.UserID, RunMode: runMode[r.Mode],
		LogID: logID, CreateTime: httpx.Unix(r.CreatedAt), UpdateTime: httpx.Unix(r.UpdatedAt), Output: r.Output,
		ErrorCode: "0", ErrorMessage: r.Error, Usage: newUsage(r.InputTokens, r.OutputTokens), WorkflowVersion: r.Version,
		NodeExecuteStatus: map[string]NodeExecuteState{}, Nodes: make([]NodeDTO, len(nodes))}
	if r.Status == workflow.RunFailed {
		d.ErrorCode = strconv.Itoa(httpx.CodeInvalid)
	}
	for i := range nodes {
		n := &nodes[i]
		d.Nodes[i] = newNodeDTO(n)
		key := n.NodeID
		if n.Parent != "" {
			key = n.Parent + "/" + n.NodeID
		}
		st := NodeExecuteState{NodeID: n.NodeID, IsFinish: n.Status != "skipped", UpdateTime: n.StartedAt.Add(n.Duration).Unix(),
			NodeExecuteUUID: strconv.FormatInt(r.ID, 10) + "-" + strconv.FormatInt(n.Seq, 10), Status: n.Status}
		if n.Index >= 0 {
			i := n.Index
			st.LoopIndex = &i
		}
		d.NodeExecuteStatus[key] = st
	}
	return d
}

// RunHistory answers GET /v1/workflows/:workflow_id/run_histories/
// :execute_id with data a one-element array, as Coze's SDKs read it.
func (h Coze) RunHistory(ctx context.Context, c *app.RequestContext) error {
	wid, err := httpx.PathID(c, "workflow_id")
	if err != nil {
		return err
	}
	rid, err := httpx.PathID(c, "execute_id")
	if err != nil {
		return err
	}
	run, nodes, err := h.Svc.RunHistory(ctx, httpx.Caller(c), wid, rid)
	if err != nil {
		return err
	}
	httpx.OK(c, []RunHistoryDTO{newRunHistory(run, nodes, httpx.LogID(c))})
	return nil
}
