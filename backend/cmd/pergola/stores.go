package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/pergola-ai/pergola/backend/config"
	"github.com/pergola-ai/pergola/infra/secret"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// secretBox returns the cipher of stored secrets. Without PERGOLA_SECRET_KEY
// (allowed only on the embedded default) the key is generated once into the
// data directory.
func secretBox(cfg config.Config, log *slog.Logger) (*secret.Box, error) {
	raw := cfg.SecretKey
	if raw == "" {
		path := filepath.Join(cfg.DataDir, "secret.key")
		b, err := os.ReadFile(path)
		switch {
		case err == nil:
			raw = strings.TrimSpace(string(b))
		case errors.Is(err, os.ErrNotExist):
			raw = secret.GenerateKey()
			if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
				return nil, fmt.Errorf("PERGOLA_DATA_DIR: %w", err)
			}
			if err := os.WriteFile(path, []byte(raw+"\n"), 0o600); err != nil {
				return nil, fmt.Errorf("PERGOLA_DATA_DIR: write %s: %w", path, err)
			}
			log.Info("generated a secret key for stored secrets", "path", path)
		default:
			return nil, fmt.Errorf("PERGOLA_DATA_DIR: read %s: %w", path, err)
		}
	}
	key, err := secret.ParseKey(raw)
	if err != nil {
		return nil, fmt.Errorf("PERGOLA_SECRET_KEY: %w", err)
	}
	if err := refuseWeakKey(key); err != nil {
		return nil, err
	}
	return secret.NewBox(key)
}

// openDB opens the platform database: MySQL when PERGOLA_DB_DSN is set,
// otherwise SQLite in the data directory. Errors name the setting to fix.
func openDB(ctx context.Context, cfg config.Config, box *secret.Box, log *slog.Logger) (*sqlstore.DB, error) {
	sc := sqlstore.Config{DSN: cfg.DBDSN, SQLitePath: filepath.Join(cfg.DataDir, "pergola.db"), Logger: log}
	if box != nil {
		sc.Cipher = box
	}
	db, err := sqlstore.Open(ctx, sc)
	if err != nil {
		if cfg.DBDSN != "" {
			return nil, fmt.Errorf("PERGOLA_DB_DSN: %w", err)
		}
		return nil, fmt.Errorf("PERGOLA_DATA_DIR: %w", err)
	}
	if err := countStatements(ctx, db); err != nil {
		_ = db.Close()
		return nil, err
	}
	return db, nil
}
