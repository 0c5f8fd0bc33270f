package delivery

import (
	"context"
	"encoding/binary"
	"net"
	"net/netip"
	"strings"
	"testing"
)

// fakeResolver answers A and AAAA queries from records (keys are lower-case names without
// the trailing dot) through a UDP server on loopback; any other name is NXDOMAIN. It lets
// tests make a hostname resolve to loopback or private addresses without touching the
// system's DNS or /etc/hosts.
func fakeResolver(t *testing.T, records map[string][]netip.Addr) *net.Resolver {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen for fake DNS: %v", err)
	}
	t.Cleanup(func() { _ = pc.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if resp := answerDNS(buf[:n], records); resp != nil {
				_, _ = pc.WriteTo(resp, from)
			}
		}
	}()
	server := pc.LocalAddr().String()
	return &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "udp", server)
		},
	}
}

// answerDNS builds the response to a one-question query (RFC 1035 §4.1), or nil for
// anything it does not understand, which the resolver then treats as a lost packet.
func answerDNS(q []byte, records map[string][]netip.Addr) []byte {
	const (
		typeA    = 1
		typeAAAA = 28
	)
	if len(q) < 12 || binary.BigEndian.Uint16(q[4:6]) != 1 {
		return nil
	}
	var labels []string
	off := 12
	for {
		if off >= len(q) {
			return nil
		}
		l := int(q[off])
		off++
		if l == 0 {
			break
		}
		if l > 63 || off+l > len(q) {
			return nil
		}
		labels = append(labels, string(q[off:off+l]))
		off += l
	}
	if off+4 > len(q) {
		return nil
	}
	qtype := binary.BigEndian.Uint16(q[off : off+2])
	question := q[12 : off+4]

	addrs, known := records[strings.ToLower(strings.Join(labels, "."))]
	var answers [][]byte
	for _, a := range addrs {
		switch {
		case qtype == typeA && a.Is4():
			b := a.As4()
			answers = append(answers, b[:])
		case qtype == typeAAAA && a.Is6():
			b := a.As16()
			answers = append(answers, b[:])
		}
	}

	flags := uint16(0x8000 | 0x0400 | 0x0080) // response, authoritative, recursion available
	flags |= binary.BigEndian.Uint16(q[2:4]) & 0x0100
	if !known {
		flags |= 3 // NXDOMAIN
	}
	resp := binary.BigEndian.AppendUint16(nil, binary.BigEndian.Uint16(q[0:2]))
	resp = binary.BigEndian.AppendUint16(resp, flags)
	resp = binary.BigEndian.AppendUint16(resp, 1)
	resp = binary.BigEndian.AppendUint16(resp, uint16(len(answers)))
	resp = binary.BigEndian.AppendUint16(resp, 0)
	resp = binary.BigEndian.AppendUint16(resp, 0)
	resp = append(resp, question...)
	for _, rdata := range answers {
		resp = append(resp, 0xc0, 12) // name: pointer to the question's
		resp = binary.BigEndian.AppendUint16(resp, qtype)
		resp = binary.BigEndian.AppendUint16(resp, 1) // class IN
		resp = binary.BigEndian.AppendUint32(resp, 60)
		resp = binary.BigEndian.AppendUint16(resp, uint16(len(rdata)))
		resp = append(resp, rdata...)
	}
	return resp
}
