package httpapi

import (
	"context"
	"math"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/sync/semaphore"

	"github.com/sous-app/sous/internal/apierr"
)

// bodyMemoryMultiple is how many bytes of memory one byte of a large body may take while it is
// read, checked and handled: the bounds measured and documented per operation in
// docs/reference/http-conventions.md ("Memory per body"), which the body-memory tests of each
// domain hold. Every operation whose body limit is above the server's default must be here
// (TestEveryLargeBodyHasAMemoryMultiple); defaultBodyMemoryMultiple is the documented 6×.
var bodyMemoryMultiple = map[string]int64{
	"uploadMedia":       6,
	"addTaskPhoto":      6,
	"addWorkOrderPhoto": 6,
	"importVendorGuide": 13,
	"ingestFhir":        14,
	"ingestHl7":         36,
}

const defaultBodyMemoryMultiple = 6

// bodyBudgetWait is how long a large body waits for the replica's memory before it is refused
// with 503: a burst of large bodies queues through it, a flood is told to come back.
const bodyBudgetWait = 5 * time.Second

// bodyBudget admits the large bodies (those over the server's default limit) against a share of
// the replica's memory, so that valid bodies, each within its limits, cannot together take more
// memory than the process has: a body weighs its bytes (as declared, else its limit) times its
// operation's multiple. A body heavier than the whole budget is weighed as the whole budget: it
// runs alone. Small bodies (the default limit and below) are not weighed: their cost is bounded
// by the limits on concurrent requests.
type bodyBudget struct {
	sem   *semaphore.Weighted
	size  int64
	wait  time.Duration // bodyBudgetWait
	large map[routeKey]largeBody
}

// largeBody is an operation whose body limit is above the server's default.
type largeBody struct{ limit, mult int64 }

// newBodyBudget sizes the budget: size when given (SOUS_BODY_MEMORY), else half the process's
// soft memory limit (GOMEMLIMIT, or the one `sous serve` sets), else 1 GiB.
func newBodyBudget(ops operations, limits *bodyLimits, size int64) *bodyBudget {
	if size <= 0 {
		size = 1 << 30
		if soft := debug.SetMemoryLimit(-1); soft > 0 && soft < math.MaxInt64 {
			size = soft / 2
		}
	}
	b := &bodyBudget{sem: semaphore.NewWeighted(size), size: size, wait: bodyBudgetWait, large: map[routeKey]largeBody{}}
	for key, n := range limits.perOp {
		if n <= limits.def {
			continue
		}
		l := largeBody{limit: n, mult: defaultBodyMemoryMultiple}
		if op := ops[key]; op != nil {
			if m, ok := bodyMemoryMultiple[op.ID]; ok {
				l.mult = m
			}
		}
		b.large[key] = l
	}
	return b
}

// weight is what a request's body holds of the budget; 0 for a body that is not weighed.
func (b *bodyBudget) weight(key routeKey, declared int64) int64 {
	l, ok := b.large[key]
	if !ok {
		return 0
	}
	n := l.limit
	if declared >= 0 && declared < l.limit {
		n = declared
	}
	return min(n*l.mult, b.size)
}

func (b *bodyBudget) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.Body == nil || req.Body == http.NoBody {
			return next(c)
		}
		w := b.weight(opKey(req.Method, c.Path()), req.ContentLength)
		if w == 0 {
			return next(c)
		}
		ctx, cancel := context.WithTimeout(req.Context(), b.wait)
		err := b.sem.Acquire(ctx, w)
		cancel()
		if err != nil {
			if req.Context().Err() != nil {
				return apierr.Unavailable(apierr.CodeServiceUnavailable,
					"The request ran out of time waiting for memory to read its body; retry shortly", b.wait)
			}
			return apierr.Unavailable(apierr.CodeServiceBusy,
				"The server is handling as many large bodies as its memory allows; retry shortly", b.wait)
		}
		defer b.sem.Release(w)
		return next(c)
	}
}
