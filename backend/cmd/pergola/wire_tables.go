package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	botapp "github.com/pergola-ai/pergola/application/bot"
	chatapp "github.com/pergola-ai/pergola/application/chat"
	identityapp "github.com/pergola-ai/pergola/application/identity"
	tableapp "github.com/pergola-ai/pergola/application/table"
	"github.com/pergola-ai/pergola/backend/api/ops"
	"github.com/pergola-ai/pergola/backend/config"
	"github.com/pergola-ai/pergola/infra/sqlstore"
	"github.com/pergola-ai/pergola/infra/tablestore"
)

// tableParts is what the table feature adds to the process.
type tableParts struct {
	svc   *tableapp.Service
	bind  []botapp.Option      // lets bots bind tables
	tools []chatapp.ToolSource // one SQL tool per bound table
	close func()
	check []ops.Check // /readyz: the rows' database, when there is one
}

// noTablesDSN is why tables are unavailable on MySQL without a database
// for their rows.
const noTablesDSN = "tables are not available: set PERGOLA_TABLES_DSN to a MySQL database for their rows " +
	"whose user may reach that database only (see scripts/tables-mysql.sql)"

// newTables wires the table use cases and opens the rows' own database:
// tables.db in the data directory on SQLite, PERGOLA_TABLES_DSN on MySQL.
// Without PERGOLA_TABLES_DSN on MySQL tables are unavailable (503) rather
// than kept beside the platform's data.
func newTables(ctx context.Context, db *sqlstore.DB, ident *identityapp.Service, cfg config.Config, log *slog.Logger) (*tableParts, error) {
	deps := tableapp.Deps{Tables: db.Tables(), Access: ident, Log: log, Unavailable: noTablesDSN}
	closeRows := func() {}
	rows, err := openRows(ctx, cfg)
	switch {
	case err != nil:
		return nil, err
	case rows == nil:
		log.Warn(noTablesDSN)
	default:
		deps.Rows, closeRows = rows, func() { _ = rows.Close() }
	}
	var checks []ops.Check
	if rows != nil {
		checks = append(checks, ops.Check{Name: "tables", Ping: rows.Ping})
	}
	svc := tableapp.New(deps)
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if n, err := svc.Sweep(sctx); err != nil {
		log.Warn("drop the rows of deleted tables", "err", err)
	} else if n > 0 {
		log.Info("dropped the rows of deleted tables", "tables", n)
	}
	return &tableParts{svc: svc, bind: []botapp.Option{botapp.WithTables(svc)}, tools: []chatapp.ToolSource{svc}, close: closeRows,
		check: checks}, nil
}

// openRows opens the rows' database, or returns nil when MySQL has none
// configured. On MySQL it refuses a user that may reach more than its own
// database, or the platform's database itself.
func openRows(ctx context.Context, cfg config.Config) (*tablestore.Store, error) {
	if cfg.DBDSN == "" {
		rows, err := tablestore.Open(ctx, tablestore.Config{SQLitePath: filepath.Join(cfg.DataDir, "tables.db")})
		if err != nil {
			return nil, fmt.Errorf("PERGOLA_DATA_DIR: %w", err)
		}
		return rows, nil
	}
	if cfg.TablesDSN == "" {
		return nil, nil
	}
	platform, err := gomysql.ParseDSN(cfg.DBDSN)
	if err != nil {
		return nil, fmt.Errorf("PERGOLA_DB_DSN: %w", err)
	}
	rows, err := tablestore.Open(ctx, tablestore.Config{DSN: cfg.TablesDSN})
	if err != nil {
		return nil, fmt.Errorf("PERGOLA_TABLES_DSN: %w", err)
	}
	if err := rows.CheckIsolation(ctx, platform.DBName); err != nil {
		_ = rows.Close()
		return nil, fmt.Errorf("PERGOLA_TABLES_DSN: %w", err)
	}
	return rows, nil
}
