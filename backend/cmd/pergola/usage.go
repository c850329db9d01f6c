package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// usage is what `pergola --help` prints.
const usage = `pergola runs the Pergola agent platform.

usage: pergola [command] [flags]

commands:
  serve              serve the HTTP API and the console (the default command)
  migrate [--status] apply pending database migrations, or list applied and pending ones
  token --email E    print a new personal access token for an existing user
                     (for an administrator who is locked out; [--name N] [--days D])
  secret             print a new random PERGOLA_SECRET_KEY
  healthcheck        exit 0 when the local server answers GET /readyz with 200
                     (for container health checks; [--url URL])
  fakellm            serve a FAKE OpenAI-compatible model that echoes, for trials
                     ([--addr host:port], default 127.0.0.1:8999)
  version            print the version
  help               print this help

main environment variables (all optional on the embedded default):
  PERGOLA_ADDR                listen address (default :8888)
  PERGOLA_DATA_DIR            SQLite database and generated key (default ./data)
  PERGOLA_DB_DSN              MySQL/MariaDB DSN instead of SQLite, e.g. user:pw@tcp(db:3306)/pergola
  PERGOLA_REDIS_ADDR          Redis host:port, for several processes (default: in memory)
  PERGOLA_REDIS_PREFIX        prefix of every Redis key and channel (default pergola:)
  PERGOLA_REDIS_DB            Redis database index (default 0)
  PERGOLA_SECRET_KEY          key of stored secrets, 64 hex characters (make one with: pergola secret)
  PERGOLA_BOOTSTRAP_TOKEN     on an empty database: create the admin with this API token
  PERGOLA_BOOTSTRAP_EMAIL     the admin's e-mail (default admin@pergola.local)
  PERGOLA_BOOTSTRAP_PASSWORD  the admin's console password
  PERGOLA_MODELS_FILE         YAML file of the models bots can use
  PERGOLA_CONFIG_FILE         YAML file of these settings (the environment wins)
  PERGOLA_LOG_LEVEL           debug, info, warn or error (default info)
`

// usageError is a command line pergola does not understand; its message
// ends with the usage, and main exits non-zero.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg + "\n\n" + usage }

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "--help" || arg == "-help" || arg == "help"
}

// noArgs checks the arguments of a command that takes none: a help flag
// prints the usage and reports done; anything else is a usage error.
func noArgs(cmd string, args []string, stdout io.Writer) (done bool, err error) {
	if len(args) == 0 {
		return false, nil
	}
	if isHelp(args[0]) {
		_, err := io.WriteString(stdout, usage)
		return true, err
	}
	return true, usageError{fmt.Sprintf("%s takes no arguments, got %q", cmd, args)}
}

// parseFlags parses a sub-command's flags. -h prints the usage and reports
// done; a wrong flag is a usage error.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) (done bool, err error) {
	fs.SetOutput(io.Discard)
	err = fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		_, err := io.WriteString(stdout, usage)
		return true, err
	}
	if err != nil {
		return true, usageError{fs.Name() + ": " + err.Error()}
	}
	if fs.NArg() > 0 {
		return true, usageError{fmt.Sprintf("%s: unexpected arguments %q", fs.Name(), fs.Args())}
	}
	return false, nil
}
