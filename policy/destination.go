package policy

import (
	"context"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/veetbot/veetbrowser/errcode"
)

// Destinations is the network policy every top-level navigation hop passes,
// on the addresses its host resolves to, whatever the task grant says.
// Link-local and cloud-metadata destinations are refused in every mode
// unless AllowLinkLocal; private and loopback ranges are refused only with
// DenyPrivate, for a runtime that serves callers other than the machine's
// owner. The zero value is the local runtime's policy.
type Destinations struct {
	AllowLinkLocal bool // 169.254.0.0/16, fe80::/10 and the metadata host names
	DenyPrivate    bool // loopback, private, shared (CGNAT), unique-local and unspecified addresses

	// Resolver resolves host names; nil uses the system resolver.
	Resolver interface {
		LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
	}
}

// resolveTimeout bounds the lookup of one hop's host.
const resolveTimeout = 3 * time.Second

// metadataHosts are the names cloud providers serve instance metadata at.
var metadataHosts = map[string]bool{
	"metadata":                   true,
	"metadata.google.internal":   true,
	"metadata.goog":              true,
	"metadata.azure.com":         true,
	"instance-data":              true,
	"instance-data.ec2.internal": true,
}

// metadataAddrs are metadata endpoints outside the link-local ranges.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
	netip.MustParseAddr("fd00:ec2::254"),   // AWS over IPv6
}

// netResolver is the system resolver, which the browser uses too.
var netResolver = net.DefaultResolver

var sharedRange = netip.MustParsePrefix("100.64.0.0/10")

// Check refuses a URL whose host is, or resolves to, a refused address. A
// name that does not resolve passes: the browser resolves with the same
// system resolver and fails the same way, unless DenyPrivate, where an
// address that cannot be checked is refused.
func (d Destinations) Check(ctx context.Context, u *url.URL) error {
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if metadataHosts[host] && !d.AllowLinkLocal {
		return refusedDestination("a cloud-metadata host")
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		return d.CheckAddr(addr)
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return d.CheckAddr(netip.IPv6Loopback())
	}
	var resolver interface {
		LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
	} = netResolver
	if d.Resolver != nil {
		resolver = d.Resolver
	}
	rctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	addrs, err := resolver.LookupNetIP(rctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		if d.DenyPrivate {
			return errcode.Wrap(errcode.ForeignOrigin, err, "the destination's address could not be checked")
		}
		return nil
	}
	for _, a := range addrs {
		if err := d.CheckAddr(a); err != nil {
			return err
		}
	}
	return nil
}

// CheckAddr refuses an address the policy refuses: what Check asks of each
// address a host resolves to, and what a proxy asks of the address it is
// about to connect to.
func (d Destinations) CheckAddr(a netip.Addr) error {
	a = a.Unmap()
	if !d.AllowLinkLocal {
		if a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() {
			return refusedDestination("a link-local address")
		}
		for _, m := range metadataAddrs {
			if a == m {
				return refusedDestination("a cloud-metadata address")
			}
		}
	}
	if d.DenyPrivate && (a.IsLoopback() || a.IsPrivate() || a.IsUnspecified() || sharedRange.Contains(a)) {
		return refusedDestination("a private or loopback address")
	}
	return nil
}

func refusedDestination(what string) error {
	return errcode.New(errcode.ForeignOrigin, "the destination is %s, which this runtime refuses", what)
}
