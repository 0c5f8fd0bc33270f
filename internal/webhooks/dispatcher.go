package webhooks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/events"
	"github.com/sous-app/sous/internal/periodic"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/plans"
	"github.com/sous-app/sous/internal/webhooks/delivery"
)

// Defaults of DispatcherOptions.
const (
	DefaultConcurrency  = 8
	DefaultPollInterval = 5 * time.Second
	DefaultBatchSize    = 100
	// Retention is how long delivery rows (the delivery list) and dispatched events are kept.
	Retention = 30 * 24 * time.Hour
	// pruneBatch bounds the events one prune statement deletes, so maintenance never holds
	// locks on a large slice of the outbox at once.
	pruneBatch = 5000
	// staleAfter closes deliveries whose sender stopped before recording an outcome; a delivery
	// takes at most delivery.DefaultTimeout plus a few statements.
	staleAfter       = 10 * time.Minute
	maintenanceEvery = time.Hour
	drainTimeout     = time.Minute
)

// DispatcherOptions configure a Dispatcher; Pool and Clock are required.
type DispatcherOptions struct {
	Pool   *pgxpool.Pool
	Clock  clock.Clock
	Logger *slog.Logger
	// AllowPrivate lets deliveries reach private and loopback addresses over plain HTTP
	// (SOUS_WEBHOOK_ALLOW_PRIVATE; development and tests only).
	AllowPrivate bool
	// Concurrency bounds the deliveries in flight in this process.
	Concurrency int
	// PollInterval is how often Run looks for work when no notification arrives.
	PollInterval time.Duration
	// BatchSize is how many events one dispatch transaction takes.
	BatchSize int
	// Client overrides the delivery client (tests).
	Client *delivery.Client
	// Resolver looks up a subscription's host name when its URL is set; nil is the system
	// resolver. Tests answer from a table instead of the network.
	Resolver delivery.Resolver
	// Listen, when set, configures the connection that LISTENs for new events instead of the
	// pool's config: a direct connection when the pool goes through a transaction pooler.
	Listen *pgx.ConnConfig
}

// Dispatcher delivers committed events to the subscriptions that want them. It keeps its queue
// in PostgreSQL, so any number of replicas may run one: events and deliveries are claimed with
// FOR UPDATE SKIP LOCKED, and a delivery is marked attempted in a committed transaction before
// its request is sent, so it is sent at most once.
//
// Work happens in two steps. Dispatch takes committed events not yet dispatched and queues one
// delivery per matching active subscription (events of organizations whose plan lacks webhooks
// are dispatched to nobody). Delivery claims queued deliveries one at a time, sends them with the
// SSRF-safe delivery client, and records each outcome on the delivery and its subscription.
type Dispatcher struct {
	pool         *pgxpool.Pool
	listenConfig *pgx.ConnConfig
	clock        clock.Clock
	logger       *slog.Logger
	client       *delivery.Client
	concurrency  int
	poll         time.Duration
	batch        int
	listenPID    atomic.Uint32
	resolver     delivery.Resolver
}

// NewDispatcher builds a Dispatcher; it does nothing until Run, Drain or the step methods run.
func NewDispatcher(o DispatcherOptions) *Dispatcher {
	d := &Dispatcher{
		pool: o.Pool, listenConfig: o.Listen, clock: o.Clock, logger: o.Logger, client: o.Client,
		concurrency: o.Concurrency, poll: o.PollInterval, batch: o.BatchSize, resolver: o.Resolver,
	}
	if d.resolver == nil {
		d.resolver = net.DefaultResolver
	}
	if d.logger == nil {
		d.logger = slog.Default()
	}
	if d.client == nil {
		d.client = delivery.New(delivery.Options{AllowPrivate: o.AllowPrivate})
	}
	if d.concurrency <= 0 {
		d.concurrency = DefaultConcurrency
	}
	if d.poll <= 0 {
		d.poll = DefaultPollInterval
	}
	if d.batch <= 0 {
		d.batch = DefaultBatchSize
	}
	return d
}

