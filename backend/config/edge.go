package config

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// Edge holds the limits of the HTTP edge: how long and how much a client
// may take to send a request, and how many failed sign-ins an address gets.
type Edge struct {
	// ReadHeaderTimeout bounds the time from a request's first byte (or
	// the connection's accept) to the end of its header.
	ReadHeaderTimeout time.Duration `yaml:"read_header_timeout"`
	// ReadTimeout bounds reading a whole request, header and body. The
	// handler's own time (a streamed answer) is not counted.
	ReadTimeout time.Duration `yaml:"read_timeout"`
	// IdleTimeout closes a keep-alive connection that sends nothing.
	IdleTimeout time.Duration `yaml:"idle_timeout"`
	// MaxHeaderBytes bounds a request's header; past it the answer is 431.
	MaxHeaderBytes int `yaml:"max_header_bytes"`
	// AuthFailures is how many failed authentications a client address may
	// make a minute before it is answered 429 without a lookup; 0: off.
	AuthFailures int `yaml:"auth_failures_per_min"`
	// TrustedProxies lists the reverse proxies (IPs or CIDRs) whose
	// X-Forwarded-For names the client; empty: the peer is the client.
	TrustedProxies []string `yaml:"trusted_proxies"`
}

// DefaultEdge returns the default edge limits.
func DefaultEdge() Edge {
	return Edge{
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       5 * time.Minute,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    64 << 10,
		AuthFailures:      30,
	}
}

func applyEdgeEnv(e *Edge, env Lookup) error {
	durations := map[string]*time.Duration{
		"PERGOLA_READ_HEADER_TIMEOUT": &e.ReadHeaderTimeout, "PERGOLA_READ_TIMEOUT": &e.ReadTimeout,
		"PERGOLA_IDLE_TIMEOUT": &e.IdleTimeout,
	}
	for key, dst := range durations {
		if v, ok := env(key); ok {
			d, err := time.ParseDuration(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("%s: must be a duration such as 10s, got %q", key, v)
			}
			*dst = d
		}
	}
	ints := map[string]*int{"PERGOLA_MAX_HEADER_BYTES": &e.MaxHeaderBytes, "PERGOLA_AUTH_FAILURES_PER_MIN": &e.AuthFailures}
	for key, dst := range ints {
		if v, ok := env(key); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("%s: must be an integer, got %q", key, v)
			}
			*dst = n
		}
	}
	if v, ok := env("PERGOLA_TRUSTED_PROXIES"); ok {
		e.TrustedProxies = strings.Split(v, ",")
	}
	return nil
}

func (e Edge) validate() error {
	if err := validProxies(e.TrustedProxies); err != nil {
		return err
	}
	if e.ReadHeaderTimeout < 100*time.Millisecond || e.ReadHeaderTimeout > 10*time.Minute {
		return fmt.Errorf("PERGOLA_READ_HEADER_TIMEOUT: must be between 100ms and 10m, got %s", e.ReadHeaderTimeout)
	}
	if e.ReadTimeout < e.ReadHeaderTimeout {
		return fmt.Errorf("PERGOLA_READ_TIMEOUT: must be at least PERGOLA_READ_HEADER_TIMEOUT (%s), got %s", e.ReadHeaderTimeout, e.ReadTimeout)
	}
	if e.IdleTimeout < 100*time.Millisecond {
		return fmt.Errorf("PERGOLA_IDLE_TIMEOUT: must be at least 100ms, got %s", e.IdleTimeout)
	}
	if e.MaxHeaderBytes < 4<<10 || e.MaxHeaderBytes > 1<<20 {
		return fmt.Errorf("PERGOLA_MAX_HEADER_BYTES: must be between 4096 and 1048576, got %d", e.MaxHeaderBytes)
	}
	if e.AuthFailures < 0 {
		return fmt.Errorf("PERGOLA_AUTH_FAILURES_PER_MIN: must be 0 (off) or a positive number of failures a minute, got %d", e.AuthFailures)
	}
	return nil
}

// validProxies checks that every trusted proxy is an IP address or CIDR.
func validProxies(list []string) error {
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if _, err := netip.ParsePrefix(s); err == nil {
			continue
		}
		if _, err := netip.ParseAddr(s); err != nil {
			return fmt.Errorf("PERGOLA_TRUSTED_PROXIES: %q is not an IP address or CIDR range such as 10.0.0.0/8", s)
		}
	}
	return nil
}
