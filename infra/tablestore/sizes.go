package tablestore

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/pergola-ai/pergola/domain/table"
	"github.com/pergola-ai/pergola/infra/sqlguard"
)

// Sizes returns the rows of each table, draft and online, and on MySQL
// the bytes the server reports for them (0 on SQLite). A table without
// physical tables counts as empty.
func (s *Store) Sizes(ctx context.Context, ids []int64) (map[int64]table.Size, error) {
	have, err := s.TableIDs(ctx)
	if err != nil {
		return nil, err
	}
	exists := map[int64]bool{}
	for _, id := range have {
		exists[id] = true
	}
	out := make(map[int64]table.Size, len(ids))
	for _, id := range ids {
		if !exists[id] {
			out[id] = table.Size{}
			continue
		}
		var sz table.Size
		for _, d := range datas {
			n := &sz.OnlineRows
			if d == table.DataDraft {
				n = &sz.DraftRows
			}
			if err := s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+quote(physicalTable(id, d))).Scan(n); err != nil {
				return nil, fmt.Errorf("tablestore: size of table %d: %w", id, err)
			}
		}
		out[id] = sz
	}
	return out, s.addBytes(ctx, out)
}

func (s *Store) addBytes(ctx context.Context, sizes map[int64]table.Size) error {
	if s.dialect != sqlguard.MySQL || len(sizes) == 0 {
		return nil
	}
	rows, err := s.db.QueryContext(ctx, "SELECT TABLE_NAME, COALESCE(DATA_LENGTH, 0) + COALESCE(INDEX_LENGTH, 0) "+
		"FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME LIKE 'tbl!_%' ESCAPE '!'", s.schema)
	if err != nil {
		return fmt.Errorf("tablestore: table sizes: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var n int64
		if err := rows.Scan(&name, &n); err != nil {
			return fmt.Errorf("tablestore: table sizes: %w", err)
		}
		if id, ok := tableID(name); ok {
			if sz, ok := sizes[id]; ok {
				sz.Bytes += n
				sizes[id] = sz
			}
		}
	}
	return rows.Err()
}

// TableIDs returns the ids of the tables that have physical tables.
func (s *Store) TableIDs(ctx context.Context) ([]int64, error) {
	query, args := "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'tbl!_%' ESCAPE '!'", []any(nil)
	if s.dialect == sqlguard.MySQL {
		query, args = "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME LIKE 'tbl!_%' ESCAPE '!'", []any{s.schema}
	}
	names, err := s.strings(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	seen := map[int64]bool{}
	var out []int64
	for _, n := range names {
		if id, ok := tableID(n); ok && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, nil
}

// tableID reads the table id out of a physical name.
func tableID(name string) (int64, bool) {
	rest, ok := strings.CutPrefix(name, tablePrefix)
	if !ok {
		return 0, false
	}
	i := strings.IndexByte(rest, '_')
	if i < 0 {
		return 0, false
	}
	id, err := strconv.ParseInt(rest[:i], 10, 64)
	return id, err == nil
}
