package reqinfo

import (
	"context"
	"strings"
)

// maxUserAgent bounds what is kept of a User-Agent header (security events store it).
const maxUserAgent = 512

// WithUserAgent records the request's User-Agent header.
func WithUserAgent(ctx context.Context, ua string) context.Context {
	return with(ctx, func(f *Facts) { f.UserAgent = ua })
}

// UserAgent is the request's User-Agent, cut to 512 bytes and made storable: invalid UTF-8 and
// NUL bytes, which a client may send and PostgreSQL refuses in text, are replaced. "" outside a
// request or when none was sent.
func UserAgent(ctx context.Context) string {
	ua := facts(ctx).UserAgent
	if len(ua) > maxUserAgent {
		ua = ua[:maxUserAgent]
	}
	ua = strings.ToValidUTF8(ua, "\uFFFD")
	return strings.ReplaceAll(ua, "\x00", "\uFFFD")
}
