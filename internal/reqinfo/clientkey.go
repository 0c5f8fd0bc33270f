package reqinfo

import (
	"context"
	"net/netip"
)

// ClientKey is the client as per-client limits count it (sign-in and registration rates, the
// password queue's share, public links, pairing): an IPv4 address as it is, an IPv6 address as
// the /64 it belongs to. A /64 is one subscriber's network (RFC 6177 assigns a site at least a
// /64, a phone on a mobile network gets one to itself), in which a client can take any of 2^64
// addresses, so a limit keyed by the full IPv6 address would not limit anyone. IPv4-mapped IPv6
// counts as the IPv4 address. Audit rows and security events keep the full address (ClientIP).
// "" outside a request, or for an address that does not parse (kept as it is).
func ClientKey(ctx context.Context) string {
	return NetworkKey(ClientIP(ctx))
}

// NetworkKey is ClientKey for an address given as text.
func NetworkKey(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	a = a.Unmap()
	if a.Is4() {
		return a.String()
	}
	p, _ := a.WithZone("").Prefix(64)
	return p.String()
}
