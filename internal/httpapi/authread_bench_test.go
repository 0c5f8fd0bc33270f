package httpapi_test

import (
	"io"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// BenchmarkAuthenticatedRead sends the two reads of the morning-rush target (GET /auth/me and
// a typical organization list, GET /orgs/{orgId}/sites) through the whole server: loopback HTTP,
// every middleware, the validator, the authorization's query on a real PostgreSQL. Its B/op and
// allocs/op (client and server together, the client's share constant) are the steady measure of
// what a change costs each request; the side-by-side throughput against the ceiling is in
// docs/benchmarks.md. cpu-µs/op is the process's CPU time (user and system, client and server)
// per request: on a shared machine far steadier than ns/op, which is mostly the round trips.
func BenchmarkAuthenticatedRead(b *testing.B) {
	env := apitest.New(b)
	owner, orgID := env.NewOwner("Bench Kitchens")
	for _, name := range []string{"Main", "Annex", "Café"} {
		env.Site(owner.AccessToken, orgID, name)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
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
			// 32 clients at once on two processors, as the closed loop of docs/benchmarks.md.
			b.SetParallelism(16)
			cpu0 := processCPU(b)
			b.RunParallel(func(pb *testing.PB) {
				req := req.Clone(req.Context())
				for pb.Next() {
					res, err := client.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					_, _ = io.Copy(io.Discard, res.Body)
					_ = res.Body.Close()
					if res.StatusCode != http.StatusOK {
						b.Error(res.Status)
						return
					}
				}
			})
			b.ReportMetric(float64((processCPU(b)-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

// processCPU is the CPU time the process has used so far, user and system.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
