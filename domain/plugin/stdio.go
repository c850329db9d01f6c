package plugin

import (
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Limits of a stdio MCP server's command line and environment.
const (
	MaxArgs     = 64
	MaxArgBytes = 64 << 10
	MaxEnv      = 64
)

// envName is what an environment variable's name may look like.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)

// ValidateStdio checks a stdio MCP server's command, arguments and
// environment; errors match errs.ErrInvalid and name the field (command,
// args, env).
func ValidateStdio(command string, args []string, env map[string]string) error {
	if command == "" {
		return errs.Invalid("command", "is required for the stdio transport: the absolute path of the server's program, e.g. /usr/bin/python3")
	}
	if !path.IsAbs(command) || path.Clean(command) != command || !strings.HasPrefix(command, "/usr/") {
		return errs.Invalid("command", "must be an absolute path under /usr (the only tree the sandbox holds), got %q", command)
	}
	if len(args) > MaxArgs {
		return errs.Invalid("args", "may hold at most %d arguments, got %d", MaxArgs, len(args))
	}
	size := 0
	for i, a := range args {
		if strings.ContainsRune(a, 0) {
			return errs.Invalid("args", "argument %d contains a NUL character", i)
		}
		size += len(a)
	}
	if size > MaxArgBytes {
		return errs.Invalid("args", "must be at most %d bytes in all", MaxArgBytes)
	}
	if len(env) > MaxEnv {
		return errs.Invalid("env", "may hold at most %d variables, got %d", MaxEnv, len(env))
	}
	for _, k := range slices.Sorted(maps.Keys(env)) {
		if !envName.MatchString(k) {
			return errs.Invalid("env", "%q is not a valid variable name (letters, digits and _, not starting with a digit)", k)
		}
		if strings.ContainsRune(env[k], 0) {
			return errs.Invalid("env", "the value of %s contains a NUL character", k)
		}
	}
	return nil
}

// EnvNames lists the names of a stdio server's environment, sorted: what
// the API shows of it.
func (p *Plugin) EnvNames() []string { return slices.Sorted(maps.Keys(p.Env)) }

// Secrets lists what must never be shown of a plugin: its auth's secrets
// and the values of its environment.
func (p *Plugin) Secrets() []string {
	out := p.Auth.Secrets()
	for _, k := range p.EnvNames() {
		if v := p.Env[k]; v != "" {
			out = append(out, v)
		}
	}
	return out
}