// Run dispatches and delivers until ctx is cancelled: at once, whenever an event commits (it
// LISTENs on events.Channel), and every PollInterval in case a notification was missed. On
// cancellation it stops claiming work, lets the deliveries in flight finish (each is bounded by
// the 8-second timeout), and returns.
func (d *Dispatcher) Run(ctx context.Context) error {
	wake := make(chan struct{}, 1)
	var listener sync.WaitGroup
	listener.Go(func() { d.listen(ctx, wake) })
	defer listener.Wait()

	ticker := time.NewTicker(d.poll)
	defer ticker.Stop()
	for {
		// Bounded, so that a round stuck on a database that stopped answering gives its pooled
		// connection back; what it left is taken up by the next round.
		dctx, cancel := context.WithTimeout(ctx, drainTimeout)
		if err := d.Drain(dctx); err != nil && ctx.Err() == nil {
			d.logger.Error("webhooks: dispatch failed", "err", err)
		}
		cancel()
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		case <-ticker.C:
		}
	}
}

// Tuning of the listener connection, as the realtime hub's (variables so that tests can shorten
// them). A notification is only seen when the server sends it, so a listener left on a primary
// that froze or vanished would hear nothing, and report nothing, until the operating system gave
// up on the connection; deliveries would wait for the poll. After listenIdleCheck without traffic
// the listener pings, and one that does not answer within listenPingTimeout is replaced.
var (
	listenIdleCheck      = 5 * time.Second
	listenPingTimeout    = 2 * time.Second
	listenConnectTimeout = 10 * time.Second
	listenMinBackoff     = time.Second
)

// listen holds a dedicated connection (outside the pool) LISTENing on events.Channel and signals
// wake for every notification, reconnecting after failures.
func (d *Dispatcher) listen(ctx context.Context, wake chan<- struct{}) {
	signal := func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	backoff := listenMinBackoff
	for ctx.Err() == nil {
		err := d.listenSession(ctx, signal, func() { backoff = listenMinBackoff })
		if ctx.Err() != nil {
			return
		}
		d.logger.Warn("webhooks: event listener disconnected; polling meanwhile", "err", err, "retry_in", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, time.Minute)
	}
}

// listenSession runs one listening connection until it fails or ctx ends.
func (d *Dispatcher) listenSession(ctx context.Context, signal, listening func()) error {
	cfg := d.pool.Config().ConnConfig.Copy()
	if d.listenConfig != nil {
		cfg = d.listenConfig.Copy()
	}
	// The idle check relies on a timed-out wait leaving the connection usable, which the
	// deadline handler guarantees.
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.DeadlineContextWatcherHandler{Conn: c.Conn()}
	}
	connectCtx, cancel := context.WithTimeout(ctx, listenConnectTimeout)
	conn, err := pgx.ConnectConfig(connectCtx, cfg)
	cancel()
	if err != nil {
		return err
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), listenPingTimeout)
		defer cancel()
		_ = conn.Close(closeCtx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{events.Channel}.Sanitize()); err != nil {
		return err
	}
	d.listenPID.Store(conn.PgConn().PID())
	defer d.listenPID.Store(0)
	listening()
	signal() // events committed while no one listened
	for {
		waitCtx, cancel := context.WithTimeout(ctx, listenIdleCheck)
		_, err := conn.WaitForNotification(waitCtx)
		timedOut := waitCtx.Err() != nil
		cancel()
		switch {
		case err == nil:
			signal()
		case ctx.Err() != nil:
			return nil
		case timedOut && !conn.IsClosed():
			pingCtx, cancel := context.WithTimeout(ctx, listenPingTimeout)
			err := conn.Ping(pingCtx)
			cancel()
			if err != nil && ctx.Err() == nil {
				return err
			}
		default:
			return err
		}
	}
}

// ListenerPID is the backend of the listening session, 0 while there is none (tests).
func (d *Dispatcher) ListenerPID() uint32 { return d.listenPID.Load() }

// Drain dispatches every committed event and sends every queued delivery, repeating until a
// round finds nothing: what tests call instead of waiting for Run.
func (d *Dispatcher) Drain(ctx context.Context) error {
	for {
		n, err := d.DispatchPending(ctx)
		if err != nil {
			return err
		}
		m, err := d.DeliverPending(ctx)
		if err != nil {
			return err
		}
		if n == 0 && m == 0 {
			return nil
		}
	}
}

