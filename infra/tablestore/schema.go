package tablestore

import (
	"context"
	"fmt"
	"strings"

	"github.com/pergola-ai/pergola/domain/table"
	"github.com/pergola-ai/pergola/infra/sqlguard"
)

var datas = []table.Data{table.DataDraft, table.DataOnline}

// CreateTable creates the physical tables of t, draft and online, unless
// they exist.
func (s *Store) CreateTable(ctx context.Context, t *table.Table) error {
	for _, d := range datas {
		for _, stmt := range s.createStatements(t, physicalTable(t.ID, d)) {
			if _, err := s.db.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("tablestore: create table %d: %w", t.ID, err)
			}
		}
	}
	return nil
}

func (s *Store) createStatements(t *table.Table, name string) []string {
	cols := make([]string, 0, len(t.Fields))
	for _, f := range t.Fields {
		cols = append(cols, s.columnDef(f))
	}
	fields := ""
	if len(cols) > 0 {
		fields = ", " + strings.Join(cols, ", ")
	}
	if s.dialect == sqlguard.SQLite {
		return []string{
			"CREATE TABLE IF NOT EXISTS " + quote(name) + " (`id` INTEGER PRIMARY KEY AUTOINCREMENT, " +
				"`owner_uid` TEXT NOT NULL DEFAULT '', `created_at` TEXT NOT NULL, `updated_at` TEXT NOT NULL" + fields + ") STRICT",
			"CREATE INDEX IF NOT EXISTS " + quote("ix_"+name+"_owner") + " ON " + quote(name) + " (`owner_uid`, `id`)",
		}
	}
	return []string{"CREATE TABLE IF NOT EXISTS " + quote(name) + " (`id` BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, " +
		"`owner_uid` " + ownerType + " NOT NULL DEFAULT '', `created_at` DATETIME NOT NULL, `updated_at` DATETIME NOT NULL" +
		fields + ", KEY `ix_owner` (`owner_uid`, `id`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci"}
}

// columnDef is the definition of a field's column. Every column allows
// NULL: "required" is checked on the way in, so adding a required field
// to a table with rows needs no default. SQLite's STRICT tables and CHECK
// constraints refuse values of the wrong type, as MySQL's strict mode does.
func (s *Store) columnDef(f table.Field) string {
	name := quote(fieldColumn(f.ID))
	if s.dialect == sqlguard.SQLite {
		switch f.Type {
		case table.TypeInteger:
			return name + " INTEGER"
		case table.TypeNumber:
			return name + " REAL"
		case table.TypeBoolean:
			return name + " INTEGER CHECK (" + name + " IN (0, 1))"
		case table.TypeDatetime:
			return name + " TEXT CHECK (" + name + " IS NULL OR datetime(" + name + ") IS NOT NULL)"
		}
		return name + " TEXT COLLATE NOCASE"
	}
	switch f.Type {
	case table.TypeInteger:
		return name + " BIGINT NULL"
	case table.TypeNumber:
		return name + " DOUBLE NULL"
	case table.TypeBoolean:
		return name + " TINYINT(1) NULL"
	case table.TypeDatetime:
		return name + " DATETIME NULL"
	}
	return name + " TEXT NULL"
}

// AddFields adds the columns of fields to t's physical tables, skipping
// those that exist (a retry after a partial failure).
func (s *Store) AddFields(ctx context.Context, t *table.Table, fields []table.Field) error {
	for _, d := range datas {
		name := physicalTable(t.ID, d)
		have, err := s.columns(ctx, name)
		if err != nil {
			return err
		}
		for _, f := range fields {
			if have[fieldColumn(f.ID)] {
				continue
			}
			if _, err := s.db.ExecContext(ctx, "ALTER TABLE "+quote(name)+" ADD COLUMN "+s.columnDef(f)); err != nil {
				return fmt.Errorf("tablestore: add field %s to table %d: %w", f.Name, t.ID, err)
			}
		}
	}
	return nil
}

// DropFields drops the columns of fields from t's physical tables,
// skipping those already gone.
func (s *Store) DropFields(ctx context.Context, t *table.Table, fields []table.Field) error {
	for _, d := range datas {
		name := physicalTable(t.ID, d)
		have, err := s.columns(ctx, name)
		if err != nil {
			return err
		}
		for _, f := range fields {
			if !have[fieldColumn(f.ID)] {
				continue
			}
			if _, err := s.db.ExecContext(ctx, "ALTER TABLE "+quote(name)+" DROP COLUMN "+quote(fieldColumn(f.ID))); err != nil {
				return fmt.Errorf("tablestore: drop field %s of table %d: %w", f.Name, t.ID, err)
			}
		}
	}
	return nil
}

// DropTable drops both physical tables of the table id.
func (s *Store) DropTable(ctx context.Context, id int64) error {
	for _, d := range datas {
		if _, err := s.db.ExecContext(ctx, "DROP TABLE IF EXISTS "+quote(physicalTable(id, d))); err != nil {
			return fmt.Errorf("tablestore: drop table %d: %w", id, err)
		}
	}
	return nil
}

// columns returns the names of a physical table's columns.
func (s *Store) columns(ctx context.Context, name string) (map[string]bool, error) {
	query, args := "SELECT name FROM pragma_table_info(?)", []any{name}
	if s.dialect == sqlguard.MySQL {
		query, args = "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", []any{s.schema, name}
	}
	names, err := s.strings(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("tablestore: columns of %s: %w", name, err)
	}
	out := make(map[string]bool, len(names))
	for _, n := range names {
		out[n] = true
	}
	return out, nil
}
