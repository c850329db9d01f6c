package wfimport

import (
	"context"
	"fmt"

	workflowapp "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/backend/api/workflows"
	"github.com/pergola-ai/pergola/workflow/cozeimport"
)

// workflowFailure is the failure of one workflow of an export.
type workflowFailure struct {
	index int
	at    string
	err   error
}

func (f *workflowFailure) Error() string { return f.at + ": " + f.err.Error() }
func (f *workflowFailure) Unwrap() error { return f.err }

// create converts and creates the workflows in the plan's order, each with
// the ids of those created before it, and publishes those another runs.
func (b *bundle) create(ctx context.Context) error {
	for _, i := range b.plan.Order {
		if err := b.createOne(ctx, i); err != nil {
			return &workflowFailure{index: i, at: at(i, b.ws[i]), err: err}
		}
	}
	return nil
}

// createOne imports one workflow of the export.
func (b *bundle) createOne(ctx context.Context, i int) error {
	w := b.ws[i]
	res, err := cozeimport.Convert(w.Canvas, b.options())
	if err != nil {
		return err
	}
	b.out[i].Report = res.Report
	def, err := res.Definition.Marshal()
	if err != nil {
		return err
	}
	name := w.Name
	if name == "" {
		name = cozeimport.WorkflowName("coze_" + w.ID)
	}
	created, err := b.h.Svc.Create(ctx, b.p, workflowapp.CreateInput{WorkspaceID: int64(b.req.WorkspaceID),
		Name: name, Description: b.req.Description, Definition: def})
	if err != nil {
		return err
	}
	b.created = append(b.created, created.ID)
	dto := workflows.NewWorkflowDTO(created)
	b.out[i].Workflow = &dto
	if !b.plan.Used[w.ID] {
		return nil
	}
	v, err := b.h.Svc.Publish(ctx, b.p, created.ID, fmt.Sprintf("imported from Coze workflow %s", w.ID))
	if err != nil {
		return err
	}
	b.out[i].PublishedVersion = v.Number
	b.refs[w.ID] = cozeimport.WorkflowRef{ID: created.ID, Version: v.Number}
	return nil
}
