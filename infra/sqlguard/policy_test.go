package sqlguard

import "github.com/pergola-ai/pergola/domain/table"

// notes is the policy of a per_user table "notes" as the tests use it.
func notes(d Dialect) *Policy {
	return &Policy{
		Table: "notes", Physical: "tbl_7_online",
		Columns: []Column{
			{Name: "id", Physical: "id", Type: table.TypeInteger},
			{Name: "title", Physical: "col_1", Type: table.TypeText, Writable: true, Required: true},
			{Name: "done", Physical: "col_2", Type: table.TypeBoolean, Writable: true},
			{Name: "due", Physical: "col_3", Type: table.TypeDatetime, Writable: true},
			{Name: "created_at", Physical: "created_at", Type: table.TypeDatetime},
			{Name: "updated_at", Physical: "updated_at", Type: table.TypeDatetime},
		},
		OwnerColumn: "owner_uid", Owner: "alice", Confine: true,
		CreatedColumn: "created_at", UpdatedColumn: "updated_at", Now: "2026-01-02 03:04:05",
		MaxRows: 100, Dialect: d,
	}
}
