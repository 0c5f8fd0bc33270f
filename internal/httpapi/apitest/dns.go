package apitest

import (
	"context"
	"net"
	"net/netip"
	"strings"
)

// PublicTestAddr is the address the test resolver gives every ordinary name: a public address,
// so subscriptions to names such as hooks.example.com are accepted without a network.
var PublicTestAddr = netip.MustParseAddr("93.184.215.14")

// testResolver stands in for DNS when webhook URLs are checked: tests must not depend on the
// machine's network. Names under .invalid (RFC 6761) do not exist; names under
// .private.example resolve to a private address; every other name resolves to PublicTestAddr.
type testResolver struct{}

func (testResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	name := strings.TrimSuffix(strings.ToLower(host), ".")
	switch {
	case name == "invalid" || strings.HasSuffix(name, ".invalid"):
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	case strings.HasSuffix(name, ".servfail.example"):
		return nil, &net.DNSError{Err: "server misbehaving", Name: host, IsTemporary: true}
	case strings.HasSuffix(name, ".private.example"):
		return []netip.Addr{PublicTestAddr, netip.MustParseAddr("10.0.0.7")}, nil
	}
	return []netip.Addr{PublicTestAddr}, nil
}