// DispatchPending queues the deliveries of every committed, undispatched event and reports how
// many events it handled.
func (d *Dispatcher) DispatchPending(ctx context.Context) (int, error) {
	total := 0
	for {
		n, err := d.dispatchBatch(ctx)
		total += n
		if err != nil || n < d.batch {
			return total, err
		}
	}
}

func (d *Dispatcher) dispatchBatch(ctx context.Context) (int, error) {
	now := d.clock.Now()
	var n int
	err := pg.InQueries(ctx, d.pool, func(q *db.Queries) error {
		evs, err := q.ClaimUndispatchedEvents(ctx, int32(d.batch))
		if err != nil {
			return err
		}
		n = len(evs)
		if n == 0 {
			return nil
		}
		// A span only for a round that found work: idle polls would otherwise fill the traces.
		ctx, span := startDispatch(ctx, n)
		defer span.End()
		enabled := map[uuid.UUID]bool{}
		ids := make([]uuid.UUID, 0, n)
		for _, e := range evs {
			ids = append(ids, e.ID)
			on, seen := enabled[e.OrgID]
			if !seen {
				p, err := q.GetOrgPlan(ctx, e.OrgID)
				if err != nil {
					return fmt.Errorf("plan of %s: %w", e.OrgID, err)
				}
				on = plans.Effective(p.PlanTier, p.TrialEndsAt, now).Has(plans.Webhooks)
				enabled[e.OrgID] = on
			}
			if !on {
				continue
			}
			subs, err := q.MatchingWebhooks(ctx, db.MatchingWebhooksParams{OrgID: e.OrgID, Event: e.Name})
			if err != nil {
				return err
			}
			for _, sub := range subs {
				if err := q.QueueDelivery(ctx, db.QueueDeliveryParams{
					ID: uuid.Must(uuid.NewV7()), OrgID: e.OrgID, SubscriptionID: sub, EventID: e.ID, Event: e.Name, Now: now,
				}); err != nil {
					return err
				}
			}
		}
		return q.MarkEventsDispatched(ctx, db.MarkEventsDispatchedParams{Now: now, Ids: ids})
	})
	return n, err
}

