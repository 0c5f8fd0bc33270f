package metrics

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

// poolCollector reads pgxpool.Stat at each scrape: the pool keeps its own counters, so nothing is
// counted on the query path. A process's pools (the main pool and the plan-stable lookups' pool,
// see pg.Lookups) are reported as one: the connections the process holds on the database.
type poolCollector struct {
	pools       []*pgxpool.Pool
	connections *prometheus.Desc
	max         *prometheus.Desc
	acquire     *prometheus.Desc
}

// RegisterPool adds the database pools' gauges (sous_db_pool_*, the pools summed) to the registry;
// the returned function removes them (a process serves one set, a test suite many one after the
// other).
func RegisterPool(pools ...*pgxpool.Pool) (unregister func(), err error) {
	return register(newPoolCollector(pools))
}

func register(c prometheus.Collector) (func(), error) {
	if err := Registry.Register(c); err != nil {
		return nil, err
	}
	return func() { Registry.Unregister(c) }, nil
}

func newPoolCollector(pools []*pgxpool.Pool) *poolCollector {
	return &poolCollector{
		pools: pools,
		connections: prometheus.NewDesc("sous_db_pool_connections",
			"Database pool connections by state (acquired, idle, constructing).", []string{"state"}, nil),
		max: prometheus.NewDesc("sous_db_pool_max_connections",
			"The database pool's maximum size.", nil, nil),
		acquire: prometheus.NewDesc("sous_db_pool_acquire_duration_seconds",
			"Time spent acquiring database connections from the pool: exact count and sum (pgxpool keeps no distribution, so only the +Inf bucket).", nil, nil),
	}
}

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.connections
	ch <- c.max
	ch <- c.acquire
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	var acquired, idle, constructing, maxConns, acquires int64
	var waited time.Duration
	for _, p := range c.pools {
		s := p.Stat()
		acquired += int64(s.AcquiredConns())
		idle += int64(s.IdleConns())
		constructing += int64(s.ConstructingConns())
		maxConns += int64(s.MaxConns())
		acquires += s.AcquireCount()
		waited += s.AcquireDuration()
	}
	ch <- prometheus.MustNewConstMetric(c.connections, prometheus.GaugeValue, float64(acquired), "acquired")
	ch <- prometheus.MustNewConstMetric(c.connections, prometheus.GaugeValue, float64(idle), "idle")
	ch <- prometheus.MustNewConstMetric(c.connections, prometheus.GaugeValue, float64(constructing), "constructing")
	ch <- prometheus.MustNewConstMetric(c.max, prometheus.GaugeValue, float64(maxConns))

	// pgxpool keeps the running count and total, not a distribution: the histogram carries
	// them exactly (rate(_sum)/rate(_count) is the mean wait) with the +Inf bucket only.
	ch <- prometheus.MustNewConstHistogram(c.acquire, uint64(acquires), waited.Seconds(), nil)
}

// OutboxBacklog reports the webhook outbox: events and deliveries not yet handled, and the age
// in seconds of the oldest of them (0 when none).
type OutboxBacklog func(ctx context.Context) (pending int64, oldestAge float64, err error)

// outboxCollector asks the database at scrape time, bounded by a short timeout: the backlog is
// the whole cluster's, the same on every replica.
type outboxCollector struct {
	read    OutboxBacklog
	logger  *slog.Logger
	pending *prometheus.Desc
	oldest  *prometheus.Desc
}

// outboxTimeout bounds the scrape's query, well under a scrape timeout.
const outboxTimeout = 2 * time.Second

// RegisterOutbox adds sous_outbox_pending and sous_outbox_oldest_age_seconds, read with read;
// the returned function removes them.
func RegisterOutbox(read OutboxBacklog, logger *slog.Logger) (unregister func(), err error) {
	if logger == nil {
		logger = slog.Default()
	}
	return register(&outboxCollector{
		read: read, logger: logger,
		pending: prometheus.NewDesc("sous_outbox_pending",
			"Webhook outbox entries not yet handled: committed events not dispatched plus deliveries not yet attempted.", nil, nil),
		oldest: prometheus.NewDesc("sous_outbox_oldest_age_seconds",
			"Age of the oldest unhandled outbox entry (0 when the outbox is empty).", nil, nil),
	})
}

func (c *outboxCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.pending
	ch <- c.oldest
}

func (c *outboxCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), outboxTimeout)
	defer cancel()
	pending, age, err := c.read(ctx)
	if err != nil {
		// No sample rather than a wrong one: the series goes absent, which the rules treat as
		// unknown, and the readiness alert names the database.
		c.logger.Warn("metrics: reading the webhook outbox failed", "err", err.Error())
		return
	}
	ch <- prometheus.MustNewConstMetric(c.pending, prometheus.GaugeValue, float64(pending))
	ch <- prometheus.MustNewConstMetric(c.oldest, prometheus.GaugeValue, age)
}
