package realtime

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/metrics"
	"github.com/sous-app/sous/internal/pg"
)

// The ledger's timing. Variables so that tests can shorten them.
var (
	// leaseRenew is how often a replica renews its lease; leaseTTL how long a lease runs. A
	// crashed replica's sockets stop counting within leaseTTL, and a replica may miss two
	// renewals (a database failover) before its own stop counting.
	leaseRenew = 10 * time.Second
	leaseTTL   = 30 * time.Second
	// pruneGrace is how long past its lease a replica's rows are kept before any replica
	// deletes them; a replica that comes back later enters its sockets again.
	pruneGrace = time.Minute
	// ledgerTimeout bounds one admission or one heartbeat.
	ledgerTimeout = 10 * time.Second
)

// ledger keeps this replica's sockets in realtime_sockets, under a lease in realtime_replicas,
// so that PerDevice, PerOrg and PerAddress count the sockets of every replica.
//
// Why a leased table rather than advisory locks held by each socket's session: a lock per
// socket would pin a database connection per socket. Why a lease per replica rather than per
// row: one row's update per renewal, whatever the number of sockets. Admissions that one cap
// counts are serialized by transaction-scoped advisory locks (the organization's, then the
// client address's: always in that order, so two admissions cannot deadlock), which a crash
// releases with its transaction.
type ledger struct {
	pool    *pgxpool.Pool
	logger  *slog.Logger
	replica uuid.UUID
	limits  Limits
	// leased is set once a renewal committed and cleared when an admission or a heartbeat
	// fails: admissions renew the lease (entering the replica's row first) only while it is
	// clear, rather than each updating the one replica row and so taking turns on its lock.
	leased atomic.Bool

	mu    sync.Mutex
	local map[uuid.UUID]ledgerEntry // the sockets this replica entered
	// unremoved are sockets whose row could not be deleted (the database was unreachable);
	// each renewal tries again. Until then they count, as a socket whose close went unseen would.
	unremoved []socketKey
}

type socketKey struct{ org, id uuid.UUID }

type ledgerEntry struct {
	org, device uuid.UUID
	client      string
}

func newLedger(pool *pgxpool.Pool, logger *slog.Logger, limits Limits) *ledger {
	return &ledger{
		pool: pool, logger: logger, limits: limits,
		replica: uuid.Must(uuid.NewV7()),
		local:   make(map[uuid.UUID]ledgerEntry),
	}
}

// admit enters socket id of device (of org, from client) if the caps allow it. Beyond PerDevice
// the device's oldest sockets, wherever they are, are removed and told to close with
// StatusReplaced once this commits; beyond PerOrg or PerAddress it returns a *RefusedError and
// enters nothing.
func (l *ledger) admit(ctx context.Context, id, org, device uuid.UUID, client string) error {
	ctx, cancel := context.WithTimeout(ctx, ledgerTimeout)
	defer cancel()
	var replaced int
	renewed := !l.leased.Load()
	err := pg.InTx(ctx, l.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		if renewed {
			if err := l.renew(ctx, q); err != nil {
				return err
			}
		}
		if err := q.LockRealtimeKey(ctx, "org:"+org.String()); err != nil {
			return err
		}
		if client != "" {
			if err := q.LockRealtimeKey(ctx, "client:"+client); err != nil {
				return err
			}
		}
		mine, err := q.LiveDeviceSockets(ctx, db.LiveDeviceSocketsParams{OrgID: org, DeviceID: device})
		if err != nil {
			return err
		}
		var victims []db.LiveDeviceSocketsRow
		if n := len(mine) - l.limits.PerDevice + 1; n > 0 {
			victims = mine[:n]
		}
		inOrg, err := q.CountLiveOrgSockets(ctx, org)
		if err != nil {
			return err
		}
		if int(inOrg)-len(victims)+1 > l.limits.PerOrg {
			return &RefusedError{Reason: ReasonOrg, Limit: l.limits.PerOrg, RetryAfter: CapRetryAfter}
		}
		if client != "" {
			fromClient, err := q.CountLiveClientSockets(ctx, client)
			if err != nil {
				return err
			}
			freed := 0
			for _, v := range victims {
				if v.ClientKey == client {
					freed++
				}
			}
			if int(fromClient)-freed+1 > l.limits.PerAddress {
				return &RefusedError{Reason: ReasonAddress, Limit: l.limits.PerAddress, RetryAfter: CapRetryAfter}
			}
		}
		if len(victims) > 0 {
			ids := make([]uuid.UUID, len(victims))
			for i, v := range victims {
				ids[i] = v.ID
			}
			if err := q.DeleteRealtimeSockets(ctx, db.DeleteRealtimeSocketsParams{OrgID: org, Ids: ids}); err != nil {
				return err
			}
			if err := ReplaceSockets(ctx, tx, ids...); err != nil {
				return err
			}
		}
		replaced = len(victims)
		return q.InsertRealtimeSocket(ctx, db.InsertRealtimeSocketParams{
			ID: id, ReplicaID: l.replica, OrgID: org, DeviceID: device, ClientKey: client,
		})
	})
	if err != nil {
		if _, refused := AsRefused(err); !refused {
			l.leased.Store(false)
		}
		return err
	}
	if renewed {
		l.leased.Store(true)
	}
	metrics.RealtimeSocketsReplaced.Add(float64(replaced))
	l.mu.Lock()
	l.local[id] = ledgerEntry{org: org, device: device, client: client}
	l.mu.Unlock()
	return nil
}

