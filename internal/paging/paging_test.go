package paging_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/sous-app/sous/internal/paging"
	"github.com/sous-app/sous/internal/reqinfo"
)

func request(raw string) context.Context {
	u, err := url.Parse(raw)
	if err != nil {
		panic(err)
	}
	return reqinfo.WithURL(reqinfo.WithOrigin(context.Background(), "https://api.example.com"), u)
}

func TestPageTrimsAndLinksFromTheRequest(t *testing.T) {
	ctx := request("/v1/orgs/o/tasks?siteId=s&limit=2&cursor=old")
	at := func(last int) any { return map[string]int{"n": last} }
	for _, c := range []struct {
		rows     []int
		wantRows int
		wantLink string
	}{
		{[]int{1}, 1, ""},
		{[]int{1, 2}, 2, ""},
		{[]int{1, 2, 3}, 2, `<https://api.example.com/v1/orgs/o/tasks?cursor=` + paging.EncodeCursor(map[string]int{"n": 2}) + `&limit=2&siteId=s>; rel="next"`},
	} {
		rows, link := paging.Page(ctx, c.rows, 2, at)
		got := ""
		if link != nil {
			got = *link
		}
		if len(rows) != c.wantRows || got != c.wantLink {
			t.Errorf("%v: %v, %q; want %d rows, %q", c.rows, rows, got, c.wantRows, c.wantLink)
		}
	}
}

func TestPageAtNamesItsPosition(t *testing.T) {
	ctx := request("/v1/orgs/o/events?types=a%2Cb")
	rows, link := paging.PageAt(ctx, []string{"e1", "e2"}, 1, "after", func(last string) string { return last })
	if len(rows) != 1 || link == nil || *link != `<https://api.example.com/v1/orgs/o/events?after=e1&types=a%2Cb>; rel="next"` {
		t.Fatalf("%v %v", rows, *link)
	}
}

func TestLimitAndFetch(t *testing.T) {
	big, neg := 900, -1
	if paging.Limit(nil) != 50 || paging.Limit(&big) != 500 || paging.Limit(&neg) != 50 || paging.Fetch(50) != 51 {
		t.Fatal("limit defaults")
	}
}
