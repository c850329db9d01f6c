// Package config reads Pergola's settings, once, from environment variables
// and an optional YAML file, and validates them. It is the only package that
// reads the environment (besides the command's entry point).
package config

import (
	"bytes"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Config is every setting of a Pergola process.
type Config struct {
	Addr              string         `yaml:"addr"`
	DataDir           string         `yaml:"data_dir"`
	DBDSN             string         `yaml:"db_dsn"`
	TablesDSN         string         `yaml:"tables_dsn"` // the rows of tables: a MySQL database whose user may reach it only
	RedisAddr         string         `yaml:"redis_addr"`
	RedisPassword     string         `yaml:"redis_password"`
	RedisPrefix       string         `yaml:"redis_prefix"` // every Redis key and channel starts with it
	RedisDB           int            `yaml:"redis_db"`
	ModelsFile        string         `yaml:"models_file"`
	SecretKey         string         `yaml:"secret_key"`
	BootstrapToken    string         `yaml:"bootstrap_token"`
	BootstrapEmail    string         `yaml:"bootstrap_email"`
	BootstrapPassword string         `yaml:"bootstrap_password"`
	EgressAllow       []string       `yaml:"egress_allow"`
	LogLevel          string         `yaml:"log_level"`
	LogFormat         string         `yaml:"log_format"`
	MaxBodyBytes      int            `yaml:"max_body_bytes"`
	RateLimit         int            `yaml:"rate_limit"` // requests per token per minute; 0 disables
	CORSOrigins       []string       `yaml:"cors_origins"`
	ShutdownTimeout   time.Duration  `yaml:"shutdown_timeout"`
	WorkflowLease     time.Duration  `yaml:"workflow_lease"`    // how long a run stays with a process that stopped renewing it
	QueueMaxBacklog   int            `yaml:"queue_max_backlog"` // queued messages of a topic not yet handled; past it new ones get 429
	CodeParallel      int            `yaml:"code_parallel"`     // workflow code nodes running at once (the worker processes of code_sandbox process); 0: GOMAXPROCS
	CodeSandbox       string         `yaml:"code_sandbox"`      // where code nodes run: process (worker processes) or inprocess
	Python            string         `yaml:"python"`            // the python3 of Python code nodes (default /usr/bin/python3)
	Bwrap             string         `yaml:"bwrap"`             // the bubblewrap that sandboxes them (default: bwrap in PATH)
	PythonWarm        int            `yaml:"python_warm"`       // started Python sandboxes waiting for a run, at least (0: 2); each run takes one, the pool refills ahead of demand
	PythonWarmMax     int            `yaml:"python_warm_max"`   // at most, when demand is high (0: CodeWorkers, at most 64)
	PublicURL         string         `yaml:"public_url"`        // the base URL platforms reach this server at, for channel webhook URLs; empty: each request's own
	ChannelWorkers    int            `yaml:"channel_workers"`   // channel events this process answers at once; 0: it only receives them (others answer)
	PprofAddr         string         `yaml:"pprof_addr"`        // loopback host:port of an opt-in /debug/pprof listener (pprof.go); empty: none
	Edge              Edge           `yaml:",inline"`           // slow-client and authentication-failure limits (edge.go)
	Cache             Cache          `yaml:",inline"`           // in-process caches of tokens, memberships, bot versions (cache.go)
	Metrics           Metrics        `yaml:",inline"`           // bounds of the per-workspace, bot, workflow and tool series (metrics.go)
	Files             Files          `yaml:",inline"`           // where uploads are kept and their size limit (files.go)
	Traces            Traces         `yaml:",inline"`           // OTLP export of run traces (traces.go)
	Knowledge         Knowledge      `yaml:",inline"`           // the knowledge index and its limits (knowledge.go)
	Shares            Shares         `yaml:",inline"`           // each workspace's share of the shared pools (shares.go)
	Chat              Chat           `yaml:",inline"`           // the limits on a message's and a history's text (chat.go)
	ChannelRetries    ChannelRetries `yaml:",inline"`           // how failed channel turns and sends are tried again (channels.go)
	MCPStdio          MCPStdio       `yaml:",inline"`           // limits of stdio MCP servers (mcpstdio.go)
	Triggers          Triggers       `yaml:",inline"`           // the schedule dispatcher (triggers.go)
}

// Defaults are the embedded-default settings.
func Defaults() Config {
	return Config{
		Addr:            ":8888",
		DataDir:         "./data",
		RedisPrefix:     "pergola:",
		BootstrapEmail:  "admin@pergola.local",
		LogLevel:        "info",
		LogFormat:       "json",
		CodeSandbox:     "process",
		MaxBodyBytes:    8 << 20,
		RateLimit:       600,
		CORSOrigins:     []string{"*"},
		ShutdownTimeout: 15 * time.Second,
		WorkflowLease:   30 * time.Second,
		QueueMaxBacklog: 1_000_000,
		ChannelWorkers:  8,
		Edge:            DefaultEdge(),
		Cache:           DefaultCache(),
		Metrics:         DefaultMetrics(),
		Files:           DefaultFiles(),
		Traces:          DefaultTraces(),
		Knowledge:       DefaultKnowledge(),
		Shares:          DefaultShares(),
		Chat:            DefaultChat(),
		ChannelRetries:  DefaultChannelRetries(),
		MCPStdio:        DefaultMCPStdio(),
		Triggers:        DefaultTriggers(),
	}
}

// Lookup reads one environment variable; os.LookupEnv in production.
type Lookup func(key string) (string, bool)

// Load reads the optional YAML file named by PERGOLA_CONFIG_FILE, then the
// environment (which wins), and validates the result. The error names the
// setting that is wrong.
func Load(env Lookup) (Config, error) {
	cfg := Defaults()
	if path, ok := env("PERGOLA_CONFIG_FILE"); ok && path != "" {
		if err := readFile(path, &cfg); err != nil {
			return cfg, err
		}
	}
	if err := applyEnv(&cfg, env); err != nil {
		return cfg, err
	}
	return cfg, cfg.Validate()
}

func readFile(path string, cfg *Config) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("PERGOLA_CONFIG_FILE: %w", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(cfg); err != nil {
		return fmt.Errorf("PERGOLA_CONFIG_FILE %s: %w", path, err)
	}
	return nil
}

func applyEnv(cfg *Config, env Lookup) error {
	str := map[string]*string{
		"PERGOLA_ADDR": &cfg.Addr, "PERGOLA_DATA_DIR": &cfg.DataDir, "PERGOLA_DB_DSN": &cfg.DBDSN,
		"PERGOLA_TABLES_DSN": &cfg.TablesDSN,
		"PERGOLA_REDIS_ADDR": &cfg.RedisAddr, "PERGOLA_REDIS_PASSWORD": &cfg.RedisPassword,
		"PERGOLA_REDIS_PREFIX": &cfg.RedisPrefix,
		"PERGOLA_MODELS_FILE":  &cfg.ModelsFile, "PERGOLA_SECRET_KEY": &cfg.SecretKey,
		"PERGOLA_BOOTSTRAP_TOKEN": &cfg.BootstrapToken, "PERGOLA_BOOTSTRAP_EMAIL": &cfg.BootstrapEmail,
		"PERGOLA_BOOTSTRAP_PASSWORD": &cfg.BootstrapPassword, "PERGOLA_LOG_LEVEL": &cfg.LogLevel,
		"PERGOLA_LOG_FORMAT": &cfg.LogFormat, "PERGOLA_CODE_SANDBOX": &cfg.CodeSandbox,
		"PERGOLA_PUBLIC_URL": &cfg.PublicURL, "PERGOLA_PYTHON": &cfg.Python, "PERGOLA_BWRAP": &cfg.Bwrap,
		"PERGOLA_PPROF_ADDR": &cfg.PprofAddr,
	}
	for key, dst := range str {
		if v, ok := env(key); ok {
			*dst = strings.TrimSpace(v)
		}
	}
	lists := map[string]*[]string{"PERGOLA_EGRESS_ALLOW": &cfg.EgressAllow, "PERGOLA_CORS_ORIGINS": &cfg.CORSOrigins}
	for key, dst := range lists {
		if v, ok := env(key); ok {
			*dst = splitList(v)
		}
	}
	ints := map[string]*int{"PERGOLA_MAX_BODY_BYTES": &cfg.MaxBodyBytes, "PERGOLA_RATE_LIMIT": &cfg.RateLimit,
		"PERGOLA_REDIS_DB": &cfg.RedisDB, "PERGOLA_QUEUE_MAX_BACKLOG": &cfg.QueueMaxBacklog,
		"PERGOLA_CODE_PARALLEL": &cfg.CodeParallel, "PERGOLA_CHANNEL_WORKERS": &cfg.ChannelWorkers,
		"PERGOLA_PYTHON_WARM": &cfg.PythonWarm, "PERGOLA_PYTHON_WARM_MAX": &cfg.PythonWarmMax}
	for key, dst := range ints {
		if v, ok := env(key); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("%s: must be an integer, got %q", key, v)
			}
			*dst = n
		}
	}
	if err := applyPartsEnv(cfg, env); err != nil {
		return err
	}
	if v, ok := env("PERGOLA_WORKFLOW_LEASE"); ok {
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("PERGOLA_WORKFLOW_LEASE: must be a duration such as 30s, got %q", v)
		}
		cfg.WorkflowLease = d
	}
	if v, ok := env("PERGOLA_SHUTDOWN_TIMEOUT"); ok {
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("PERGOLA_SHUTDOWN_TIMEOUT: must be a duration such as 15s, got %q", v)
		}
		cfg.ShutdownTimeout = d
	}
	return nil
}

