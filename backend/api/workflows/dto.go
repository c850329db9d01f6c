// Package workflows holds the handlers of workflows: the console's
// resource routes (/api/workflows, /api/workflow-nodes) and Coze's run,
// stream, run history and list routes.
package workflows

import (
	"encoding/json"
	"strings"

	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/workflow"
	wf "github.com/pergola-ai/pergola/workflow"
)

// WorkflowDTO is a workflow with its draft as the console shows it.
type WorkflowDTO struct {
	ID               httpx.ID        `json:"id"`
	WorkspaceID      httpx.ID        `json:"workspace_id"`
	CreatorID        httpx.ID        `json:"creator_id"`
	Name             string          `json:"name"`
	Description      string          `json:"description"`
	Definition       json.RawMessage `json:"definition,omitempty"`
	DraftRevision    int64           `json:"draft_revision"`
	PublishedVersion int64           `json:"published_version"`
	PublishedAt      int64           `json:"published_at"`
	CreatedAt        int64           `json:"created_at"`
	UpdatedAt        int64           `json:"updated_at"`
	// Problems are those of a draft stored with keep_invalid (or imported
	// with allow_partial) that does not validate; it cannot run or be
	// published until they are fixed.
	Problems []ProblemDTO `json:"problems,omitempty"`
}

// NewWorkflowDTO renders a workflow and its draft as the workflow routes answer it.
func NewWorkflowDTO(w *workflow.Workflow) WorkflowDTO {
	return WorkflowDTO{ID: httpx.ID(w.ID), WorkspaceID: httpx.ID(w.WorkspaceID), CreatorID: httpx.ID(w.CreatorID),
		Name: w.Name, Description: w.Description, Definition: optionalJSON(w.Definition), DraftRevision: w.DraftRevision,
		PublishedVersion: w.PublishedVersion, PublishedAt: httpx.UnixPtr(w.PublishedAt),
		CreatedAt: httpx.Unix(w.CreatedAt), UpdatedAt: httpx.Unix(w.UpdatedAt)}
}

// VersionDTO is a published version; lists leave out the definition.
type VersionDTO struct {
	WorkflowID  httpx.ID        `json:"workflow_id"`
	Version     int64           `json:"version"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Definition  json.RawMessage `json:"definition,omitempty"`
	PublisherID httpx.ID        `json:"publisher_id"`
	CreatedAt   int64           `json:"created_at"`
}

func newVersionDTO(v *workflow.Version) VersionDTO {
	return VersionDTO{WorkflowID: httpx.ID(v.WorkflowID), Version: v.Number, Name: v.Name, Description: v.Description,
		Definition: optionalJSON(v.Definition), PublisherID: httpx.ID(v.PublisherID), CreatedAt: httpx.Unix(v.CreatedAt)}
}

// ProblemDTO is one problem of a definition.
type ProblemDTO struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// NewProblems renders the problems of a definition.
func NewProblems(ps []*errs.FieldError) []ProblemDTO {
	out := make([]ProblemDTO, len(ps))
	for i, p := range ps {
		out[i] = ProblemDTO{Field: p.Field, Message: p.Reason}
	}
	return out
}

// NodeDTO is the record of one node execution.
type NodeDTO struct {
	NodeID       string          `json:"node_id"`
	NodeType     string          `json:"node_type"`
	NodeTitle    string          `json:"node_title"`
	Parent       string          `json:"parent"`
	Index        *int            `json:"index"`
	Status       string          `json:"status"`
	Handled      bool            `json:"handled"`
	Inputs       json.RawMessage `json:"inputs"`
	Outputs      json.RawMessage `json:"outputs"`
	Error        string          `json:"error"`
	Logs         string          `json:"logs,omitempty"`
	StartedAt    int64           `json:"started_at_ms"`
	DurationMS   float64         `json:"duration_ms"`
	InputTokens  int64           `json:"input_tokens"`
	OutputTokens int64           `json:"output_tokens"`
	Attempts     int             `json:"attempts"`
}

func newNodeDTO(r *workflow.NodeRun) NodeDTO {
	d := NodeDTO{NodeID: r.NodeID, NodeType: r.Type, NodeTitle: r.Title, Parent: r.Parent, Status: r.Status,
		Handled: r.Handled, Inputs: rawJSON([]byte(r.Input)), Outputs: rawJSON([]byte(r.Output)), Error: r.Error,
		Logs: r.Logs, StartedAt: r.StartedAt.UnixMilli(), DurationMS: float64(r.Duration.Microseconds()) / 1000,
		InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, Attempts: r.Attempts}
	if r.Index >= 0 {
		i := r.Index
		d.Index = &i
	}
	return d
}

// newNodeDTOFromRecord converts an engine record, for test runs.
func newNodeDTOFromRecord(r *wf.NodeRecord) NodeDTO {
	in, _ := json.Marshal(r.Inputs)
	out, _ := json.Marshal(r.Outputs)
	return newNodeDTO(&workflow.NodeRun{NodeID: r.NodeID, Type: r.Type, Title: r.Title, Parent: r.Parent, Index: r.Index,
		Status: string(r.Status), Handled: r.Handled, Input: string(in), Output: string(out), Error: r.Error, Logs: r.Logs,
		StartedAt: r.StartedAt, Duration: r.Duration, InputTokens: r.Usage.InputTokens, OutputTokens: r.Usage.OutputTokens,
		Attempts: r.Attempts})
}

// UsageDTO counts tokens as Coze does.
type UsageDTO struct {
	TokenCount  int64 `json:"token_count"`
	OutputCount int64 `json:"output_count"`
	InputCount  int64 `json:"input_count"`
}

func newUsage(in, out int64) UsageDTO {
	return UsageDTO{TokenCount: in + out, OutputCount: out, InputCount: in}
}

// rawJSON passes stored JSON through; empty or null is JSON null.
func rawJSON(b []byte) json.RawMessage {
	if len(b) == 0 || string(b) == "null" {
		return json.RawMessage("null")
	}
	return json.RawMessage(b)
}

// optionalJSON passes stored JSON through; nil (left out) when empty.
func optionalJSON(b []byte) json.RawMessage {
	if len(b) == 0 {
		return nil
	}
	return json.RawMessage(b)
}

// definitionBytes reads a definition sent as a JSON object, or as text
// holding JSON or YAML; nil when absent.
func definitionBytes(raw json.RawMessage) ([]byte, error) {
	s := strings.TrimSpace(string(raw))
	switch {
	case s == "" || s == "null":
		return nil, nil
	case s[0] == '{':
		return []byte(s), nil
	case s[0] == '"':
		var text string
		if err := json.Unmarshal([]byte(s), &text); err != nil {
			return nil, errs.Invalid("definition", "is not a JSON string: %v", err)
		}
		return []byte(text), nil
	}
	return nil, errs.Invalid("definition", "must be a JSON object, or a string holding JSON or YAML")
}
