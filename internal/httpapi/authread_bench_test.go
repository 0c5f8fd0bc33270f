package httpapi_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// BenchmarkAuthenticatedRead sends the two reads of the morning-rush target (GET /auth/me and
// a typical organization list, GET /orgs/{orgId}/sites) through the whole server: loopback HTTP,
// every middleware, the validator, the authorization's query on a real PostgreSQL. Its B/op and
// allocs/op (client and server together, the client's share constant) are the steady measure of
// what a change costs each request; the side-by-side throughput against the ceiling is in
// docs/benchmarks.md.
func BenchmarkAuthenticatedRead(b *testing.B) {
	env := apitest.New(b)
	owner, orgID := env.NewOwner("Bench Kitchens")
	for _, name := range []string{"Main", "Annex", "Café"} {
		env.Site(owner.AccessToken, orgID, name)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	for _, bc := range []struct{ name, path string }{
		{"me", env.URL + "/v1/auth/me"},
		{"sites", env.URL + "/v1/orgs/" + orgID.String() + "/sites"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req, err := http.NewRequest(http.MethodGet, bc.path, nil)
			if err != nil {
				b.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+owner.AccessToken)
			b.ReportAllocs()
			for b.Loop() {
				res, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, res.Body)
				_ = res.Body.Close()
				if res.StatusCode != http.StatusOK {
					b.Fatal(res.Status)
				}
			}
		})
	}
}
