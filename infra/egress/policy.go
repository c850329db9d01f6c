package egress

import (
	"net/netip"
	"strings"
)

// blockedRange is a range of addresses refused unless allowed, with the
// words that finish "<addr> is ...".
type blockedRange struct {
	prefix netip.Prefix
	what   string
}

// blockedRanges lists every refused range. Cloud metadata addresses come
// first so that their message names them, not the wider range they sit in.
func blockedRanges() []blockedRange {
	table := []struct{ cidr, what string }{
		{"169.254.169.254/32", "a cloud metadata address"},
		{"fd00:ec2::254/128", "a cloud metadata address"},
		{"0.0.0.0/8", "an unspecified address"},
		{"127.0.0.0/8", "a loopback address"},
		{"10.0.0.0/8", "a private address"},
		{"172.16.0.0/12", "a private address"},
		{"192.168.0.0/16", "a private address"},
		{"100.64.0.0/10", "a carrier-grade NAT (shared) address"},
		{"169.254.0.0/16", "a link-local address"},
		{"224.0.0.0/4", "a multicast address"},
		{"240.0.0.0/4", "a reserved or broadcast address"},
		{"::/128", "an unspecified address"},
		{"::1/128", "a loopback address"},
		{"::/96", "a deprecated IPv4-compatible address"},
		{"fe80::/10", "a link-local address"},
		{"fec0::/10", "a site-local address"},
		{"fc00::/7", "a unique-local address"},
		{"ff00::/8", "a multicast address"},
	}
	out := make([]blockedRange, len(table))
	for i, r := range table {
		out[i] = blockedRange{prefix: netip.MustParsePrefix(r.cidr), what: r.what}
	}
	return out
}

// metadataNames are host names of cloud metadata services, refused by name
// whatever they resolve to.
func metadataNames() map[string]bool {
	return map[string]bool{
		"metadata.google.internal":   true,
		"metadata.goog":              true,
		"instance-data":              true,
		"instance-data.ec2.internal": true,
	}
}

// embedded returns the IPv4 address an IPv6 address carries in its
// IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64
// (64:ff9b::a.b.c.d) or 6to4 (2002:aabb:ccdd::) form, and whether it has one.
func embedded(a netip.Addr) (netip.Addr, bool) {
	if !a.Is6() {
		return netip.Addr{}, false
	}
	if a.Is4In6() {
		return a.Unmap(), true
	}
	b := a.As16()
	switch {
	case isZero(b[:12]) && !isZero(b[12:15]):
		// IPv4-compatible; :: and ::1 are themselves, not IPv4 forms.
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && isZero(b[4:12]):
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case b[0] == 0x20 && b[1] == 0x02:
		return netip.AddrFrom4([4]byte(b[2:6])), true
	}
	return netip.Addr{}, false
}

func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// classify says why a is refused by default ("a loopback address"), or ""
// when a is a public address.
func classify(ranges []blockedRange, a netip.Addr) string {
	a = a.WithZone("")
	if v4, ok := embedded(a); ok {
		if what := classify(ranges, v4); what != "" {
			return "an IPv6 form of " + v4.String() + ", " + what
		}
	}
	for _, r := range ranges {
		if r.prefix.Contains(a) {
			return r.what
		}
	}
	return ""
}

// normalizeHost lowercases a host name and drops a trailing dot, so that
// "Metadata.Google.Internal." and "metadata.google.internal" match.
func normalizeHost(host string) string {
	return strings.TrimSuffix(strings.ToLower(host), ".")
}
