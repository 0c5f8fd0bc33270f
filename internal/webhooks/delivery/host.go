package delivery

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"time"

	"golang.org/x/net/idna"
)

// Resolver looks up the addresses of a host name; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// resolveTimeout bounds the lookup made when a subscription's URL is set.
const resolveTimeout = 5 * time.Second

// Host is a URL's host as the dialer will use it: an address (Addr valid) or a DNS name.
type Host struct {
	Addr netip.Addr
	Name string // lower case, ASCII, without a trailing dot; empty when Addr is valid
	// Legacy is set when the address was not written in its ordinary form: a form only
	// inet_aton reads (a single number, fewer than four parts, octal or hexadecimal parts), a
	// trailing dot, or characters that IDNA maps to digits.
	Legacy bool
}

// ParseHost reads a URL host (url.URL.Hostname: no brackets, no port) the way the connection
// will be made: non-ASCII names are converted as net/http converts them (IDNA lookup
// profile, so fullwidth digits are digits), IPv6 literals keep their meaning (an IPv4-mapped
// address is that IPv4 address), and a host that ends in a number is an IPv4 address read with
// inet_aton's rules, as the C library's resolver reads it: "2130706433", "0177.0.0.1",
// "0x7f.0.0.1", "127.1" and "0" are all loopback or "this host", not names. A host ending in a
// number that inet_aton cannot read ("1.2.3.4.5", "999.1.1.1") names nothing and is an error.
func ParseHost(host string) (Host, error) {
	if host == "" {
		return Host{}, errors.New("must include a host")
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		return Host{Addr: addr.WithZone("")}, nil
	}
	ascii := host
	if !isASCII(host) {
		var err error
		if ascii, err = idna.Lookup.ToASCII(host); err != nil {
			return Host{}, errors.New("is not a valid host name")
		}
	}
	name := strings.ToLower(strings.TrimSuffix(ascii, "."))
	if addr, err := netip.ParseAddr(name); err == nil {
		// "127.0.0.1." or fullwidth digits: an address to browsers and the C resolver, a
		// name to Go's own resolver.
		return Host{Addr: addr.WithZone(""), Legacy: true}, nil
	}
	labels := strings.Split(name, ".")
	if last := labels[len(labels)-1]; isNumberLabel(last) {
		addr, ok := parseInetAton(name)
		if !ok {
			return Host{}, errors.New("is not a valid host: it ends in a number but is not an IPv4 address")
		}
		return Host{Addr: addr, Legacy: true}, nil
	}
	if name == "" || strings.Contains(name, "..") {
		return Host{}, errors.New("is not a valid host name")
	}
	return Host{Name: name}, nil
}

// CheckHost is the address rule every webhook host obeys, at creation, at update and (through
// ValidateURL and the dialer) at delivery: an address must be public, and so must every address
// a name resolves to. r resolves names; nil leaves names to the dialer's check at connect time.
// A lookup that could not be completed (as opposed to a name that does not exist) is returned
// as a *LookupError, so the caller can answer "try again" rather than "wrong".
func CheckHost(ctx context.Context, r Resolver, host string) error {
	h, err := ParseHost(host)
	if err != nil {
		return err
	}
	if h.Addr.IsValid() {
		if !IsPublic(h.Addr) {
			return fmt.Errorf("must not point to a private or reserved address (%s)", h.Addr)
		}
		if h.Legacy {
			// A public address written as inet_aton reads it would depend on which resolver
			// the dialer uses (Go's own treats it as a name): ask for the ordinary form.
			return fmt.Errorf("must write an IPv4 address as four decimal numbers (%s)", h.Addr)
		}
		return nil
	}
	if h.Name == "localhost" || strings.HasSuffix(h.Name, ".localhost") {
		return fmt.Errorf("must not point to %s", host)
	}
	if r == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	addrs, err := r.LookupNetIP(ctx, "ip", h.Name)
	var dnsErr *net.DNSError
	switch {
	case err == nil && len(addrs) == 0, errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return fmt.Errorf("must name a host that resolves (%s has no address)", h.Name)
	case err != nil:
		return &LookupError{Name: h.Name, Err: err}
	}
	for _, a := range addrs {
		if !IsPublic(a) {
			return fmt.Errorf("must not point to a private or reserved address (%s resolves to %s)", h.Name, a.Unmap().WithZone(""))
		}
	}
	return nil
}

// LookupError is a name lookup that failed for a reason other than the name not existing
// (a timeout, a server failure): nothing is known about the name yet.
type LookupError struct {
	Name string
	Err  error
}

func (e *LookupError) Error() string { return fmt.Sprintf("lookup of %s failed: %v", e.Name, e.Err) }
func (e *LookupError) Unwrap() error { return e.Err }

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// isNumberLabel reports whether a label is a number in inet_aton's eyes (decimal digits, or 0x
// followed by hexadecimal digits or nothing), which makes the whole host an IPv4 address to the
// URL standard and to the C resolver, never a DNS name.
func isNumberLabel(l string) bool {
	if l == "" {
		return false
	}
	if strings.HasPrefix(l, "0x") {
		l = l[2:]
		for i := range len(l) {
			if !isHex(l[i]) {
				return false
			}
		}
		return true
	}
	for i := range len(l) {
		if l[i] < '0' || l[i] > '9' {
			return false
		}
	}
	return true
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }

// parseInetAton reads s (lower case) as glibc's inet_aton does: one to four parts separated by
// dots, each decimal, octal (a leading 0) or hexadecimal (0x); every part but the last is one
// byte, the last fills the remaining bytes ("127.1" is 127.0.0.1, "2130706433" is 127.0.0.1).
func parseInetAton(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		v, ok := parseAtonPart(p)
		if !ok {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	last := len(vals) - 1
	var n uint64
	for i, v := range vals[:last] {
		if v > 0xff {
			return netip.Addr{}, false
		}
		n |= v << (8 * (3 - i))
	}
	if vals[last] >= 1<<(8*(4-last)) {
		return netip.Addr{}, false
	}
	n |= vals[last]
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

func parseAtonPart(p string) (uint64, bool) {
	base := uint64(10)
	switch {
	case strings.HasPrefix(p, "0x"):
		base, p = 16, p[2:]
	case len(p) > 1 && p[0] == '0':
		base, p = 8, p[1:]
	}
	if p == "" {
		return 0, false // "0x" and "" carry no digit
	}
	var v uint64
	for i := range len(p) {
		var d uint64
		switch c := p[i]; {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		default:
			return 0, false
		}
		if d >= base {
			return 0, false
		}
		v = v*base + d
		if v > 0xffffffff {
			return 0, false
		}
	}
	return v, true
}
