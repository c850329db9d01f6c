package config

import (
	"fmt"
	"net/url"
	"strings"
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
}

// DefaultTraces returns the default trace settings: no export, content
// captured when an endpoint is set.
func DefaultTraces() Traces { return Traces{OTLPCaptureContent: true} }

func applyTracesEnv(t *Traces, env Lookup) error {
	if v, ok := env("PERGOLA_OTLP_ENDPOINT"); ok {
		t.OTLPEndpoint = strings.TrimSpace(v)
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
	if t.OTLPEndpoint == "" {
		return nil
	}
	u, err := url.Parse(t.OTLPEndpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("PERGOLA_OTLP_ENDPOINT: give the collector's OTLP/HTTP URL, e.g. http://localhost:4318; got %q", t.OTLPEndpoint)
	}
	return nil
}
