package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"

	"github.com/pergola-ai/pergola/domain/errs"
)

// dial is the transport's DialContext: it resolves addr, checks every
// address the name resolves to, and dials only checked addresses, so the
// address checked is the address connected to.
func (g *Guard) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("egress: bad address %q: %w", addr, err)
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("egress: bad port in %q", addr)
	}
	ips, err := g.resolve(ctx, host, uint16(port))
	if err != nil {
		return nil, err
	}
	var last error
	for _, ip := range ips {
		if !fits(network, ip) {
			continue
		}
		conn, err := g.dialer.DialContext(ctx, network, netip.AddrPortFrom(ip, uint16(port)).String())
		if err == nil {
			return conn, nil
		}
		last = err
	}
	if last == nil {
		last = fmt.Errorf("egress: %s has no %s address", host, network)
	}
	return nil, last
}

// fits reports whether ip (unmapped) can be dialled on network ("tcp",
// "tcp4", "tcp6").
func fits(network string, ip netip.Addr) bool {
	switch network {
	case "tcp4":
		return ip.Is4()
	case "tcp6":
		return ip.Is6()
	}
	return true
}

// resolve returns the checked addresses of host (an IP or a name). It
// refuses the whole name if any address it resolves to is refused, so that
// a name cannot mix a public and a private answer. Errors: a refusal
// (ErrRefused) or the resolver's error.
func (g *Guard) resolve(ctx context.Context, host string, port uint16) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		if err := g.checkAddr(ip, port, ""); err != nil {
			return nil, err
		}
		return []netip.Addr{ip.Unmap().WithZone("")}, nil
	}
	name := normalizeHost(host)
	nameAllowed := g.allow.allowsName(name, port)
	if err := g.checkName(name, nameAllowed); err != nil {
		return nil, err
	}
	ips, err := g.cfg.Resolver(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("egress: resolve %s: %w", name, err)
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("egress: resolve %s: no addresses", name)
	}
	out := make([]netip.Addr, 0, len(ips))
	for _, ip := range ips {
		if !nameAllowed {
			if err := g.checkAddr(ip, port, name); err != nil {
				return nil, err
			}
		}
		out = append(out, ip.Unmap().WithZone(""))
	}
	return out, nil
}

// checkAddr refuses ip unless it is public or allowed. name, when not
// empty, is the host name that resolved to ip, for the message.
func (g *Guard) checkAddr(ip netip.Addr, port uint16, name string) error {
	what := classify(g.ranges, ip)
	if what == "" || g.allow.allowsAddr(ip, port) {
		return nil
	}
	if name != "" {
		return refuse(fmt.Sprintf("%s resolves to %s, %s%s", name, ip.WithZone(""), what, allowHint))
	}
	return refuse(fmt.Sprintf("%s is %s%s", ip.WithZone(""), what, allowHint))
}

// checkName refuses cloud metadata host names unless allowed by name.
func (g *Guard) checkName(name string, allowed bool) error {
	if g.metadata[name] && !allowed {
		return refuse(fmt.Sprintf("%s is a cloud metadata host name%s", name, allowHint))
	}
	return nil
}

// precheck refuses a URL before any connection: a scheme other than http
// or https, a metadata host name, or a refused IP literal. Names are
// checked again, with their addresses, when dialled.
func (g *Guard) precheck(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return refuse(fmt.Sprintf("scheme %q is not allowed; only http and https", u.Scheme))
	}
	host := u.Hostname()
	if host == "" {
		return refuse(fmt.Sprintf("%q has no host", u.Redacted()))
	}
	port := defaultPort(u)
	if ip, err := netip.ParseAddr(host); err == nil {
		return g.checkAddr(ip, port, "")
	}
	name := normalizeHost(host)
	return g.checkName(name, g.allow.allowsName(name, port))
}

func defaultPort(u *url.URL) uint16 {
	if p, err := strconv.ParseUint(u.Port(), 10, 16); err == nil {
		return uint16(p)
	}
	if u.Scheme == "https" {
		return 443
	}
	return 80
}

// CheckURL tells, without connecting, whether the guard would let a
// request to rawURL out: it checks the scheme, the host and every address
// the host resolves to. It returns an error matching errs.ErrInvalid for a
// malformed URL, ErrRefused for a refused destination, or the resolver's
// error. Use it to reject a plugin or MCP server URL at registration; the
// guard checks again at every request.
func (g *Guard) CheckURL(ctx context.Context, rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return errs.Invalid("url", "%q is not a URL: %v", rawURL, err)
	}
	if err := g.precheck(u); err != nil {
		return err
	}
	_, err = g.resolve(ctx, u.Hostname(), defaultPort(u))
	return err
}
