package config

import (
	"fmt"
	"net"
	"net/netip"
)

// validatePprofAddr accepts an empty value (no profiling listener) or a
// loopback host:port: profiles show the process's internals and cost CPU
// while they run, so they are for an operator on the machine only.
func validatePprofAddr(v string) error {
	if v == "" {
		return nil
	}
	host, _, err := net.SplitHostPort(v)
	if err != nil {
		return fmt.Errorf("PERGOLA_PPROF_ADDR: must be host:port such as 127.0.0.1:6060, got %q", v)
	}
	if host == "localhost" {
		return nil
	}
	if ip, err := netip.ParseAddr(host); err != nil || !ip.IsLoopback() {
		return fmt.Errorf("PERGOLA_PPROF_ADDR: must be a loopback address such as 127.0.0.1:6060 (profiles are not for the network), got %q", v)
	}
	return nil
}
