// Command pergola runs the Pergola agent platform.
//
//	pergola [serve]            serve the HTTP API (the default)
//	pergola migrate [--status] apply pending database migrations, or list them
//	pergola token --email E    print a new access token for an existing user
//	pergola secret             print a new PERGOLA_SECRET_KEY
//	pergola healthcheck        GET /readyz of the local server, for containers
//	pergola fakellm            serve the fake OpenAI-compatible model for trials
//	pergola version            print the version
//	pergola --help             print the usage and the main environment variables
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/pergola-ai/pergola/backend/config"
	"github.com/pergola-ai/pergola/infra/secret"
	"github.com/pergola-ai/pergola/workflow/jsrun/jsproc"
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
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	if isHelp(cmd) {
		_, err := io.WriteString(stdout, usage)
		return err
	}
	switch cmd {
	case "serve", "secret", "version":
		if done, err := noArgs(cmd, args, stdout); done {
			return err
		}
	}
	switch cmd {
	case "serve":
		return serve(ctx, env, nil)
	case "migrate":
		return migrate(ctx, args, env, stdout)
	case "token":
		return mintToken(ctx, args, env, stdout)
	case "healthcheck":
		return healthcheck(ctx, args, env, stdout)
	case "secret":
		_, err := fmt.Fprintln(stdout, secret.GenerateKey())
		return err
	case "fakellm":
		return runFakeLLM(ctx, args, stdout)
	case codeWorkerCommand: // hidden: a code-node worker process the server starts (wire_code.go)
		return jsproc.Serve(os.Stdin, stdout)
	case "version":
		_, err := fmt.Fprintln(stdout, "pergola", version)
		return err
	}
	if strings.HasPrefix(cmd, "-") {
		return usageError{fmt.Sprintf("unknown flag %q: flags follow a command, and serve takes none (settings are environment variables)", cmd)}
	}
	return usageError{fmt.Sprintf("unknown command %q", cmd)}
}

func migrate(ctx context.Context, args []string, env config.Lookup, stdout io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	status := fs.Bool("status", false, "list applied and pending migrations without applying any")
	if done, err := parseFlags(fs, args, stdout); done {
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
