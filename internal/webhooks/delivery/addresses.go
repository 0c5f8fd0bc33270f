package delivery

import (
	"net/netip"
)

// Ranges a webhook may never reach. Deliveries go to partner URLs that anyone with the
// webhooks feature can set, so every address that leads into our own network, the cloud
// provider's metadata service, or somewhere that is not a real public host is refused.
var blockedV4 = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"; 0.0.0.0 reaches the local host on Linux
	netip.MustParsePrefix("10.0.0.0/8"),      // private (RFC 1918)
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT (RFC 6598), often internal in clouds
	netip.MustParsePrefix("127.0.0.0/8"),     // loopback
	netip.MustParsePrefix("169.254.0.0/16"),  // link-local, includes 169.254.169.254 cloud metadata
	netip.MustParsePrefix("172.16.0.0/12"),   // private (RFC 1918)
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation (TEST-NET-1)
	netip.MustParsePrefix("192.88.99.0/24"),  // deprecated 6to4 relay anycast
	netip.MustParsePrefix("192.168.0.0/16"),  // private (RFC 1918)
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation (TEST-NET-2)
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation (TEST-NET-3)
	netip.MustParsePrefix("224.0.0.0/4"),     // multicast
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, includes 255.255.255.255 broadcast
}

// IPv6 is checked against an allow-list instead: only global unicast (2000::/3) is ever
// routable to a partner, so loopback, unspecified, link-local, site-local, unique-local,
// multicast, discard-only and the deprecated IPv4-compatible form all fall outside it
// without needing their own entries, and so will anything the IETF assigns later.
var globalUnicastV6 = netip.MustParsePrefix("2000::/3")

// Special ranges inside 2000::/3.
var blockedV6 = []netip.Prefix{
	// IETF protocol assignments, including Teredo (2001::/32), whose embedded IPv4 addresses
	// are obfuscated and which no legitimate receiver uses.
	netip.MustParsePrefix("2001::/23"),
	netip.MustParsePrefix("2001:db8::/32"), // documentation
	netip.MustParsePrefix("3fff::/20"),     // documentation (RFC 9637)
}

// Translation prefixes carry an IPv4 address that decides where the packet really goes,
// so they are judged by that address. NAT64 to a public address stays allowed because on
// IPv6-only networks DNS64 answers every IPv4-only partner with such an address.
var (
	nat64WellKnown = netip.MustParsePrefix("64:ff9b::/96") // IPv4 in the last 32 bits
	sixToFour      = netip.MustParsePrefix("2002::/16")    // IPv4 in bits 16-47
)

// IsPublic reports whether a webhook may connect to addr. Zones are ignored (a zone only
// ever qualifies a link-local or otherwise local address, which is refused anyway).
func IsPublic(addr netip.Addr) bool {
	if !addr.IsValid() {
		return false
	}
	addr = addr.WithZone("")
	if addr.Is4In6() {
		return isPublicV4(addr.Unmap())
	}
	if addr.Is4() {
		return isPublicV4(addr)
	}
	b := addr.As16()
	switch {
	case nat64WellKnown.Contains(addr):
		return isPublicV4(netip.AddrFrom4([4]byte(b[12:16])))
	case sixToFour.Contains(addr):
		return isPublicV4(netip.AddrFrom4([4]byte(b[2:6])))
	}
	if !globalUnicastV6.Contains(addr) {
		return false
	}
	for _, p := range blockedV6 {
		if p.Contains(addr) {
			return false
		}
	}
	return true
}

func isPublicV4(addr netip.Addr) bool {
	for _, p := range blockedV4 {
		if p.Contains(addr) {
			return false
		}
	}
	return true
}
