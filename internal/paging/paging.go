// Package paging holds the list conventions: ?limit= (default 50, max 500) and ?cursor=, with
// the next page's URL in a Link header.
package paging

import (
	"context"
	"fmt"
	"net/url"

	"github.com/sous-app/sous/internal/reqinfo"
)

const (
	DefaultLimit = 50
	MaxLimit     = 500
)

// Limit applies the default and the cap to a requested page size.
func Limit(requested *int) int {
	switch {
	case requested == nil || *requested <= 0:
		return DefaultLimit
	case *requested > MaxLimit:
		return MaxLimit
	default:
		return *requested
	}
}

// NextLink is the Link header value for the page after cursor:
// `<origin/path?query&cursor=…>; rel="next"`, absolute so clients can follow it as is.
func NextLink(ctx context.Context, path string, query url.Values, cursor string) string {
	return NextLinkAt(ctx, path, query, "cursor", cursor)
}

// NextLinkAt is NextLink for a list whose position parameter has another name (the event
// feed's `after`).
func NextLinkAt(ctx context.Context, path string, query url.Values, param, position string) string {
	q := url.Values{}
	for k, v := range query {
		q[k] = v
	}
	q.Set(param, position)
	return fmt.Sprintf(`<%s%s?%s>; rel="next"`, reqinfo.Origin(ctx), path, q.Encode())
}
