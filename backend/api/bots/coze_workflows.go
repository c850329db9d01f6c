package bots

import (
	"context"

	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/workflow"
)

// WorkflowReader reads a workflow for a caller; *workflow.Service
// (application) implements it.
type WorkflowReader interface {
	Get(ctx context.Context, p identity.Principal, id int64) (*workflow.Workflow, error)
}

// cozeWorkflowInfo is Coze's BotWorkflowInfo, an entry of
// workflow_info_list.
type cozeWorkflowInfo struct {
	ID          httpx.ID `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	IconURL     string   `json:"icon_url"`
}

// workflowInfos lists the workflows a bot configuration binds. A workflow
// the caller may not read (its token lacks the workflow scope) or that was
// deleted since is listed by id alone: the bot still binds it.
func (h Coze) workflowInfos(ctx context.Context, p identity.Principal, refs []bot.WorkflowRef) []cozeWorkflowInfo {
	out := make([]cozeWorkflowInfo, 0, len(refs))
	for _, r := range refs {
		info := cozeWorkflowInfo{ID: httpx.ID(r.WorkflowID)}
		if h.Workflows != nil {
			if w, err := h.Workflows.Get(ctx, p, r.WorkflowID); err == nil {
				info.Name, info.Description = w.Name, w.Description
			}
		}
		out = append(out, info)
	}
	return out
}
