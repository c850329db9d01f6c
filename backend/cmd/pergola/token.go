package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	identityapp "github.com/pergola-ai/pergola/application/identity"
	"github.com/pergola-ai/pergola/backend/config"
)

// mintToken is "pergola token --email E": it prints a new personal access
// token of an existing user, straight from the database, for an
// administrator who has no token or password left. It needs the server's
// database settings (PERGOLA_DATA_DIR or PERGOLA_DB_DSN).
func mintToken(ctx context.Context, args []string, env config.Lookup, stdout io.Writer) error {
	cfg, err := config.Load(env)
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("token", flag.ContinueOnError)
	email := fs.String("email", cfg.BootstrapEmail, "e-mail of the user (default PERGOLA_BOOTSTRAP_EMAIL)")
	name := fs.String("name", "pergola token", "name of the token, shown in its list")
	days := fs.Int("days", 90, "lifetime in days, 0 for never")
	if done, err := parseFlags(fs, args, stdout); done {
		return err
	}
	if err := requireDatabase(cfg); err != nil {
		return err
	}
	db, err := openDB(ctx, cfg, nil, nil)
	if err != nil {
		return err
	}
	defer db.Close()
	tok, err := identityapp.New(db.Users(), db.Workspaces(), db.Tokens()).IssueToken(ctx, *email, *name, *days)
	if err != nil {
		return fmt.Errorf("token: %w", err)
	}
	_, err = fmt.Fprintln(stdout, tok.Secret)
	return err
}

// requireDatabase refuses to create an empty SQLite database where the
// operator probably mistyped PERGOLA_DATA_DIR.
func requireDatabase(cfg config.Config) error {
	if cfg.DBDSN != "" {
		return nil
	}
	path := filepath.Join(cfg.DataDir, "pergola.db")
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("PERGOLA_DATA_DIR: there is no database at %s; set PERGOLA_DATA_DIR (or PERGOLA_DB_DSN) as the server has it", path)
	}
	return nil
}
