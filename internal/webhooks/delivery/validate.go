package delivery

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// ValidateURL checks a subscription URL when it is created, so that most mistakes surface
// as a 400 instead of as failed deliveries later. Messages complete a sentence whose
// subject is the URL ("must use https"), ready for a 400 detail's message.
//
// It cannot settle whether a hostname is public: DNS may answer differently at delivery
// time, so the Client checks every address again when it connects. Here only IP literals
// and the names RFC 6761 reserves for loopback are judged.
func ValidateURL(raw string, allowPrivate bool) error {
	if strings.TrimSpace(raw) == "" {
		return errors.New("must not be empty")
	}
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" {
		return errors.New("is not a valid URL")
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if !allowPrivate {
			return errors.New("must use https")
		}
	default:
		if allowPrivate {
			return errors.New("must use http or https")
		}
		return errors.New("must use https")
	}
	if u.User != nil {
		// Credentials in a URL end up in logs and in the subscription list; the signature is
		// how a receiver authenticates us.
		return errors.New("must not contain a user name or password")
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return errors.New("must not contain a fragment")
	}
	host := u.Hostname()
	if host == "" {
		return errors.New("must include a host")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return errors.New("must have a port between 1 and 65535")
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return errors.New("must have a port between 1 and 65535")
	}
	if allowPrivate {
		return nil
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		if !IsPublic(addr) {
			return fmt.Errorf("must not point to a private or reserved address (%s)", addr.WithZone(""))
		}
		return nil
	}
	if name := strings.TrimSuffix(strings.ToLower(host), "."); name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return fmt.Errorf("must not point to %s", host)
	}
	return nil
}
