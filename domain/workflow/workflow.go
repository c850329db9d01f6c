// Package workflow holds workflows as Pergola stores them: a draft
// definition a builder edits, the immutable versions it publishes, and the
// runs with the record of every node. The definition is kept as the JSON
// the engine (package workflow at the root) reads; this package knows
// nothing of its shape.
package workflow

import (
	"context"
	"regexp"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// Workflow is a workflow with its draft and the number of its latest
// version.
type Workflow struct {
	ID          int64
	WorkspaceID int64
	CreatorID   int64
	Name        string
	Description string
	// Definition is the draft, as JSON.
	Definition []byte
	// DraftRevision grows with every save of the draft; with the id it
	// keys the compiled draft, so an edit is never run stale.
	DraftRevision int64
	// PublishedVersion is the latest version; 0 while never published.
	PublishedVersion int64
	PublishedAt      *time.Time
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// IsPublished reports whether the workflow has a version the API runs.
func (w *Workflow) IsPublished() bool { return w.PublishedVersion > 0 }

// Version is an immutable published definition.
type Version struct {
	WorkflowID  int64
	Number      int64
	Name        string
	Description string
	Definition  []byte
	PublisherID int64
	CreatedAt   time.Time
}

// Limits of a workflow's fields.
const (
	MaxDescriptionLen = 2000
	MaxDefinitionSize = 1 << 20 // bytes of JSON
)

// namePattern makes names usable as tool names when bots call workflows.
var namePattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)

// ValidateMeta checks a name and description, naming the wrong field.
func ValidateMeta(name, description string) error {
	if !namePattern.MatchString(name) {
		return errs.Invalid("name", "must start with a letter and hold only letters, digits and _ (at most 64), as bots call workflows by name; got %q", name)
	}
	if utf8.RuneCountInString(description) > MaxDescriptionLen {
		return errs.Invalid("description", "must be at most %d characters", MaxDescriptionLen)
	}
	return nil
}

// ListFilter narrows a list of workflows.
type ListFilter struct {
	PublishedOnly bool
}

// Store keeps workflows and their versions. GetWorkflow and GetVersion
// return errs.ErrNotFound when unknown; the other methods act only inside
// the given workspace and answer ErrNotFound for a workflow of another.
type Store interface {
	CreateWorkflow(ctx context.Context, w *Workflow) error
	GetWorkflow(ctx context.Context, id int64) (*Workflow, error)
	ListWorkflows(ctx context.Context, workspaceID int64, f ListFilter, p identity.Page) ([]Workflow, int64, error)
	// UpdateWorkflow runs fn on the workflow inside a transaction and
	// saves its name, description and definition with DraftRevision
	// increased; fn's error aborts with nothing written.
	UpdateWorkflow(ctx context.Context, workspaceID, id int64, fn func(*Workflow) error) (*Workflow, error)
	// DeleteWorkflow removes the workflow, its versions and its runs.
	DeleteWorkflow(ctx context.Context, workspaceID, id int64) error
	// PublishWorkflow stores v as the next version (v.Number is assigned)
	// and makes it the published one, atomically.
	PublishWorkflow(ctx context.Context, workspaceID int64, v *Version) error
	GetVersion(ctx context.Context, workflowID, number int64) (*Version, error)
	// ListVersions returns the versions of a workflow, newest first,
	// without their definitions.
	ListVersions(ctx context.Context, workflowID int64) ([]Version, error)
}

// NotFound is the error of an unknown or unreachable workflow.
func NotFound(id int64) error { return errs.NotFound("workflow", strconv.FormatInt(id, 10)) }
