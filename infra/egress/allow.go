package egress

import (
	"net"
	"net/netip"
	"strconv"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
)

// allowList is the parsed form of Config.Allow.
type allowList struct {
	prefixes  []netip.Prefix          // IPs and CIDRs, any port
	addrPorts map[netip.AddrPort]bool // IP:port
	names     map[string]bool         // host names, any port
	namePorts map[string]bool         // "host:port"
	suffixes  []string                // ".example.com" from "*.example.com"
}

// parseAllow reads allow entries: host names ("db.internal",
// "*.svc.cluster.local"), host:port ("db.internal:5432", "127.0.0.1:8080",
// "[::1]:8080"), IPs ("10.0.0.7") and CIDRs ("10.0.0.0/8"). Empty entries are
// skipped. It returns an error matching errs.ErrInvalid that names the first
// entry it cannot read.
func parseAllow(entries []string) (allowList, error) {
	l := allowList{addrPorts: map[netip.AddrPort]bool{}, names: map[string]bool{}, namePorts: map[string]bool{}}
	for _, raw := range entries {
		entry := strings.TrimSpace(raw)
		if entry == "" {
			continue
		}
		if err := l.add(entry); err != nil {
			return allowList{}, err
		}
	}
	return l, nil
}

func (l *allowList) add(entry string) error {
	if p, err := netip.ParsePrefix(entry); err == nil {
		l.prefixes = append(l.prefixes, p.Masked())
		return nil
	}
	if a, err := netip.ParseAddr(entry); err == nil {
		a = a.WithZone("")
		l.prefixes = append(l.prefixes, netip.PrefixFrom(a, a.BitLen()))
		return nil
	}
	if ap, err := netip.ParseAddrPort(entry); err == nil && ap.Port() != 0 {
		l.addrPorts[netip.AddrPortFrom(ap.Addr().WithZone(""), ap.Port())] = true
		return nil
	}
	bad := errs.Invalid("PERGOLA_EGRESS_ALLOW",
		"entry %q is not a host name, host:port, IP address or CIDR", entry)
	host, port := entry, ""
	if h, p, err := net.SplitHostPort(entry); err == nil {
		host, port = h, p
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return bad
		}
	}
	wildcard := strings.HasPrefix(host, "*.")
	host = normalizeHost(strings.TrimPrefix(host, "*."))
	if !validHostName(host) || (wildcard && port != "") {
		return bad
	}
	switch {
	case wildcard:
		l.suffixes = append(l.suffixes, "."+host)
	case port != "":
		l.namePorts[net.JoinHostPort(host, port)] = true
	default:
		l.names[host] = true
	}
	return nil
}

// validHostName accepts dot-separated labels of letters, digits, '-' and
// '_' (seen in internal DNS names), each 1 to 63 characters long and not
// starting or ending with '-'.
func validHostName(host string) bool {
	if host == "" || len(host) > 253 {
		return false
	}
	for _, label := range strings.Split(host, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			ok := c == '-' || c == '_' || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z')
			if !ok {
				return false
			}
		}
	}
	return true
}

// allowsAddr reports whether the list names a, by IP, CIDR or IP:port. An
// IPv6 form of an IPv4 address is also allowed by the IPv4 entry.
func (l allowList) allowsAddr(a netip.Addr, port uint16) bool {
	a = a.WithZone("")
	for _, p := range l.prefixes {
		if p.Contains(a) {
			return true
		}
	}
	if l.addrPorts[netip.AddrPortFrom(a, port)] {
		return true
	}
	if v4, ok := embedded(a); ok {
		return l.allowsAddr(v4, port)
	}
	return false
}

// allowsName reports whether the list names host (normalized), alone, with
// port, or under a wildcard.
func (l allowList) allowsName(host string, port uint16) bool {
	if l.names[host] || l.namePorts[net.JoinHostPort(host, strconv.Itoa(int(port)))] {
		return true
	}
	for _, s := range l.suffixes {
		if strings.HasSuffix(host, s) {
			return true
		}
	}
	return false
}
