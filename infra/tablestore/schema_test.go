package tablestore

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/table"
)

func TestSchemaChanges(t *testing.T) { forEachStore(t, testSchemaChanges) }

// testSchemaChanges adds, renames and drops fields the way the table
// service does (table.SetFields, then AddFields and DropFields) and checks
// that the other columns keep their values.
func testSchemaChanges(t *testing.T, s *Store) {
	ctx := context.Background()
	tb := create(t, s, notesTable(21))
	run(t, s, tb, table.DataOnline, "alice", "INSERT INTO notes (title, done) VALUES ('keep me', TRUE)")

	next := tb.Clone()
	added, dropped, err := next.SetFields([]table.FieldSpec{
		{ID: 1, Name: "heading"}, // renamed
		{ID: 3, Name: "due"},     // kept; done (2) is dropped
		{Name: "priority", Type: table.TypeInteger},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddFields(ctx, next, added); err != nil {
		t.Fatalf("AddFields: %v", err)
	}
	if err := s.AddFields(ctx, next, added); err != nil {
		t.Fatalf("AddFields again (a retry) = %v, want no error", err)
	}
	if err := s.DropFields(ctx, next, dropped); err != nil {
		t.Fatalf("DropFields: %v", err)
	}
	if err := s.DropFields(ctx, next, dropped); err != nil {
		t.Fatalf("DropFields again = %v, want no error", err)
	}
	run(t, s, next, table.DataOnline, "alice", "UPDATE notes SET priority = 2")
	res := run(t, s, next, table.DataOnline, "alice", "SELECT * FROM notes")
	if diff := cmp.Diff([]string{"id", "heading", "due", "priority", "created_at", "updated_at"}, res.Columns); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	if got := []any{res.Rows[0][1], res.Rows[0][3]}; !cmp.Equal(got, []any{"keep me", int64(2)}) {
		t.Errorf("row after the changes = %v", res.Rows[0])
	}
	_, err = s.Run(ctx, next, table.Scope{Data: table.DataOnline, UserID: "alice"}, "SELECT done FROM notes")
	wantErr(t, err, errs.ErrInvalid, `unknown column "done"`)

	if err := s.DropTable(ctx, next.ID); err != nil {
		t.Fatalf("DropTable: %v", err)
	}
	ids, err := s.TableIDs(ctx)
	if err != nil || len(ids) != 0 {
		t.Errorf("TableIDs after the drop = %v, %v", ids, err)
	}
}
