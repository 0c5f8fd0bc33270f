package delivery

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"
)

// mapResolver answers from a map; names absent from it do not exist, and "servfail.example"
// fails as an unreachable DNS server would.
type mapResolver map[string][]string

func (m mapResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if host == "servfail.example" {
		return nil, &net.DNSError{Err: "server misbehaving", Name: host, IsTemporary: true}
	}
	addrs, ok := m[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	out := make([]netip.Addr, len(addrs))
	for i, a := range addrs {
		out[i] = netip.MustParseAddr(a)
	}
	return out, nil
}

// Every host is judged as the dialer and the C resolver would read it: numeric hosts in the
// forms inet_aton accepts, IPv6 literals that embed IPv4, and names by what they resolve to.
func TestCheckURLReadsHostsAsTheResolverDoes(t *testing.T) {
	dns := mapResolver{
		"hooks.example.com":     {"93.184.215.14"},
		"dual.example.com":      {"93.184.215.14", "2606:4700:4700::1111"},
		"rebind.example.com":    {"93.184.215.14", "10.0.0.7"},
		"internal.example.com":  {"192.168.1.20"},
		"mapped.example.com":    {"::ffff:127.0.0.1"},
		"xn--bcher-kva.example": {"93.184.215.14"},
	}
	const private = "must not point to a private or reserved address"
	tests := []struct {
		url  string
		want string // substring of the error; empty for accepted
	}{
		{"https://hooks.example.com/in", ""},
		{"https://dual.example.com/in", ""},
		{"https://HOOKS.example.com./in", ""},
		{"https://bücher.example/in", ""},
		{"https://93.184.215.14/in", ""},
		{"https://[2606:4700:4700::1111]/in", ""},
		{"https://[::ffff:93.184.215.14]/in", ""},

		// inet_aton forms of loopback and "this host".
		{"https://2130706433/in", private + " (127.0.0.1)"},
		{"https://0177.0.0.1/in", private + " (127.0.0.1)"},
		{"https://0x7f.0.0.1/in", private + " (127.0.0.1)"},
		{"https://0X7F.1/in", private + " (127.0.0.1)"},
		{"https://0x7f000001/in", private + " (127.0.0.1)"},
		{"https://017700000001/in", private + " (127.0.0.1)"},
		{"https://127.1/in", private + " (127.0.0.1)"},
		{"https://127.0.1/in", private + " (127.0.0.1)"},
		{"https://0/in", private + " (0.0.0.0)"},
		{"https://0.0.0.0/in", private + " (0.0.0.0)"},
		{"https://10.1/in", private + " (10.0.0.1)"},
		{"https://169.254.43518/in", private + " (169.254.169.254)"},
		{"https://127.0.0.1./in", private + " (127.0.0.1)"},
		{"https://１２７.０.０.１/in", private + " (127.0.0.1)"},
		{"https://3232235777:8443/in", private + " (192.168.1.1)"},
		// A public address in such a form is refused too: Go's resolver would read it as a name.
		{"https://134744072/in", "must write an IPv4 address as four decimal numbers (8.8.8.8)"},
		{"https://8.8.8.8./in", "must write an IPv4 address as four decimal numbers (8.8.8.8)"},
		{"https://010.010.010.010/in", "must write an IPv4 address as four decimal numbers (8.8.8.8)"},
		// Ends in a number, but inet_aton reads no address: not a host at all.
		{"https://1.2.3.4.5/in", "is not a valid host"},
		{"https://256.1.1.1/in", "is not a valid host"},
		{"https://1.2.65536/in", "is not a valid host"},
		{"https://4294967296/in", "is not a valid host"},
		{"https://08.1.1.1/in", "is not a valid host"},
		{"https://0x/in", "is not a valid host"},
		{"https://hooks.example.123/in", "is not a valid host"},

		// IPv6 forms of non-public IPv4 and IPv6.
		{"https://[::ffff:127.0.0.1]/in", private + " (::ffff:127.0.0.1)"},
		{"https://[::ffff:7f00:1]/in", private + " (::ffff:127.0.0.1)"},
		{"https://[0:0:0:0:0:ffff:a00:5]/in", private + " (::ffff:10.0.0.5)"},
		{"https://[::127.0.0.1]/in", private + " (::7f00:1)"},
		{"https://[64:ff9b::a9fe:a9fe]/in", private + " (64:ff9b::a9fe:a9fe)"},
		{"https://[2002:7f00:1::1]/in", private + " (2002:7f00:1::1)"},
		{"https://[::]/in", private + " (::)"},
		{"https://[fd00::1]/in", private + " (fd00::1)"},

		// Names: resolvable, and only to public addresses.
		{"https://rebind.example.com/in", private + " (rebind.example.com resolves to 10.0.0.7)"},
		{"https://internal.example.com/in", private + " (internal.example.com resolves to 192.168.1.20)"},
		{"https://mapped.example.com/in", private + " (mapped.example.com resolves to 127.0.0.1)"},
		{"https://nowhere.example.com/in", "must name a host that resolves (nowhere.example.com has no address)"},
		{"https://localhost/in", "must not point to localhost"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			err := CheckURL(t.Context(), tt.url, false, dns)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("CheckURL(%q) = %v, want accepted", tt.url, err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("CheckURL(%q) = %v, want %q", tt.url, err, tt.want)
			}
			// Without a lookup (what the delivery client runs before dialing) every address
			// form is judged the same way.
			if h, perr := ParseHost(hostOf(t, tt.url)); perr == nil && h.Addr.IsValid() {
				verr := ValidateURL(tt.url, false)
				if (verr == nil) != (err == nil) {
					t.Errorf("ValidateURL(%q) = %v, but CheckURL = %v", tt.url, verr, err)
				}
			}
		})
	}

	// A lookup that could not be made is not a verdict on the name.
	var le *LookupError
	if err := CheckURL(t.Context(), "https://servfail.example/in", false, dns); !errors.As(err, &le) {
		t.Errorf("CheckURL(servfail) = %v, want a *LookupError", err)
	}
	// Local development lifts the address rules (and makes no lookup).
	for _, u := range []string{"http://2130706433:9000/", "http://127.1/", "https://nowhere.example.com/"} {
		if err := CheckURL(t.Context(), u, true, dns); err != nil {
			t.Errorf("CheckURL(%q, allowPrivate) = %v", u, err)
		}
	}
}

func hostOf(t *testing.T, raw string) string {
	t.Helper()
	i := strings.Index(raw, "://") + 3
	rest := raw[i:]
	if j := strings.IndexByte(rest, '/'); j >= 0 {
		rest = rest[:j]
	}
	if strings.HasPrefix(rest, "[") {
		return strings.Trim(rest[:strings.IndexByte(rest, ']')+1], "[]")
	}
	if j := strings.LastIndexByte(rest, ':'); j >= 0 {
		rest = rest[:j]
	}
	return rest
}
