// Package paging holds the list conventions: ?limit= (default 50, max 500) and ?cursor=, with
// the next page's URL in a Link header. Every list handler pages through it:
//
//	limit := paging.Limit(req.Params.Limit)
//	rows, err := q.ListThings(ctx, db.ListThingsParams{…, MaxRows: paging.Fetch(limit)})
//	rows, link := paging.Page(ctx, rows, limit, func(last db.Thing) any { return cursor{At: last.At, ID: last.ID} })
package paging

import (
	"context"
	"fmt"

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

// Fetch is how many rows to ask a keyset query for: one more than the page, so that a full page
// knows whether another follows.
func Fetch(limit int) int32 { return int32(limit + 1) }

// Page trims rows, fetched with Fetch(limit), to the page and returns the Link header of the
// next page, nil on the last one. The link is the request's own URL, filters and limit kept,
// with `cursor` set to the encoded position of the page's last row.
func Page[R any](ctx context.Context, rows []R, limit int, cursor func(last R) any) ([]R, *string) {
	return PageAt(ctx, rows, limit, "cursor", func(last R) string { return EncodeCursor(cursor(last)) })
}

// PageAt is Page for a list whose position parameter has another name and a plain value (the
// event feed's `after=<event id>`).
func PageAt[R any](ctx context.Context, rows []R, limit int, param string, position func(last R) string) ([]R, *string) {
	rows, more := Trim(rows, limit)
	if !more {
		return rows, nil
	}
	link := nextLink(ctx, param, position(rows[len(rows)-1]))
	return rows, &link
}

// Trim cuts rows, fetched with Fetch(limit), to the page and says whether more follow: for a
// list whose last position is known only once the page is built (then Next gives the link).
func Trim[R any](rows []R, limit int) ([]R, bool) {
	if len(rows) <= limit {
		return rows, false
	}
	return rows[:limit], true
}

// Next is the Link header of the page after position (a cursor value, encoded here).
func Next(ctx context.Context, position any) *string {
	link := nextLink(ctx, "cursor", EncodeCursor(position))
	return &link
}

// nextLink is `<origin/path?query>; rel="next"` for the request's URL with param set to
// position, absolute under the configured public origin so clients can follow it as is.
func nextLink(ctx context.Context, param, position string) string {
	u := reqinfo.URL(ctx)
	q := u.Query()
	q.Set(param, position)
	return fmt.Sprintf(`<%s%s?%s>; rel="next"`, reqinfo.Origin(ctx), u.EscapedPath(), q.Encode())
}
