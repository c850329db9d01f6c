package middleware

import (
	"net"
	"net/netip"
	"strings"

	"github.com/cloudwego/hertz/pkg/app"
)

// Proxies are the reverse proxies whose X-Forwarded-For is believed. A
// request from any other peer is judged by the peer's own address, since
// anyone can send the header.
type Proxies []netip.Prefix

// ParseProxies reads IP addresses and CIDR ranges.
func ParseProxies(list []string) (Proxies, error) {
	var out Proxies
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !strings.Contains(s, "/") {
			a, err := netip.ParseAddr(s)
			if err != nil {
				return nil, err
			}
			s = netip.PrefixFrom(a, a.BitLen()).String()
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, err
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

func (p Proxies) trusts(addr string) bool {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return false
	}
	a = a.Unmap()
	for _, prefix := range p {
		if prefix.Contains(a) {
			return true
		}
	}
	return false
}

// ClientAddr returns the client's IP address: the connection's peer, or,
// when the peer is a trusted proxy, the last address in X-Forwarded-For
// that is not itself a trusted proxy (addresses further left were written
// by the client and prove nothing).
func (p Proxies) ClientAddr(c *app.RequestContext) string {
	return p.resolve(peerAddr(c), string(c.GetHeader("X-Forwarded-For")))
}

func (p Proxies) resolve(addr, forwardedFor string) string {
	if len(p) == 0 || !p.trusts(addr) {
		return addr
	}
	hops := strings.Split(forwardedFor, ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop := strings.TrimSpace(hops[i])
		if hop == "" {
			break
		}
		if !p.trusts(hop) {
			return hop
		}
		addr = hop
	}
	return addr
}

// ClientAddr returns the IP address of the connection's peer, believing
// no forwarding header.
func ClientAddr(c *app.RequestContext) string { return Proxies(nil).ClientAddr(c) }

func peerAddr(c *app.RequestContext) string {
	addr := c.RemoteAddr()
	if addr == nil {
		return "unknown"
	}
	if host, _, err := net.SplitHostPort(addr.String()); err == nil {
		return host
	}
	return addr.String()
}