// DeliverPending sends every queued delivery, at most Concurrency at a time, and reports how many
// it sent. Once ctx is cancelled it claims nothing more; deliveries already claimed finish.
func (d *Dispatcher) DeliverPending(ctx context.Context) (int, error) {
	var (
		wg    sync.WaitGroup
		sent  atomic.Int64
		mu    sync.Mutex
		first error
	)
	for range d.concurrency {
		wg.Go(func() {
			for ctx.Err() == nil {
				id, err := db.New(d.pool).ClaimDelivery(ctx, d.clock.Now())
				if pg.IsNoRows(err) {
					return
				}
				if err != nil {
					mu.Lock()
					first = cmpErr(first, err)
					mu.Unlock()
					return
				}
				if _, err := d.send(ctx, id); err != nil {
					d.logger.Error("webhooks: recording a delivery failed", "delivery", id, "err", err)
				}
				sent.Add(1)
			}
		})
	}
	wg.Wait()
	if first != nil && ctx.Err() != nil {
		first = nil // cancelled mid-claim: not a failure
	}
	return int(sent.Load()), first
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// send performs one claimed delivery and records its outcome. The request and the bookkeeping
// outlive ctx's cancellation: a claimed delivery is sent and recorded, or the server stopped.
func (d *Dispatcher) send(ctx context.Context, id uuid.UUID) (db.WebhookDelivery, error) {
	ctx = context.WithoutCancel(ctx)
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	w, err := db.New(d.pool).GetDeliveryWork(wctx, id)
	cancel()
	if err != nil {
		if pg.IsNoRows(err) {
			// The subscription was removed after the claim; its deliveries went with it.
			return db.WebhookDelivery{}, nil
		}
		return db.WebhookDelivery{}, err
	}
	sctx, span := startDelivery(ctx, w.Event)
	res := d.client.Deliver(sctx, w.Url, []byte(w.Secret), delivery.Envelope{
		ID: w.EventID, Event: w.Event, OrgID: w.OrgID, At: w.EventAt, Data: w.EventData,
	})
	observeDelivery(span, res)
	return d.record(ctx, w, res)
}

func (d *Dispatcher) record(ctx context.Context, w db.GetDeliveryWorkRow, res delivery.Result) (db.WebhookDelivery, error) {
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var errText *string
	if res.Error != "" {
		errText = &res.Error
	}
	attempted := d.clock.Now()
	if w.AttemptedAt != nil {
		attempted = *w.AttemptedAt
	}
	var row db.WebhookDelivery
	err := pg.InQueries(rctx, d.pool, func(q *db.Queries) error {
		var err error
		row, err = q.FinishDelivery(rctx, db.FinishDeliveryParams{
			ID: w.ID, Now: d.clock.Now(), Status: int32(res.Status), Delivered: res.Delivered,
			DurationMs: int32(res.Duration.Milliseconds()), Error: errText,
		})
		if err != nil {
			return err
		}
		return q.RecordWebhookAttempt(rctx, db.RecordWebhookAttemptParams{
			OrgID: w.OrgID, ID: w.SubscriptionID, AttemptedAt: attempted, Status: int32(res.Status), Delivered: res.Delivered,
		})
	})
	if pg.IsNoRows(err) {
		return db.WebhookDelivery{}, nil // removed with its subscription meanwhile
	}
	return row, err
}

// Maintain closes deliveries whose sender stopped before recording the outcome (they are never
// sent again), and removes delivery rows and dispatched events older than Retention: the events
// table is an outbox, and without pruning it would keep every change ever made. Undispatched
// events are kept whatever their age; they are still to be delivered. MaintenanceTask runs it
// hourly on every replica (the statements are idempotent, so replicas running them together is
// harmless).
func (d *Dispatcher) Maintain(ctx context.Context) error {
	now := d.clock.Now()
	before := now.Add(-Retention)
	q := db.New(d.pool)
	if _, err := q.AbandonStaleDeliveries(ctx, db.AbandonStaleDeliveriesParams{Now: now, StaleBefore: now.Add(-staleAfter)}); err != nil {
		return err
	}
	if _, err := q.PruneDeliveries(ctx, before); err != nil {
		return err
	}
	for {
		n, err := q.PruneEvents(ctx, db.PruneEventsParams{Before: before, MaxRows: pruneBatch})
		if err != nil || n < pruneBatch {
			return err
		}
	}
}

// MaintenanceTask is Maintain as a periodic task.
func (d *Dispatcher) MaintenanceTask() periodic.Task {
	return periodic.Task{Name: "webhooks: maintenance", Every: maintenanceEvery, Run: d.Maintain}
}

// SendTest queues and sends one webhook.test event to subscription sub of orgID, whatever its
// filter, and returns the finished delivery. The event, its delivery row (already claimed) and
// the audit row commit together before the request is sent.
func (d *Dispatcher) SendTest(ctx context.Context, orgID, sub uuid.UUID, beforeCommit func(q *db.Queries) error) (db.WebhookDelivery, error) {
	now := d.clock.Now()
	var claimed db.WebhookDelivery
	err := pg.InQueries(ctx, d.pool, func(q *db.Queries) error {
		if _, err := q.GetWebhook(ctx, db.GetWebhookParams{OrgID: orgID, ID: sub}); err != nil {
			return notFound(err)
		}
		eventID, err := events.Publish(ctx, q, orgID, events.WebhookTest, now, map[string]string{"subscriptionId": sub.String()})
		if err != nil {
			return err
		}
		if err := q.MarkEventsDispatched(ctx, db.MarkEventsDispatchedParams{Now: now, Ids: []uuid.UUID{eventID}}); err != nil {
			return err
		}
		claimed, err = q.InsertClaimedDelivery(ctx, db.InsertClaimedDeliveryParams{
			ID: uuid.Must(uuid.NewV7()), OrgID: orgID, SubscriptionID: sub, EventID: eventID, Event: events.WebhookTest, Now: now,
		})
		if err != nil {
			return err
		}
		if beforeCommit != nil {
			return beforeCommit(q)
		}
		return nil
	})
	if err != nil {
		return db.WebhookDelivery{}, err
	}
	row, err := d.send(ctx, claimed.ID)
	if err != nil {
		return db.WebhookDelivery{}, err
	}
	if row.ID == uuid.Nil {
		return db.WebhookDelivery{}, errors.New("webhooks: the subscription was removed during its test delivery")
	}
	return row, nil
}
