// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package openapi

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// ErrBlockedAddress reports a request to a private, loopback, link-local
// or otherwise internal address without [ExecConfig.AllowPrivate].
var ErrBlockedAddress = errors.New("openapi: destination address not allowed")

// ErrResolve reports a destination host name that DNS could not resolve:
// a lookup failure, not a refusal by the address guard.
var ErrResolve = errors.New("openapi: host name not resolved")

var errTooManyRedirects = errors.New("openapi: too many redirects")

// guard refuses connections to internal addresses. It checks the address
// actually dialed, after DNS resolution, so a name that resolves (or is
// rebound) to 127.0.0.1 is refused like the literal.
type guard struct {
	allowPrivate bool
	// allow are internal ranges allowed anyway.
	allow []netip.Prefix
}

// blocked are the ranges refused unless private addresses are allowed:
// RFC 1918 and 4193 private, carrier-grade NAT, benchmarking, and the
// IETF-reserved ranges; loopback, link-local, multicast and unspecified
// addresses are tested by method.
var blocked = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64: reaches any IPv4 address through the translator
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("::/96"),           // IPv4-compatible (deprecated): ::127.0.0.1
	netip.MustParsePrefix("::ffff:0:0:0/96"), // IPv4-translated (SIIT): ::ffff:0:127.0.0.1
	netip.MustParsePrefix("2001::/32"),       // Teredo: tunnels to an embedded IPv4 address
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("fec0::/10"),       // deprecated site-local
}

var sixToFour = netip.MustParsePrefix("2002::/16")

// allowedIP reports whether ip may be dialed.
func (g *guard) allowedIP(ip netip.Addr) bool {
	if g.allowPrivate {
		return true
	}
	ip = ip.WithZone("").Unmap()
	if sixToFour.Contains(ip) {
		// 6to4 carries an IPv4 address in bytes 2 to 5; a relay delivers to
		// it, so it is judged as that address.
		b := ip.As16()
		ip = netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})
	}
	for _, p := range g.allow {
		if p.Contains(ip) {
			return true
		}
	}
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return false
	}
	for _, p := range blocked {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// checkHost refuses a host that is a literal internal address; names are
// checked when dialed.
func (g *guard) checkHost(host string) error {
	if ip, err := netip.ParseAddr(host); err == nil && !g.allowedIP(ip) {
		return fmt.Errorf("%w: %s", ErrBlockedAddress, host)
	}
	if host == "localhost" && !g.allowPrivate && len(g.allow) == 0 {
		return fmt.Errorf("%w: %s", ErrBlockedAddress, host)
	}
	return nil
}

func (g *guard) control(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrBlockedAddress, address)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !g.allowedIP(ip) {
		return fmt.Errorf("%w: %s", ErrBlockedAddress, host)
	}
	return nil
}

// transport returns an HTTP transport whose every connection passes the
// guard. It never uses a proxy: a proxy would dial on our behalf,
// unchecked.
func (g *guard) transport() *http.Transport {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: g.control}
	return &http.Transport{
		Proxy:                 nil,
		DialContext:           dialResolving(d),
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          32,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		ResponseHeaderTimeout: 60 * time.Second,
	}
}

// dialResolving dials with d and marks a failed name lookup with
// [ErrResolve], so that it never reads like the guard's refusal.
func dialResolving(d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err == nil {
			return c, nil
		}
		if de, ok := errors.AsType[*net.DNSError](err); ok && !errors.Is(err, ErrBlockedAddress) {
			return nil, fmt.Errorf("%w: %s (%w)", ErrResolve, de.Name, de)
		}
		return nil, err
	}
}
