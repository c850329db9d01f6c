package tablestore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/pergola-ai/pergola/infra/sqlguard"
)

// CheckIsolation fails unless the MySQL user of the store has rights on
// its own database only: no global privilege beyond USAGE, and no rights
// on another database or on tables of one; and unless that database is
// not platform, the platform's own. SQLite needs no check: its pool opens
// the rows' file alone.
func (s *Store) CheckIsolation(ctx context.Context, platform string) error {
	if s.dialect != sqlguard.MySQL || s.schema == "" {
		return nil
	}
	if s.schema == platform {
		return fmt.Errorf("tablestore: the rows' database is the platform's own (%s); give the rows a database of their own", platform)
	}
	var problems []string
	global, err := s.strings(ctx, "SELECT DISTINCT PRIVILEGE_TYPE FROM information_schema.USER_PRIVILEGES WHERE PRIVILEGE_TYPE <> 'USAGE'")
	if err != nil {
		return err
	}
	if len(global) > 0 {
		problems = append(problems, "global privileges "+strings.Join(global, ", "))
	}
	for _, q := range []string{
		"SELECT DISTINCT TABLE_SCHEMA FROM information_schema.SCHEMA_PRIVILEGES WHERE TABLE_SCHEMA <> ?",
		"SELECT DISTINCT TABLE_SCHEMA FROM information_schema.TABLE_PRIVILEGES WHERE TABLE_SCHEMA <> ?",
		"SELECT DISTINCT TABLE_SCHEMA FROM information_schema.COLUMN_PRIVILEGES WHERE TABLE_SCHEMA <> ?",
	} {
		other, err := s.strings(ctx, q, s.schema)
		if err != nil {
			return err
		}
		if len(other) > 0 {
			problems = append(problems, "rights on "+strings.Join(other, ", "))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("tablestore: the user of the rows' database %s may reach more than it: %s; grant it rights on %s only (see scripts/tables-mysql.sql)",
			s.schema, strings.Join(problems, "; "), s.schema)
	}
	return nil
}

func (s *Store) strings(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("tablestore: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v sql.NullString
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("tablestore: %w", err)
		}
		out = append(out, v.String)
	}
	return out, rows.Err()
}
