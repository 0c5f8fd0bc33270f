package sensors

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/metrics"
)

// A heavy temperature log is seconds of CPU and tens of megabytes however fast it is made, and
// any viewer may ask for one. An organization makes at most heavyLogSlots of them at once, over
// every replica: each slot is a transaction-scoped PostgreSQL advisory lock, taken in the
// transaction the log's queries run in and held until its body is written. Another heavy log
// waits for a slot up to heavyLogWait (PostgreSQL's lock_timeout), then is refused 429
// reports_busy. Light logs never wait: the bound is on the work, not the reading.
const (
	// heavyLogBuckets: more buckets (sensors × buckets in the period) than this is heavy. A
	// month at 15 minutes for 7 sensors is 20,832; a month hourly for 27 sensors 20,088.
	heavyLogBuckets = 20_000
	heavyLogSlots   = 2
	heavyLogWait    = 5 * time.Second
	// heavyLogRetryAfter is the Retry-After of a refusal: about one heavy log's time.
	heavyLogRetryAfter = 5 * time.Second
	// heavyLogWaiters bounds the heavy logs of all organizations waiting for a slot on this
	// replica: each waits holding a pooled connection, so a burst of them must not empty the pool
	// that every other request needs. Past it a log is refused at once, as after the wait.
	heavyLogWaiters = 4
)

// heavyWaitSeats are the places to wait for a slot (heavyLogWaiters).
var heavyWaitSeats = make(chan struct{}, heavyLogWaiters)

// busy is the refusal of a heavy log that found no slot.
func busy() error {
	heavyReports.WithLabelValues(heavyRefused).Inc()
	e := apierr.RateLimited(heavyLogRetryAfter).WithCode(apierr.CodeReportsBusy)
	e.Message = fmt.Sprintf("This organization already has %d large temperature logs in the making; "+
		"retry after the time in Retry-After, or ask for a coarser interval or a shorter period", heavyLogSlots)
	return e
}

// heavyWait overrides heavyLogWait in tests (0: the constant).
var heavyWait atomic.Int64

// heavyHeld, when set, is called (in tests) while a request holds a slot, before its log is read.
var heavyHeld atomic.Pointer[func(orgID uuid.UUID)]

// Metrics of the bound, every series made at start at 0.
var (
	heavyReportsRunning = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "sous_heavy_reports_running",
		Help: "Heavy temperature logs being made by this replica (each holds one of its organization's slots).",
	})
	heavyReportsWaiting = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "sous_heavy_reports_waiting",
		Help: "Heavy temperature logs on this replica waiting for a slot of their organization.",
	})
	heavyReports = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sous_heavy_reports_total",
		Help: "Heavy temperature logs asked for, by outcome: started at once, started after waiting, or refused 429 reports_busy.",
	}, []string{"outcome"})
)

// Outcomes of sous_heavy_reports_total.
const (
	heavyImmediate = "immediate"
	heavyQueued    = "queued"
	heavyRefused   = "refused"
)

func init() {
	metrics.Registry.MustRegister(heavyReportsRunning, heavyReportsWaiting, heavyReports)
	for _, o := range []string{heavyImmediate, heavyQueued, heavyRefused} {
		heavyReports.WithLabelValues(o)
	}
}

// slot is a held slot: its transaction, in which the log's queries run.
type slot struct {
	tx   pgx.Tx
	once sync.Once
}

// release ends the transaction, which frees the lock. It may be called more than once.
func (s *slot) release() {
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.tx.Rollback(ctx)
		heavyReportsRunning.Dec()
	})
}

// slotKey is the text hashed into a slot's advisory lock key.
func slotKey(orgID uuid.UUID, n int) string { return fmt.Sprintf("temperature_log:%s:%d", orgID, n) }

// heavySlot takes one of the organization's slots, trying each at once, then waiting on one
// (picked at random, so waiters spread over the slots) for up to the wait.
func (h *Handlers) heavySlot(ctx context.Context, orgID uuid.UUID) (*slot, error) {
	tx, err := h.pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*slot, error) {
		_ = tx.Rollback(context.WithoutCancel(ctx))
		return nil, err
	}
	held := func() (*slot, error) {
		heavyReportsRunning.Inc()
		s := &slot{tx: tx}
		// A response that is never written still frees its slot when the request ends.
		context.AfterFunc(ctx, s.release)
		if fn := heavyHeld.Load(); fn != nil {
			(*fn)(orgID)
		}
		return s, nil
	}
	for n := range heavyLogSlots {
		var ok bool
		if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0))`, slotKey(orgID, n)).Scan(&ok); err != nil {
			return fail(err)
		}
		if ok {
			heavyReports.WithLabelValues(heavyImmediate).Inc()
			return held()
		}
	}
	wait := heavyLogWait
	if v := heavyWait.Load(); v > 0 {
		wait = time.Duration(v)
	}
	heavyReportsWaiting.Inc() // before the seat, so the gauge never reads less than the seats taken
	select {
	case heavyWaitSeats <- struct{}{}:
	default:
		heavyReportsWaiting.Dec()
		return fail(busy())
	}
	_, err = tx.Exec(ctx, fmt.Sprintf("SET LOCAL lock_timeout = %d", max(wait.Milliseconds(), 1)))
	if err == nil {
		_, err = tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, slotKey(orgID, rand.IntN(heavyLogSlots)))
	}
	heavyReportsWaiting.Dec()
	<-heavyWaitSeats
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "55P03" { // lock_not_available: the wait ran out
		return fail(busy())
	}
	if err != nil {
		return fail(err)
	}
	// The rest of the transaction (the log's queries) runs without the lock wait bound.
	if _, err := tx.Exec(ctx, "SET LOCAL lock_timeout TO DEFAULT"); err != nil {
		return fail(err)
	}
	heavyReports.WithLabelValues(heavyQueued).Inc()
	return held()
}
