package table

import (
	"context"
	"fmt"
	"strings"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/table"
)

// Input is a new table as a builder defines it.
type Input struct {
	Name        string
	Description string
	Mode        table.Mode
	Fields      []table.FieldSpec // IDs are ignored: every field is new
}

// Create makes a table in a workspace with empty draft and online rows;
// the caller becomes its creator. It needs the table scope and membership
// of the workspace (errs.ErrForbidden otherwise). A wrong definition fails
// with errs.ErrInvalid naming the field, a name taken in the workspace
// with errs.ErrConflict.
func (s *Service) Create(ctx context.Context, p identity.Principal, workspaceID int64, in Input) (*table.Table, error) {
	if err := s.enter(ctx, p, workspaceID); err != nil {
		return nil, err
	}
	t := &table.Table{WorkspaceID: workspaceID, CreatorID: p.UserID, Name: strings.TrimSpace(in.Name),
		Description: in.Description, Mode: in.Mode}
	if t.Mode == "" {
		t.Mode = table.ModePerUser
	}
	specs := make([]table.FieldSpec, len(in.Fields))
	for i, f := range in.Fields {
		specs[i] = f
		specs[i].ID = 0
	}
	if _, _, err := t.SetFields(specs); err != nil {
		return nil, err
	}
	if err := check(t); err != nil {
		return nil, err
	}
	if err := s.d.Tables.CreateTable(ctx, t); err != nil {
		return nil, fmt.Errorf("create table: %w", err)
	}
	if err := s.d.Rows.CreateTable(ctx, t); err != nil {
		if derr := s.d.Tables.DeleteTable(ctx, workspaceID, t.ID); derr != nil {
			s.d.Log.ErrorContext(ctx, "remove the definition of a table whose rows could not be created", "table", t.ID, "err", derr)
		}
		return nil, fmt.Errorf("create table: %w", err)
	}
	return t, nil
}

// check validates a definition and keeps its name off the tool names a
// bot has already.
func check(t *table.Table) error {
	if err := t.Validate(); err != nil {
		return err
	}
	if strings.EqualFold(t.Name, bot.KeywordMemoryTool) {
		return errs.Invalid("name", "%q is the name of a built-in tool; pick another", t.Name)
	}
	return nil
}
