package delivery

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"strings"
)

// ValidateURL checks a subscription URL when it is created, so that most mistakes surface
// as a 400 instead of as failed deliveries later. Messages complete a sentence whose
// subject is the URL ("must use https"), ready for a 400 detail's message.
//
// It makes no lookup (CheckURL does): here addresses in any form the resolver reads (ParseHost)
// and the names RFC 6761 reserves for loopback are judged. DNS may answer differently at
// delivery time anyway, so the Client checks every address again when it connects.
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
		_, err := ParseHost(host)
		return err
	}
	return CheckHost(context.Background(), nil, host)
}

// CheckURL is ValidateURL plus, for a host name, a lookup through r: a name that does not
// resolve, or resolves to any address that is not public, is refused as well. It is what a
// subscription's URL must pass when it is created or changed (the dialer checks the addresses
// again at every connection, since DNS may answer differently by then). A lookup that could not
// be completed is a *LookupError.
func CheckURL(ctx context.Context, raw string, allowPrivate bool, r Resolver) error {
	if err := ValidateURL(raw, allowPrivate); err != nil || allowPrivate {
		return err
	}
	u, _ := url.Parse(raw) // ValidateURL parsed it
	return CheckHost(ctx, r, u.Hostname())
}