// release removes socket id, once it has closed. A failure is kept and retried at the next
// renewal.
func (l *ledger) release(id uuid.UUID) {
	l.mu.Lock()
	e := l.local[id]
	delete(l.local, id)
	l.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), ledgerTimeout)
	defer cancel()
	if err := db.New(l.pool).DeleteRealtimeSockets(ctx, db.DeleteRealtimeSocketsParams{OrgID: e.org, Ids: []uuid.UUID{id}}); err != nil {
		l.mu.Lock()
		l.unremoved = append(l.unremoved, socketKey{org: e.org, id: id})
		l.mu.Unlock()
	}
}

// renew extends the replica's lease, entering its sockets again if its rows were pruned while
// it could not renew.
func (l *ledger) renew(ctx context.Context, q *db.Queries) error {
	created, err := q.RenewRealtimeReplica(ctx, db.RenewRealtimeReplicaParams{ID: l.replica, LeaseSeconds: leaseTTL.Seconds()})
	if err != nil || !created {
		return err
	}
	l.mu.Lock()
	p := db.RestoreRealtimeSocketsParams{ReplicaID: l.replica}
	for id, e := range l.local {
		p.Ids = append(p.Ids, id)
		p.OrgIds = append(p.OrgIds, e.org)
		p.DeviceIds = append(p.DeviceIds, e.device)
		p.ClientKeys = append(p.ClientKeys, e.client)
	}
	l.mu.Unlock()
	if len(p.Ids) == 0 {
		return nil
	}
	return q.RestoreRealtimeSockets(ctx, p)
}

// run renews the lease every leaseRenew until ctx ends, then removes the replica and with it
// every row it entered (its sockets are closing: the hub has stopped).
func (l *ledger) run(ctx context.Context) {
	t := time.NewTicker(leaseRenew)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), pingTimeout)
			defer cancel()
			if err := db.New(l.pool).DeleteRealtimeReplica(cctx, l.replica); err != nil {
				l.logger.Warn("realtime: could not remove this replica's sockets from the ledger; they expire with its lease", "err", err)
			}
			return
		case <-t.C:
		}
		if err := l.heartbeat(ctx); err != nil && ctx.Err() == nil {
			l.logger.Warn("realtime: renewing the socket ledger's lease failed; retrying", "err", err)
		}
	}
}

func (l *ledger) heartbeat(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, ledgerTimeout)
	defer cancel()
	l.mu.Lock()
	retry := slices.Clone(l.unremoved)
	l.mu.Unlock()
	err := pg.InTx(ctx, l.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		if err := l.renew(ctx, q); err != nil {
			return err
		}
		for _, k := range retry { // rare: only what an outage left behind
			if err := q.DeleteRealtimeSockets(ctx, db.DeleteRealtimeSocketsParams{OrgID: k.org, Ids: []uuid.UUID{k.id}}); err != nil {
				return err
			}
		}
		return q.PruneRealtimeReplicas(ctx, pruneGrace.Seconds())
	})
	if err != nil {
		l.leased.Store(false)
		return fmt.Errorf("realtime: ledger heartbeat: %w", err)
	}
	l.leased.Store(true)
	if len(retry) > 0 {
		l.mu.Lock()
		l.unremoved = slices.DeleteFunc(l.unremoved, func(k socketKey) bool { return slices.Contains(retry, k) })
		l.mu.Unlock()
	}
	return nil
}
