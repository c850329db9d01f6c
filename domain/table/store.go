package table

import (
	"context"

	"github.com/pergola-ai/pergola/domain/identity"
)

// Store keeps table definitions. GetTable returns errs.ErrNotFound for an
// unknown id; the other methods act inside the given workspace and answer
// errs.ErrNotFound for a table of another one.
type Store interface {
	// CreateTable stores t, assigning its id, revision 1 and timestamps.
	// A name taken in the workspace (ignoring case) is errs.ErrConflict.
	CreateTable(ctx context.Context, t *Table) error
	GetTable(ctx context.Context, id int64) (*Table, error)
	// ListTables returns one page of the tables of a workspace by name,
	// or of every workspace when workspaceID is 0, and the total.
	ListTables(ctx context.Context, workspaceID int64, p identity.Page) ([]Table, int64, error)
	// UpdateTable runs fn on the table inside a transaction and saves it
	// with Revision increased; fn's error aborts with nothing written.
	UpdateTable(ctx context.Context, workspaceID, id int64, fn func(*Table) error) (*Table, error)
	DeleteTable(ctx context.Context, workspaceID, id int64) error
}
