package delivery

import (
	"net/netip"
	"testing"
)

func TestIsPublic(t *testing.T) {
	tests := []struct {
		addr string
		want bool
	}{
		// Public IPv4.
		{"1.1.1.1", true},
		{"8.8.8.8", true},
		{"93.184.215.14", true},
		{"100.63.255.255", true}, // just below CGNAT
		{"100.128.0.0", true},    // just above CGNAT
		{"172.15.255.255", true}, // just below 172.16/12
		{"172.32.0.0", true},     // just above
		{"192.0.1.1", true},
		{"198.17.255.255", true}, // just below benchmarking
		{"198.20.0.0", true},     // just above
		{"223.255.255.255", true},

		// Non-public IPv4.
		{"0.0.0.0", false},
		{"0.1.2.3", false},
		{"10.0.0.5", false},
		{"10.255.255.255", false},
		{"100.64.0.1", false},
		{"100.127.255.255", false},
		{"127.0.0.1", false},
		{"127.255.255.254", false},
		{"169.254.169.254", false}, // cloud metadata
		{"169.254.0.1", false},
		{"172.16.0.1", false},
		{"172.31.255.255", false},
		{"192.0.0.8", false},
		{"192.0.2.1", false},
		{"192.88.99.1", false},
		{"192.168.1.1", false},
		{"198.18.0.1", false},
		{"198.19.255.255", false},
		{"198.51.100.7", false},
		{"203.0.113.9", false},
		{"224.0.0.1", false},
		{"239.255.255.250", false},
		{"240.0.0.1", false},
		{"255.255.255.255", false},

		// Public IPv6.
		{"2606:4700:4700::1111", true},
		{"2001:4860:4860::8888", true},
		{"2a00:1450:4007:80e::200e", true},
		{"2001:200::1", true},       // just above 2001::/23
		{"2002:0808:0808::1", true}, // 6to4 of 8.8.8.8
		{"64:ff9b::808:808", true},  // NAT64 of 8.8.8.8
		{"64:ff9b::1.1.1.1", true},

		// Non-public IPv6.
		{"::", false},
		{"::1", false},
		{"fe80::1", false},
		{"fe80::1%eth0", false},
		{"febf:ffff::1", false},
		{"fec0::1", false}, // deprecated site-local
		{"fc00::1", false},
		{"fd12:3456:789a::1", false},
		{"ff02::1", false},
		{"ff05::2", false},
		{"100::1", false},      // discard-only
		{"2001:db8::1", false}, // documentation
		{"3fff::1", false},     // documentation (RFC 9637)
		{"2001::1", false},     // Teredo
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", false},
		{"2001:10::1", false},         // ORCHID
		{"::127.0.0.1", false},        // deprecated IPv4-compatible
		{"::8.8.8.8", false},          // deprecated IPv4-compatible, even of a public address
		{"::ffff:0:8.8.8.8", false},   // SIIT IPv4-translated
		{"4000::1", false},            // outside global unicast
		{"64:ff9b:1::808:808", false}, // local-use NAT64

		// IPv4-mapped IPv6 is judged by its IPv4 address.
		{"::ffff:8.8.8.8", true},
		{"::ffff:127.0.0.1", false},
		{"::ffff:10.0.0.5", false},
		{"::ffff:169.254.169.254", false},
		{"::ffff:7f00:1", false},
		{"::ffff:0.0.0.0", false},

		// NAT64 embedding a non-public address.
		{"64:ff9b::127.0.0.1", false},
		{"64:ff9b::a9fe:a9fe", false}, // 169.254.169.254
		{"64:ff9b::10.0.0.1", false},
		{"64:ff9b::192.168.0.1", false},

		// 6to4 embedding a non-public address.
		{"2002:7f00:0001::1", false}, // 127.0.0.1
		{"2002:a00:1::", false},      // 10.0.0.1
		{"2002:a9fe:a9fe::1", false}, // 169.254.169.254
		{"2002:c0a8:0101::1", false}, // 192.168.1.1
		{"2002::1", false},           // 0.0.0.0
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			addr := netip.MustParseAddr(tt.addr)
			if got := IsPublic(addr); got != tt.want {
				t.Errorf("IsPublic(%s) = %v, want %v", tt.addr, got, tt.want)
			}
		})
	}
	if IsPublic(netip.Addr{}) {
		t.Error("IsPublic(zero Addr) = true")
	}
}
