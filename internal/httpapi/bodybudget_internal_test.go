package httpapi

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/config"
)

// Large bodies share the replica's memory budget: with room for two FHIR-sized bodies, eight
// sent at once run two at a time; those that cannot get in within the wait are refused with
// 503 service_busy and Retry-After, and the budget is whole again afterwards. Small bodies and
// bodyless requests never wait.
func TestLargeBodiesShareTheMemoryBudget(t *testing.T) {
	t.Parallel()
	ops := operations{
		opKey("POST", "/v1/orgs/:orgId/fhir"):    {ID: "ingestFhir", BodyLimit: "8M"},
		opKey("POST", "/v1/orgs/:orgId/adt/hl7"): {ID: "ingestHl7"},
		opKey("POST", "/v1/orgs"):                {ID: "createOrg"},
	}
	limits, err := newBodyLimits(ops, "1M", "4M")
	if err != nil {
		t.Fatal(err)
	}
	// A body of 1 MB declared weighs 14 MB (FHIR's multiple); the budget holds two.
	b := newBodyBudget(ops, limits, 28_000_000)
	if w := b.weight(opKey("POST", "/v1/orgs/:orgId/fhir"), 1_000_000); w != 14_000_000 {
		t.Fatalf("a 1 MB FHIR body weighs %d", w)
	}
	if w := b.weight(opKey("POST", "/v1/orgs/:orgId/adt/hl7"), -1); w != 28_000_000 {
		t.Fatalf("an HL7 body of unknown length weighs %d, want the whole budget (4 MB × 36 capped)", w)
	}
	if w := b.weight(opKey("POST", "/v1/orgs"), 900_000); w != 0 {
		t.Fatalf("a small body weighs %d", w)
	}

	release := make(chan struct{})
	var inside, most atomic.Int32
	admitted := make(chan struct{}, 8)
	handler := b.middleware(func(c echo.Context) error {
		n := inside.Add(1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		admitted <- struct{}{}
		<-release
		inside.Add(-1)
		return nil
	})
	e := echo.New()
	call := func(route string, size int) error {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(strings.Repeat("x", size)))
		c := e.NewContext(req, httptest.NewRecorder())
		c.SetPath(route)
		return handler(c)
	}

	// Eight large bodies at once: two get in; the others wait. Released after the first two are
	// in, the waiting ones go through two at a time.
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range 8 {
		wg.Go(func() { errs[i] = call("/v1/orgs/:orgId/fhir", 1_000_000) })
	}
	<-admitted
	<-admitted
	// A small body and a bodyless request pass while the budget is full.
	small := b.middleware(func(echo.Context) error { return nil })
	for _, size := range []int{900_000, 0} {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(strings.Repeat("x", size)))
		if size == 0 {
			req.Body = http.NoBody
		}
		c := e.NewContext(req, httptest.NewRecorder())
		c.SetPath("/v1/orgs")
		if err := small(c); err != nil {
			t.Fatalf("a small body waited: %v", err)
		}
	}
	close(release)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("body %d: %v", i, err)
		}
	}
	if m := most.Load(); m != 2 {
		t.Fatalf("%d large bodies inside at once, want 2", m)
	}

	// Past the wait: refused with 503 service_busy and Retry-After; nothing stays held.
	b.wait = 20 * time.Millisecond
	hold, entered := make(chan struct{}), make(chan struct{}, 2)
	holding := b.middleware(func(echo.Context) error { entered <- struct{}{}; <-hold; return nil })
	run := func(h echo.HandlerFunc) error {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(strings.Repeat("x", 1_000_000)))
		c := e.NewContext(req, httptest.NewRecorder())
		c.SetPath("/v1/orgs/:orgId/fhir")
		return h(c)
	}
	var held sync.WaitGroup
	for range 2 {
		held.Go(func() { _ = run(holding) })
	}
	<-entered
	<-entered
	err = run(b.middleware(func(echo.Context) error { t.Error("a third body got in"); return nil }))
	var ae *apierr.Error
	if !errors.As(err, &ae) || ae.Code != apierr.CodeServiceBusy || ae.Kind != apierr.KindUnavailable || ae.RetryAfterSeconds() < 1 {
		t.Fatalf("past the budget: %v", err)
	}
	close(hold)
	held.Wait()
	if !b.sem.TryAcquire(b.size) {
		t.Fatal("the budget is not whole after every body finished")
	}
	b.sem.Release(b.size)
}

// Every operation whose body limit is above the default has its documented memory multiple.
func TestEveryLargeBodyHasAMemoryMultiple(t *testing.T) {
	t.Parallel()
	doc, err := SharedSpec()
	if err != nil {
		t.Fatal(err)
	}
	routing := *doc
	ops := indexOperations(&routing)
	limits, err := newBodyLimits(ops, "1M", config.DefaultHL7BodyLimit)
	if err != nil {
		t.Fatal(err)
	}
	var large int
	for key, n := range limits.perOp {
		if n <= limits.def {
			continue
		}
		large++
		if _, ok := bodyMemoryMultiple[ops[key].ID]; !ok {
			t.Errorf("%s takes %d bytes and has no memory multiple in bodyMemoryMultiple", ops[key].ID, n)
		}
	}
	if large == 0 {
		t.Fatal("no operation takes a body over the default limit")
	}
}