func splitList(v string) []string {
	var out []string
	for _, part := range strings.Split(v, ",") {
		if p := strings.TrimSpace(part); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Validate checks every setting and names the first wrong one.
func (c Config) Validate() error {
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		return fmt.Errorf("PERGOLA_ADDR: must be host:port such as :8888, got %q", c.Addr)
	}
	if c.DataDir == "" {
		return fmt.Errorf("PERGOLA_DATA_DIR: must not be empty")
	}
	if c.DBDSN != "" && !strings.Contains(c.DBDSN, "@") && !strings.Contains(c.DBDSN, "/") {
		return fmt.Errorf("PERGOLA_DB_DSN: must be a MySQL DSN such as user:pass@tcp(host:3306)/pergola")
	}
	if c.TablesDSN != "" && (c.DBDSN == "" || !strings.Contains(c.TablesDSN, "/")) {
		return fmt.Errorf("PERGOLA_TABLES_DSN: must be a MySQL DSN such as rows:pass@tcp(host:3306)/pergola_rows, used with PERGOLA_DB_DSN")
	}
	if c.DBDSN != "" && c.SecretKey == "" {
		return fmt.Errorf("PERGOLA_SECRET_KEY: required with PERGOLA_DB_DSN, so every process shares the key (generate one with `pergola secret`)")
	}
	if c.RedisAddr != "" {
		if _, _, err := net.SplitHostPort(c.RedisAddr); err != nil {
			return fmt.Errorf("PERGOLA_REDIS_ADDR: must be host:port such as 127.0.0.1:6379, got %q", c.RedisAddr)
		}
	}
	if err := validateRedisPrefix(c.RedisPrefix); err != nil {
		return fmt.Errorf("PERGOLA_REDIS_PREFIX: %v", err)
	}
	if c.RedisDB < 0 {
		return fmt.Errorf("PERGOLA_REDIS_DB: must be a Redis database index (0 or more), got %d", c.RedisDB)
	}
	if c.BootstrapToken != "" && len(c.BootstrapToken) < 4 {
		return fmt.Errorf("PERGOLA_BOOTSTRAP_TOKEN: must be at least 4 characters")
	}
	for i, entry := range c.EgressAllow {
		if err := validateEgressEntry(entry); err != nil {
			return fmt.Errorf("PERGOLA_EGRESS_ALLOW: item %d (%q): %v", i, entry, err)
		}
	}
	if _, err := ParseLevel(c.LogLevel); err != nil {
		return fmt.Errorf("PERGOLA_LOG_LEVEL: %v", err)
	}
	if c.LogFormat != "json" && c.LogFormat != "text" {
		return fmt.Errorf("PERGOLA_LOG_FORMAT: must be json or text, got %q", c.LogFormat)
	}
	if c.MaxBodyBytes < 1024 {
		return fmt.Errorf("PERGOLA_MAX_BODY_BYTES: must be at least 1024, got %d", c.MaxBodyBytes)
	}
	if c.RateLimit < 0 {
		return fmt.Errorf("PERGOLA_RATE_LIMIT: must be 0 (off) or a positive number of requests per minute")
	}
	if c.QueueMaxBacklog < 1 {
		return fmt.Errorf("PERGOLA_QUEUE_MAX_BACKLOG: must be a positive number of queued messages, got %d", c.QueueMaxBacklog)
	}
	if c.ChannelWorkers < 0 {
		return fmt.Errorf("PERGOLA_CHANNEL_WORKERS: must be 0 (this process only receives channel events) or a positive number of events answered at once, got %d", c.ChannelWorkers)
	}
	if c.CodeParallel < 0 {
		return fmt.Errorf("PERGOLA_CODE_PARALLEL: must be 0 (GOMAXPROCS) or a positive number of code nodes running at once, got %d", c.CodeParallel)
	}
	if c.PythonWarm < 0 || c.PythonWarm > 64 {
		return fmt.Errorf("PERGOLA_PYTHON_WARM: must be 0 (2) or a number of waiting Python sandboxes up to 64, got %d", c.PythonWarm)
	}
	if least := max(c.PythonWarm, 2); c.PythonWarmMax != 0 && (c.PythonWarmMax < least || c.PythonWarmMax > 64) {
		return fmt.Errorf("PERGOLA_PYTHON_WARM_MAX: must be 0 (the code workers, at most 64) or a number of waiting Python sandboxes from PERGOLA_PYTHON_WARM (%d) up to 64, got %d", least, c.PythonWarmMax)
	}
	if c.CodeSandbox != "process" && c.CodeSandbox != "inprocess" {
		return fmt.Errorf("PERGOLA_CODE_SANDBOX: must be process (code nodes in worker processes with a hard memory limit each) or inprocess, got %q", c.CodeSandbox)
	}
	if c.WorkflowLease < 300*time.Millisecond {
		return fmt.Errorf("PERGOLA_WORKFLOW_LEASE: must be at least 300ms, got %s", c.WorkflowLease)
	}
	if c.ShutdownTimeout <= 0 {
		return fmt.Errorf("PERGOLA_SHUTDOWN_TIMEOUT: must be positive")
	}
	if err := c.validateParts(); err != nil {
		return err
	}
	if err := validatePprofAddr(c.PprofAddr); err != nil {
		return err
	}
	return validatePublicURL(c.PublicURL)
}

// validateRedisPrefix keeps prefixes that scan patterns and redis-cli
// --scan --pattern 'PREFIX*' can match literally.
func validateRedisPrefix(p string) error {
	if p == "" || !strings.HasSuffix(p, ":") {
		return fmt.Errorf("must end with a colon, such as pergola: or pergola:staging:, got %q", p)
	}
	if strings.ContainsAny(p, "*?[]\\ \t\r\n") {
		return fmt.Errorf("must not contain spaces or the glob characters * ? [ ] \\, got %q", p)
	}
	return nil
}

func validateEgressEntry(entry string) error {
	if strings.Contains(entry, "/") {
		_, err := netip.ParsePrefix(entry)
		return err
	}
	if _, err := netip.ParseAddr(entry); err == nil {
		return nil
	}
	host := entry
	if h, _, err := net.SplitHostPort(entry); err == nil {
		host = h
	}
	if host == "" || strings.ContainsAny(host, " /?#@") {
		return fmt.Errorf("must be a host name, host:port, IP address or CIDR")
	}
	return nil
}
