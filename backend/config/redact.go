package config

import (
	"fmt"
	"log/slog"
	"strings"
)

// ParseLevel turns debug, info, warn or error into a slog level.
func ParseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return 0, fmt.Errorf("must be debug, info, warn or error, got %q", s)
	}
	return l, nil
}

// Redacted returns the settings as log attributes with secrets hidden.
func (c Config) Redacted() []any {
	return []any{
		"addr", c.Addr, "data_dir", c.DataDir, "db", redactDSN(c.DBDSN), "redis_addr", c.RedisAddr,
		"redis_prefix", c.RedisPrefix, "redis_db", c.RedisDB,
		"redis_password", mask(c.RedisPassword), "models_file", c.ModelsFile, "secret_key", mask(c.SecretKey),
		"bootstrap_token", mask(c.BootstrapToken), "bootstrap_password", mask(c.BootstrapPassword),
		"egress_allow", c.EgressAllow, "log_level", c.LogLevel, "max_body_bytes", c.MaxBodyBytes,
		"rate_limit_per_min", c.RateLimit, "cors_origins", c.CORSOrigins,
		"read_header_timeout", c.Edge.ReadHeaderTimeout.String(), "read_timeout", c.Edge.ReadTimeout.String(),
		"idle_timeout", c.Edge.IdleTimeout.String(), "max_header_bytes", c.Edge.MaxHeaderBytes, "auth_failures_per_min", c.Edge.AuthFailures,
		"trusted_proxies", c.Edge.TrustedProxies, "public_url", c.PublicURL, "channel_workers", c.ChannelWorkers,
		"pprof_addr", c.PprofAddr, "cache_ttl", c.Cache.TTL.String(), "vector_dsn", redactURL(c.Knowledge.VectorDSN),
		"code_workers", c.CodeWorkers(), "fair_share", c.Shares.Share, "model_parallel", c.Shares.ModelParallel,
	}
}

func mask(s string) string {
	if s == "" {
		return ""
	}
	return "[redacted]"
}

// redactDSN hides the password in user:pass@tcp(host)/db.
func redactDSN(dsn string) string {
	if dsn == "" {
		return "sqlite"
	}
	at := strings.LastIndex(dsn, "@")
	if at < 0 {
		return dsn
	}
	cred := dsn[:at]
	if colon := strings.Index(cred, ":"); colon >= 0 {
		return cred[:colon] + ":[redacted]" + dsn[at:]
	}
	return dsn
}

// redactURL hides the password of a URL DSN (postgres://user:pass@host/db).
func redactURL(dsn string) string {
	scheme, rest, ok := strings.Cut(dsn, "://")
	at := strings.LastIndex(rest, "@")
	if !ok || at < 0 {
		return dsn
	}
	user, _, _ := strings.Cut(rest[:at], ":")
	return scheme + "://" + user + ":[redacted]" + rest[at:]
}
