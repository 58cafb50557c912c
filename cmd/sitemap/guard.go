package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// A sitemap, a robots.txt or an index names the hosts the check fetches
// from, and a hostile one may name the machine's own services or its
// cloud's metadata endpoint (169.254.169.254). So no connection is made to
// a loopback, private, link-local, shared (100.64.0.0/10), unspecified or
// multicast address, unless -allow-private allows it, or the host and port
// are those of a URL given on the command line (the user named that
// server; checking one's own http://localhost:8080/ works). The guard is
// the dialer's Control, which sees the address about to be connected to
// after DNS, so no name that resolves there, and no redirect, gets past
// it. Through a proxy (HTTPS_PROXY), the proxy connects, and decides.

// guard decides which addresses may be connected to.
type guard struct {
	allowPrivate bool
	named        map[string]bool // host:port of the command line's URLs, and of their proxies
}

// errRefused is wrapped by the error of a connection the guard refused.
var errRefused = errors.New("not fetched: the address is loopback, private or link-local, and only the hosts named on the command line may be (-allow-private allows any)")

// refused tells that err comes of a connection the guard refused.
func refused(err error) bool { return errors.Is(err, errRefused) }

// newGuard returns the guard for the URLs among args, whose hosts (and
// the proxies transport would reach them through) are always allowed.
func newGuard(allowPrivate bool, args []string, transport http.RoundTripper) *guard {
	g := &guard{allowPrivate: allowPrivate, named: map[string]bool{}}
	var proxy func(*http.Request) (*url.URL, error)
	if t, ok := transport.(*http.Transport); ok {
		proxy = t.Proxy
	}
	for _, arg := range args {
		if !isURL(arg) {
			continue
		}
		u, _ := url.Parse(arg)
		g.named[hostPortOf(u)] = true
		if proxy != nil {
			if p, err := proxy(&http.Request{URL: u}); err == nil && p != nil {
				g.named[hostPortOf(p)] = true
			}
		}
	}
	return g
}

// hostPortOf is the address the transport dials for u: its host in lower
// case and its port, the scheme's default when none is given.
func hostPortOf(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
		if strings.EqualFold(u.Scheme, "https") {
			port = "443"
		}
	}
	return net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// sharedSpace is RFC 6598's carrier-grade NAT range, where some clouds
// put their metadata service (100.100.100.200).
var sharedSpace = netip.MustParsePrefix("100.64.0.0/10")

// internal tells an address that is not on the public internet.
func internal(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsUnspecified() || a.IsMulticast() || sharedSpace.Contains(a) || a.Is4() && a.As4()[0] == 0
}

// control is the dialer's Control: it runs after the name is resolved,
// before the connection is made, with the address connected to.
func (g *guard) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s is not an address", errRefused, address)
	}
	if internal(ap.Addr()) {
		return fmt.Errorf("%s: %w", address, errRefused)
	}
	return nil
}

// transport returns base with the guard in its dialer. The default
// transport, and one with no dialer of its own, get a net.Dialer whose
// Control is the guard; one with a DialContext of its own (a test's) has
// the address it connected to checked before any byte is sent. Another
// RoundTripper is returned as it is: the caller's, which decides.
func (g *guard) transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	bt, ok := base.(*http.Transport)
	if !ok {
		return base
	}
	t := bt.Clone()
	plain := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	guarded := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: g.control}
	own := bt.DialContext
	if base == http.DefaultTransport {
		own = nil
	}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		free := g.allowPrivate || g.named[strings.ToLower(addr)]
		switch {
		case own != nil && free:
			return own(ctx, network, addr)
		case own != nil:
			conn, err := own(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			if err := g.control(network, conn.RemoteAddr().String(), nil); err != nil {
				conn.Close()
				return nil, err
			}
			return conn, nil
		case free:
			return plain.DialContext(ctx, network, addr)
		}
		return guarded.DialContext(ctx, network, addr)
	}
	if tls := bt.DialTLSContext; tls != nil {
		t.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			conn, err := tls(ctx, network, addr)
			if err != nil || g.allowPrivate || g.named[strings.ToLower(addr)] {
				return conn, err
			}
			if err := g.control(network, conn.RemoteAddr().String(), nil); err != nil {
				conn.Close()
				return nil, err
			}
			return conn, nil
		}
	}
	return t
}

// hides tells that a redirect's target, from page, is not to be printed:
// it names a loopback, private or link-local address or localhost, which
// the guard would not connect to. (A page is fetched only on an allowed
// address; where it points is the server's to say, and not ours to show.)
func (g *guard) hides(page *url.URL, location string) bool {
	t, err := page.Parse(location)
	if err != nil {
		return true
	}
	if g.allowPrivate || g.named[hostPortOf(t)] {
		return false
	}
	host := strings.ToLower(strings.TrimSuffix(t.Hostname(), "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && internal(a)
}
