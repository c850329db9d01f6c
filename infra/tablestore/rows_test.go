package tablestore

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/table"
)

func TestRows(t *testing.T) { forEachStore(t, testRows) }

func testRows(t *testing.T, s *Store) {
	ctx := context.Background()
	tb := create(t, s, notesTable(31))
	d := table.DataDraft
	var rows []table.Row
	for i, title := range []string{"apple", "banana", "cherry", "apricot", "50% off_sale"} {
		rows = append(rows, table.Row{UserID: []string{"u1", "u2"}[i%2], Values: map[string]any{"title": title, "done": i%2 == 0}})
	}
	ids, err := s.InsertRows(ctx, tb, d, rows)
	if err != nil || len(ids) != 5 {
		t.Fatalf("InsertRows = %v, %v", ids, err)
	}

	list := func(q table.RowQuery) ([]string, int64) {
		t.Helper()
		q.Data = d
		got, total, err := s.ListRows(ctx, tb, q)
		if err != nil {
			t.Fatalf("ListRows: %v", err)
		}
		var titles []string
		for _, r := range got {
			titles = append(titles, r.Values["title"].(string))
		}
		return titles, total
	}
	titles, total := list(table.RowQuery{Limit: 2, Offset: 2})
	if diff := cmp.Diff([]string{"cherry", "apricot"}, titles); diff != "" || total != 5 {
		t.Errorf("page 2 (-want +got):\n%s total %d", diff, total)
	}
	titles, total = list(table.RowQuery{Filters: []table.Filter{{Field: "title", Op: table.OpPrefix, Value: "ap"}}, Desc: true})
	if diff := cmp.Diff([]string{"apricot", "apple"}, titles); diff != "" || total != 2 {
		t.Errorf("prefix ap, newest first (-want +got):\n%s total %d", diff, total)
	}
	titles, _ = list(table.RowQuery{Filters: []table.Filter{{Field: "title", Op: table.OpContains, Value: "% off_"}}})
	if diff := cmp.Diff([]string{"50% off_sale"}, titles); diff != "" {
		t.Errorf("contains with LIKE characters (-want +got):\n%s", diff)
	}
	titles, _ = list(table.RowQuery{Filters: []table.Filter{{Field: "user_id", Op: table.OpEq, Value: "u2"}, {Field: "done", Op: table.OpEq, Value: false}}})
	if diff := cmp.Diff([]string{"banana", "apricot"}, titles); diff != "" {
		t.Errorf("user u2, not done (-want +got):\n%s", diff)
	}
	titles, _ = list(table.RowQuery{AfterID: ids[3]})
	if diff := cmp.Diff([]string{"50% off_sale"}, titles); diff != "" {
		t.Errorf("after the 4th row (-want +got):\n%s", diff)
	}

	u3 := "u3"
	if err := s.UpdateRow(ctx, tb, d, ids[0], map[string]any{"title": "avocado", "due": "2026-01-01 00:00:00"}, &u3); err != nil {
		t.Fatalf("UpdateRow: %v", err)
	}
	got, _, err := s.ListRows(ctx, tb, table.RowQuery{Data: d, Filters: []table.Filter{{Field: "id", Op: table.OpEq, Value: ids[0]}}})
	if err != nil || len(got) != 1 || got[0].UserID != "u3" || got[0].Values["title"] != "avocado" ||
		got[0].Values["due"] != "2026-01-01 00:00:00" || got[0].Values["done"] != true || got[0].CreatedAt.IsZero() {
		t.Errorf("updated row = %+v, %v", got, err)
	}
	err = s.UpdateRow(ctx, tb, d, 999999, map[string]any{"title": "x"}, nil)
	wantErr(t, err, errs.ErrNotFound, "row 999999 not found")
	_, err = s.InsertRows(ctx, tb, d, []table.Row{{Values: map[string]any{"title": "ok"}}, {Values: map[string]any{"due": "soon"}}})
	wantErr(t, err, errs.ErrInvalid, "rows[1]")
	if _, total := list(table.RowQuery{}); total != 5 {
		t.Errorf("a failed insert left %d rows, want the 5 before it", total)
	}

	n, err := s.DeleteRows(ctx, tb, d, ids[:2])
	if err != nil || n != 2 {
		t.Errorf("DeleteRows = %d, %v", n, err)
	}
	sizes, err := s.Sizes(ctx, []int64{tb.ID, 424242})
	if err != nil {
		t.Fatalf("Sizes: %v", err)
	}
	if sz := sizes[tb.ID]; sz.DraftRows != 3 || sz.OnlineRows != 0 || (s.mariadb && sz.Bytes == 0) {
		t.Errorf("size = %+v", sz)
	}
	if sz, ok := sizes[424242]; !ok || sz != (table.Size{}) {
		t.Errorf("size of a table without rows storage = %+v, %v", sz, ok)
	}
}
