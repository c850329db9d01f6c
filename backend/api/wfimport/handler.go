// Package wfimport holds the handler that imports Coze Studio workflows:
// POST /api/workflows/import converts a canvas and creates a draft.
package wfimport

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/cloudwego/hertz/pkg/app"

	appapp "github.com/pergola-ai/pergola/application/app"
	workflowapp "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/backend/api/workflows"
	wf "github.com/pergola-ai/pergola/workflow"
	"github.com/pergola-ai/pergola/workflow/cozeimport"
)

// Handler serves the import route.
type Handler struct {
	Svc  *workflowapp.Service
	Apps *appapp.Service // declares the app variables of an import with app_id
}

// defaultName names a workflow imported without a name.
const defaultName = "imported_workflow"

type request struct {
	WorkspaceID  httpx.ID        `json:"workspace_id"`
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	Canvas       json.RawMessage `json:"canvas"`
	AllowPartial bool            `json:"allow_partial"`
	Mappings     mappings        `json:"mappings"`
	// AppID names the app (of the workspace) whose variables the workflow
	// uses: Coze's app and user variables both become app variables, and
	// those the app lacks are declared on it.
	AppID httpx.ID `json:"app_id"`
	// Export is a zip of several Coze Studio workflows (base64 in JSON;
	// the uploaded file in multipart), Workflows a manifest giving their
	// canvases by Coze workflow id: all are imported in one go.
	Export    []byte                      `json:"export"`
	Workflows []cozeimport.ExportWorkflow `json:"workflows"`
}

// mappings map the ids of a canvas to Pergola's.
type mappings struct {
	Models         map[string]string      `json:"models"`
	DefaultModelID string                 `json:"default_model_id"`
	Plugins        map[string]httpx.ID    `json:"plugins"`
	Tables         map[string]httpx.ID    `json:"tables"`
	Workflows      map[string]workflowRef `json:"workflows"`
	// Knowledge maps Coze dataset ids to Pergola knowledge base ids.
	Knowledge map[string]httpx.ID `json:"knowledge"`
}

type workflowRef struct {
	ID      httpx.ID `json:"id"`
	Version int64    `json:"version"`
}

// response is the answer: the new workflow and the conversion report.
type response struct {
	Workflow *workflows.WorkflowDTO `json:"workflow,omitempty"`
	Report   cozeimport.Report      `json:"report"`
	Problems []workflows.ProblemDTO `json:"problems,omitempty"`
	// AppVariables are the app variables the workflow uses (run it with
	// app_id); AppVariablesAdded those declared on the app by this import.
	AppVariables      []string `json:"app_variables,omitempty"`
	AppVariablesAdded []string `json:"app_variables_added,omitempty"`
}

// Import answers POST /api/workflows/import: 201 with the draft workflow
// and the report. A canvas with unsupported nodes answers 400 naming each
// and creates nothing, unless allow_partial; a converted definition that
// does not validate answers 400 with its problems, unless allow_partial,
// which keeps it as a draft and lists them; all carry the report.
func (h Handler) Import(ctx context.Context, c *app.RequestContext) error {
	req, err := bindRequest(c)
	if err != nil {
		return err
	}
	all, err := req.export()
	if err != nil {
		return err
	}
	if all != nil {
		return h.importAll(ctx, c, req, all)
	}
	opts := req.options()
	if err := cozeimport.CheckReferences(req.Canvas, opts.Workflows, req.AllowPartial); err != nil {
		return err
	}
	res, err := cozeimport.Convert(req.Canvas, opts)
	if err != nil {
		return err
	}
	if len(res.Report.Unsupported) > 0 && !req.AllowPartial {
		fail(c, "canvas: nodes that cannot be converted (pass allow_partial to import the rest): "+
			res.Report.UnsupportedText(), response{Report: res.Report})
		return nil
	}
	def, err := res.Definition.Marshal()
	if err != nil {
		return err
	}
	out := response{Report: res.Report, AppVariables: res.AppVariables}
	decl := appapp.Declarations{Names: res.AppVariables, Types: res.AppVariableTypes}
	if req.AppID != 0 {
		if err := h.Apps.CheckDeclare(ctx, httpx.Caller(c), int64(req.WorkspaceID), int64(req.AppID), decl); err != nil {
			return err
		}
	}
	if req.Name == "" {
		req.Name = defaultName
	}
	w, err := h.Svc.Create(ctx, httpx.Caller(c), workflowapp.CreateInput{WorkspaceID: int64(req.WorkspaceID),
		Name: req.Name, Description: req.Description, Definition: def, KeepInvalid: req.AllowPartial})
	var verr *wf.ValidationError
	if errors.As(err, &verr) {
		fail(c, "the converted workflow is invalid: "+err.Error(), response{Report: res.Report, Problems: problems(err)})
		return nil
	}
	if err != nil {
		return err
	}
	if req.AppID != 0 && len(decl.Names) > 0 {
		if out.AppVariablesAdded, err = h.Apps.Declare(ctx, httpx.Caller(c), int64(req.WorkspaceID), int64(req.AppID), decl); err != nil {
			return err
		}
	}
	dto := workflows.NewWorkflowDTO(w)
	out.Workflow = &dto
	if req.AllowPartial {
		if out.Problems, err = h.draftProblems(ctx, c, w.ID); err != nil {
			return err
		}
	}
	c.JSON(http.StatusCreated, httpx.Envelope{Data: out})
	return nil
}

func (r *request) options() cozeimport.Options {
	o := cozeimport.Options{Models: r.Mappings.Models, DefaultModelID: r.Mappings.DefaultModelID,
		Plugins: map[string]int64{}, Tables: map[string]int64{}, Workflows: map[string]cozeimport.WorkflowRef{},
		Knowledge: map[string]int64{}, AllowPartial: r.AllowPartial, InApp: r.AppID != 0,
		RequireWorkflowMappings: true, RequireKnowledgeMappings: true}
	for k, v := range r.Mappings.Knowledge {
		o.Knowledge[k] = int64(v)
	}
	for k, v := range r.Mappings.Plugins {
		o.Plugins[k] = int64(v)
	}
	for k, v := range r.Mappings.Tables {
		o.Tables[k] = int64(v)
	}
	for k, v := range r.Mappings.Workflows {
		o.Workflows[k] = cozeimport.WorkflowRef{ID: int64(v.ID), Version: v.Version}
	}
	return o
}

// fail answers 400 with the report, so the caller sees what was converted.
func fail(c *app.RequestContext, msg string, data any) {
	c.JSON(http.StatusBadRequest, httpx.Envelope{Code: httpx.CodeInvalid, Msg: msg, Data: data,
		Detail: &httpx.Detail{LogID: httpx.LogID(c)}})
}

// draftProblems lists the problems of a draft imported with allow_partial
// that does not validate: it is kept, as Coze keeps such drafts, and runs
// and publishing refuse it until they are fixed.
func (h Handler) draftProblems(ctx context.Context, c *app.RequestContext, id int64) ([]workflows.ProblemDTO, error) {
	ps, err := h.Svc.DraftProblems(ctx, httpx.Caller(c), id)
	return workflows.NewProblems(ps), err
}

func problems(err error) []workflows.ProblemDTO { return workflows.NewProblems(wf.Problems(err)) }
