// Command pergola runs the Pergola agent platform.
//
//	pergola [serve]            serve the HTTP API (the default)
//	pergola migrate [--status] apply pending database migrations, or list them
//	pergola secret             print a new PERGOLA_SECRET_KEY
//	pergola fakellm            serve the fake OpenAI-compatible model for trials
//	pergola version            print the version
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/pergola-ai/pergola/backend/config"
	"github.com/pergola-ai/pergola/infra/secret"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.LookupEnv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "pergola:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, env config.Lookup, stdout io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(ctx, env, nil)
	case "migrate":
		return migrate(ctx, args, env, stdout)
	case "secret":
		_, err := fmt.Fprintln(stdout, secret.GenerateKey())
		return err
	case "fakellm":
		return runFakeLLM(ctx, args, stdout)
	case "version":
		_, err := fmt.Fprintln(stdout, "pergola", version)
		return err
	case "help", "-h", "--help":
		_, err := fmt.Fprintln(stdout, "usage: pergola [serve|migrate [--status]|secret|fakellm|version]")
		return err
	}
	return fmt.Errorf("unknown command %q; try: serve, migrate, secret, fakellm, version", cmd)
}

func migrate(ctx context.Context, args []string, env config.Lookup, stdout io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	status := fs.Bool("status", false, "list applied and pending migrations without applying any")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := config.Load(env)
	if err != nil {
		return err
	}
	db, err := openDB(ctx, cfg, nil, nil)
	if err != nil {
		return err
	}
	defer db.Close()
	if *status {
		states, err := db.MigrationStatus(ctx)
		if err != nil {
			return err
		}
		for _, s := range states {
			state := "pending"
			if s.AppliedAt != nil {
				state = "applied " + s.AppliedAt.Format("2006-01-02 15:04:05")
			}
			if s.Unknown {
				state += " (unknown to this binary: the database is newer)"
			}
			fmt.Fprintf(stdout, "%04d %-32s %s\n", s.Version, s.Name, state)
		}
		return nil
	}
	applied, err := db.Migrate(ctx)
	if err != nil {
		return err
	}
	if len(applied) == 0 {
		_, err = fmt.Fprintln(stdout, "the database is up to date")
		return err
	}
	for _, name := range applied {
		fmt.Fprintln(stdout, "applied", name)
	}
	return nil
}
