package wfimport

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"

	"github.com/cloudwego/hertz/pkg/app"

	appapp "github.com/pergola-ai/pergola/application/app"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/backend/api/workflows"
	"github.com/pergola-ai/pergola/domain/identity"
	wf "github.com/pergola-ai/pergola/workflow"
	"github.com/pergola-ai/pergola/workflow/cozeimport"
)

// imported is what became of one workflow of an export.
type imported struct {
	CozeID   string                 `json:"coze_id"`
	File     string                 `json:"file,omitempty"`
	Workflow *workflows.WorkflowDTO `json:"workflow,omitempty"`
	// PublishedVersion is set on the workflows another of the export
	// runs: they are published so that it can pin the version.
	PublishedVersion int64                  `json:"published_version,omitempty"`
	Report           cozeimport.Report      `json:"report"`
	Problems         []workflows.ProblemDTO `json:"problems,omitempty"`
}

// bundleResponse answers an import of several workflows, in the order
// they were imported (those run by others first).
type bundleResponse struct {
	Workflows         []imported `json:"workflows"`
	AppVariables      []string   `json:"app_variables,omitempty"`
	AppVariablesAdded []string   `json:"app_variables_added,omitempty"`
}

// bundle is the state of one import of several workflows.
type bundle struct {
	h       Handler
	req     *request
	p       identity.Principal
	ws      []cozeimport.ExportWorkflow
	plan    *cozeimport.Plan
	out     []imported // by index of ws
	refs    map[string]cozeimport.WorkflowRef
	created []int64
	decl    appapp.Declarations
}

// importAll imports the workflows of an export or manifest, those run by
// others first (and published), all or nothing: a failure deletes what
// was created and answers 400 naming the workflow and node.
func (h Handler) importAll(ctx context.Context, c *app.RequestContext, req *request, ws []cozeimport.ExportWorkflow) error {
	opts := req.options()
	plan, err := cozeimport.PlanExport(ws, opts.Workflows, req.AllowPartial)
	if err != nil {
		return err
	}
	b := &bundle{h: h, req: req, p: httpx.Caller(c), ws: ws, plan: plan, out: make([]imported, len(ws)), refs: opts.Workflows}
	if msg := b.dryRun(); msg != "" {
		fail(c, msg, b.response())
		return nil
	}
	if err := b.checkApp(ctx); err != nil {
		return err
	}
	if err := b.create(ctx); err != nil {
		b.rollback(ctx)
		return b.failed(c, err)
	}
	resp := b.response()
	if req.AppID != 0 && len(b.decl.Names) > 0 {
		if resp.AppVariablesAdded, err = h.Apps.Declare(ctx, b.p, int64(req.WorkspaceID), int64(req.AppID), b.decl); err != nil {
			b.rollback(ctx)
			return err
		}
	}
	c.JSON(http.StatusCreated, httpx.Envelope{Data: resp})
	return nil
}

// dryRun converts every canvas with stand-ins for the workflows of the
// export, before anything is created, and returns why the import cannot
// go on ("" when it can): a malformed canvas, or unsupported nodes without
// allow_partial.
func (b *bundle) dryRun() string {
	stand := b.options()
	for _, w := range b.ws {
		if _, ok := stand.Workflows[w.ID]; !ok {
			stand.Workflows[w.ID] = cozeimport.WorkflowRef{ID: 1, Version: 1}
		}
	}
	for i, w := range b.ws {
		b.out[i] = imported{CozeID: w.ID, File: w.File}
		res, err := cozeimport.Convert(w.Canvas, stand)
		if err != nil {
			return fmt.Sprintf("%s: %v", at(i, w), err)
		}
		b.out[i].Report = res.Report
		b.addAppVariables(res)
		if len(res.Report.Unsupported) > 0 && !b.req.AllowPartial {
			return fmt.Sprintf("%s: nodes that cannot be converted (pass allow_partial to import the rest): %s",
				at(i, w), res.Report.UnsupportedText())
		}
	}
	return ""
}

// options are the request's, with a map of workflows of its own.
func (b *bundle) options() cozeimport.Options {
	o := b.req.options()
	o.Workflows = maps.Clone(b.refs)
	return o
}

// addAppVariables notes the app variables a workflow uses.
func (b *bundle) addAppVariables(res *cozeimport.Result) {
	for _, name := range res.AppVariables {
		if !slices.Contains(b.decl.Names, name) {
			b.decl.Names = append(b.decl.Names, name)
		}
	}
	for k, v := range res.AppVariableTypes {
		if b.decl.Types == nil {
			b.decl.Types = map[string]string{}
		}
		b.decl.Types[k] = v
	}
}

// checkApp checks, before anything is created, that the app can take the
// variables the workflows use.
func (b *bundle) checkApp(ctx context.Context) error {
	if b.req.AppID == 0 {
		return nil
	}
	return b.h.Apps.CheckDeclare(ctx, b.p, int64(b.req.WorkspaceID), int64(b.req.AppID), b.decl)
}

// at names a workflow of the export in messages.
func at(i int, w cozeimport.ExportWorkflow) string {
	if w.File != "" {
		return fmt.Sprintf("workflows[%d] (%s, Coze workflow %s)", i, w.File, w.ID)
	}
	return fmt.Sprintf("workflows[%d] (Coze workflow %s)", i, w.ID)
}

// failed answers the error of one workflow: a definition that does not
// validate is 400 with its problems and the reports; others as usual.
func (b *bundle) failed(c *app.RequestContext, err error) error {
	var fe *workflowFailure
	if !errors.As(err, &fe) {
		return err
	}
	var verr *wf.ValidationError
	if !errors.As(fe.err, &verr) {
		return fmt.Errorf("%s: %w", fe.at, fe.err)
	}
	b.out[fe.index].Problems = problems(fe.err)
	fail(c, fe.at+": the converted workflow is invalid: "+fe.err.Error(), b.response())
	return nil
}

// response lists the workflows in the order they were imported.
func (b *bundle) response() bundleResponse {
	r := bundleResponse{Workflows: []imported{}, AppVariables: b.decl.Names}
	for _, i := range b.plan.Order {
		r.Workflows = append(r.Workflows, b.out[i])
	}
	return r
}

// rollback deletes the workflows created, the last first; it goes on when
// the request is cancelled.
func (b *bundle) rollback(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	for k := len(b.created) - 1; k >= 0; k-- {
		if err := b.h.Svc.Delete(ctx, b.p, b.created[k]); err != nil {
			slog.ErrorContext(ctx, "workflow import: cannot delete a workflow of a failed import", "workflow_id", b.created[k], "err", err)
		}
	}
	for i := range b.out {
		b.out[i].Workflow, b.out[i].PublishedVersion = nil, 0
	}
}
