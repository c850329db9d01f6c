package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"gorm.io/gorm"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/table"
)

// TableStore keeps table definitions in data_tables. Their rows are kept
// elsewhere (infra/tablestore).
type TableStore struct{ db *DB }

var _ table.Store = (*TableStore)(nil)

// Tables returns the store of table definitions.
func (db *DB) Tables() *TableStore { return &TableStore{db: db} }

type tableRow struct {
	ID          int64 `gorm:"primaryKey;autoIncrement:false"`
	WorkspaceID int64
	CreatorID   int64
	Name        string
	Description string
	Mode        string
	Fields      string // fieldDoc JSON array
	FieldSeq    int
	Revision    int64
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

func (tableRow) TableName() string { return "data_tables" }

// fieldDoc is a field as stored; its JSON names are the storage format.
type fieldDoc struct {
	ID          int    `json:"id"`
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

func tableToRow(t *table.Table) (*tableRow, error) {
	docs := make([]fieldDoc, len(t.Fields))
	for i, f := range t.Fields {
		docs[i] = fieldDoc{ID: f.ID, Name: f.Name, Type: string(f.Type), Description: f.Description, Required: f.Required}
	}
	fields, err := json.Marshal(docs)
	if err != nil {
		return nil, err
	}
	return &tableRow{ID: t.ID, WorkspaceID: t.WorkspaceID, CreatorID: t.CreatorID, Name: t.Name, Description: t.Description,
		Mode: string(t.Mode), Fields: string(fields), FieldSeq: t.FieldSeq, Revision: t.Revision,
		CreatedAt: dbTime(t.CreatedAt), UpdatedAt: dbTime(t.UpdatedAt)}, nil
}

func tableFromRow(r *tableRow) (*table.Table, error) {
	var docs []fieldDoc
	if err := json.Unmarshal([]byte(r.Fields), &docs); err != nil {
		return nil, fmt.Errorf("sqlstore: fields of table %d: %w", r.ID, err)
	}
	t := &table.Table{ID: r.ID, WorkspaceID: r.WorkspaceID, CreatorID: r.CreatorID, Name: r.Name, Description: r.Description,
		Mode: table.Mode(r.Mode), FieldSeq: r.FieldSeq, Revision: r.Revision, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
		Fields: make([]table.Field, len(docs))}
	for i, d := range docs {
		t.Fields[i] = table.Field{ID: d.ID, Name: d.Name, Type: table.FieldType(d.Type), Description: d.Description, Required: d.Required}
	}
	return t, nil
}

func tableNotFound(id int64) error { return errs.NotFound("table", strconv.FormatInt(id, 10)) }

// CreateTable stores t, assigning its id when zero, revision 1 and its
// timestamps. It returns errs.ErrConflict when the workspace has a table
// of that name (ignoring case) and errs.ErrNotFound for an unknown
// workspace.
func (s *TableStore) CreateTable(ctx context.Context, t *table.Table) error {
	if t.ID == 0 {
		t.ID = s.db.ids.Next()
	}
	t.Revision = 1
	t.CreatedAt = s.db.timestamp()
	t.UpdatedAt = t.CreatedAt
	row, err := tableToRow(t)
	if err != nil {
		return fmt.Errorf("sqlstore: create table: %w", err)
	}
	err = s.db.gorm.WithContext(ctx).Create(row).Error
	switch {
	case err == nil:
		return nil
	case isMissingParent(err):
		return workspaceNotFound(t.WorkspaceID)
	case isDuplicate(err):
		return errs.Conflict("workspace %d already has a table named %s", t.WorkspaceID, t.Name)
	}
	return fmt.Errorf("sqlstore: create table: %w", err)
}

// GetTable returns the table with id, or errs.ErrNotFound.
func (s *TableStore) GetTable(ctx context.Context, id int64) (*table.Table, error) {
	var row tableRow
	if err := s.db.gorm.WithContext(ctx).Where("id = ?", id).Take(&row).Error; err != nil {
		if isNoRow(err) {
			return nil, tableNotFound(id)
		}
		return nil, fmt.Errorf("sqlstore: get table: %w", err)
	}
	return tableFromRow(&row)
}

// ListTables returns one page of the tables of a workspace by name, or of
// every workspace (by workspace, then name) when workspaceID is 0, and
// how many there are.
func (s *TableStore) ListTables(ctx context.Context, workspaceID int64, p identity.Page) ([]table.Table, int64, error) {
	query := func() *gorm.DB {
		q := s.db.gorm.WithContext(ctx).Model(&tableRow{})
		if workspaceID != 0 {
			q = q.Where("workspace_id = ?", workspaceID)
		}
		return q
	}
	var total int64
	if err := query().Count(&total).Error; err != nil {
		return nil, 0, fmt.Errorf("sqlstore: count tables: %w", err)
	}
	var rows []tableRow
	if err := page(query().Order("workspace_id, name, id"), p).Find(&rows).Error; err != nil {
		return nil, 0, fmt.Errorf("sqlstore: list tables: %w", err)
	}
	out := make([]table.Table, len(rows))
	for i := range rows {
		t, err := tableFromRow(&rows[i])
		if err != nil {
			return nil, 0, err
		}
		out[i] = *t
	}
	return out, total, nil
}

// UpdateTable runs fn on the table inside a transaction, with its row
// locked, and saves what fn leaves with Revision increased. Id, workspace,
// creator and creation time are kept whatever fn does. It returns
// errs.ErrNotFound when the table is not in the workspace,
// errs.ErrConflict for a name taken by another table, and fn's error
// unchanged, writing nothing, when fn fails.
func (s *TableStore) UpdateTable(ctx context.Context, workspaceID, id int64, fn func(*table.Table) error) (*table.Table, error) {
	var changed *table.Table
	row, err := updateLocked(ctx, s.db, "update table", func() error { return tableNotFound(id) }, func(r *tableRow) error {
		t, err := tableFromRow(r)
		if err != nil {
			return err
		}
		if err := fn(t); err != nil {
			return err
		}
		t.ID, t.WorkspaceID, t.CreatorID, t.CreatedAt = r.ID, r.WorkspaceID, r.CreatorID, r.CreatedAt.UTC()
		t.Revision, t.UpdatedAt = r.Revision+1, s.db.timestamp()
		next, err := tableToRow(t)
		if err != nil {
			return err
		}
		*r, changed = *next, t
		return nil
	}, "id = ? AND workspace_id = ?", id, workspaceID)
	if isDuplicate(err) {
		return nil, errs.Conflict("workspace %d already has a table named %s", workspaceID, changed.Name)
	}
	if err != nil {
		return nil, err
	}
	// What was stored: within the millisecond of the last change gorm
	// writes its own clock reading, not the one set above.
	changed.UpdatedAt = row.UpdatedAt.UTC()
	return changed, nil
}

// DeleteTable removes a table's definition; errs.ErrNotFound when it is
// not in the workspace.
func (s *TableStore) DeleteTable(ctx context.Context, workspaceID, id int64) error {
	res := s.db.gorm.WithContext(ctx).Where("id = ? AND workspace_id = ?", id, workspaceID).Delete(&tableRow{})
	if res.Error != nil {
		return fmt.Errorf("sqlstore: delete table: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return tableNotFound(id)
	}
	return nil
}
