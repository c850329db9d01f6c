package config

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Traces says where run traces are exported. Traces are always stored for
// the trace API; with OTLPEndpoint set they are also sent there over
// OTLP/HTTP.
type Traces struct {
	// OTLPEndpoint is the collector's OTLP/HTTP URL, e.g.
	// http://localhost:4318 (spans go to /v1/traces unless it has a path).
	OTLPEndpoint string `yaml:"otlp_endpoint"`
	// OTLPCaptureContent exports prompts, completions, tool arguments and
	// results and node data; default true, "false" leaves them out of the
	// export (the stored trace keeps them for the builder).
	OTLPCaptureContent bool `yaml:"otlp_capture_content"`
	// Retention is how long stored traces are kept; 0 keeps them.
	Retention time.Duration `yaml:"traces_retention"`
}

// DefaultTraces returns the default trace settings: no export, content
// captured when an endpoint is set, stored traces kept 30 days.
func DefaultTraces() Traces { return Traces{OTLPCaptureContent: true, Retention: 30 * 24 * time.Hour} }

func applyTracesEnv(t *Traces, env Lookup) error {
	if v, ok := env("PERGOLA_OTLP_ENDPOINT"); ok {
		t.OTLPEndpoint = strings.TrimSpace(v)
	}
	if v, ok := env("PERGOLA_TRACES_RETENTION"); ok {
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("PERGOLA_TRACES_RETENTION: must be a duration such as 720h (0 keeps traces), got %q", v)
		}
		t.Retention = d
	}
	if v, ok := env("PERGOLA_OTLP_CAPTURE_CONTENT"); ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true", "1", "":
			t.OTLPCaptureContent = true
		case "false", "0":
			t.OTLPCaptureContent = false
		default:
			return fmt.Errorf("PERGOLA_OTLP_CAPTURE_CONTENT: must be true or false, got %q", v)
		}
	}
	return nil
}

func (t Traces) validate() error {
	if t.Retention != 0 && t.Retention < time.Hour {
		return fmt.Errorf("PERGOLA_TRACES_RETENTION: must be 0 (keep traces) or at least 1h, got %s", t.Retention)
	}
	if t.OTLPEndpoint == "" {
		return nil
	}
	u, err := url.Parse(t.OTLPEndpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("PERGOLA_OTLP_ENDPOINT: give the collector's OTLP/HTTP URL, e.g. http://localhost:4318; got %q", t.OTLPEndpoint)
	}
	return nil
}
