package policy

import (
	"context"
	"net"
	"net/netip"
	"net/url"
	"slices"
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

// refusedRange is a range of addresses Destinations refuses, and what a
// refusal calls it.
type refusedRange struct {
	prefix netip.Prefix
	what   string
}

// linkLocalRanges are refused unless AllowLinkLocal: link-local unicast and
// multicast (as netip.Addr's IsLinkLocalUnicast and IsLinkLocalMulticast
// see them) and the metadata endpoints outside those ranges.
var linkLocalRanges = append(ranges("a link-local address", "169.254.0.0/16", "fe80::/10", "224.0.0.0/24"),
	append(linkLocalMulticastV6(), ranges("a cloud-metadata address",
		"100.100.100.200/32", // Alibaba Cloud
		"fd00:ec2::254/128",  // AWS over IPv6
	)...)...)

// privateRanges are refused with DenyPrivate: loopback, private (RFC 1918,
// unique-local), unspecified and shared (CGNAT) addresses.
var privateRanges = ranges("a private or loopback address",
	"127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7",
	"0.0.0.0/32", "::/128", "100.64.0.0/10")

func ranges(what string, prefixes ...string) []refusedRange {
	out := make([]refusedRange, len(prefixes))
	for i, p := range prefixes {
		out[i] = refusedRange{netip.MustParsePrefix(p), what}
	}
	return out
}

// linkLocalMulticastV6 is ffX2::/16 for every flags nibble X.
func linkLocalMulticastV6() []refusedRange {
	out := make([]refusedRange, 16)
	for x := range out {
		out[x] = refusedRange{netip.PrefixFrom(netip.AddrFrom16([16]byte{0xff, byte(x<<4 | 2)}), 16), "a link-local address"}
	}
	return out
}

// netResolver is the system resolver, which the browser uses too.
var netResolver = net.DefaultResolver

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
	// Asked for each address of every request and connection: the
	// tables are walked in place, nothing is built per call.
	for _, set := range d.refusedSets() {
		for _, r := range set {
			if r.prefix.Contains(a) {
				return refusedDestination(r.what)
			}
		}
	}
	return nil
}

// refusedSets are the tables of ranges d refuses (nil where a table does
// not apply).
func (d Destinations) refusedSets() [2][]refusedRange {
	var sets [2][]refusedRange
	if !d.AllowLinkLocal {
		sets[0] = linkLocalRanges
	}
	if d.DenyPrivate {
		sets[1] = privateRanges
	}
	return sets
}

// HostRules is what a Destinations refuses of a host without resolving
// it, for a guard that cannot resolve (one in the page, which must answer
// at once): a host that is an address in one of Ranges, or one of Names.
type HostRules struct {
	Ranges []netip.Prefix
	// Names are lower case, without a final dot; one with a leading dot
	// (".localhost") stands for every name under it.
	Names []string
}

// HostRules is what d refuses of a host whatever its name resolves to;
// Check refuses these and, besides, the names that resolve into Ranges.
func (d Destinations) HostRules() HostRules {
	var h HostRules
	for _, set := range d.refusedSets() {
		for _, r := range set {
			h.Ranges = append(h.Ranges, r.prefix)
		}
	}
	if !d.AllowLinkLocal {
		for name := range metadataHosts {
			h.Names = append(h.Names, name)
		}
		slices.Sort(h.Names)
	}
	if d.DenyPrivate {
		h.Names = append(h.Names, "localhost", ".localhost")
	}
	return h
}

func refusedDestination(what string) error {
	return errcode.New(errcode.ForeignOrigin, "the destination is %s, which this runtime refuses", what)
}
