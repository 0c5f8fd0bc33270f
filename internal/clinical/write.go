package clinical

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/principal"
	"github.com/sous-app/sous/internal/reqinfo"
)

// queue is a db.DBTX that queues statements into a pgx.Batch instead of running them, so the
// generated :exec queries of a whole ingest leave in one round trip (pipelined).
type queue struct{ b *pgx.Batch }

var errQueueExecOnly = errors.New("clinical: a queued batch only takes statements without results")

func (q queue) Exec(_ context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	q.b.Queue(sql, args...)
	return pgconn.CommandTag{}, nil
}

func (queue) Query(context.Context, string, ...any) (pgx.Rows, error) { return nil, errQueueExecOnly }

func (queue) QueryRow(context.Context, string, ...any) pgx.Row { return errRow{} }

type errRow struct{}

func (errRow) Scan(...any) error { return errQueueExecOnly }

// testHookFailWrite, when set (tests only), makes the write of a census fail if it returns true
// for the census's trail, to exercise the per-message savepoints.
var testHookFailWrite atomic.Pointer[func(trail []trailRow) bool]

// target says where a census is written and by whom.
type target struct {
	orgID, siteID uuid.UUID
	now           time.Time
	requestID     *string
	actorKind     string
	actorID       *uuid.UUID
}

func targetOf(ctx context.Context, orgID, siteID uuid.UUID, now time.Time) target {
	t := target{orgID: orgID, siteID: siteID, now: now, actorKind: "system"}
	if id := reqinfo.RequestID(ctx); id != "" {
		t.requestID = &id
	}
	if p, ok := principal.From(ctx); ok {
		switch p.Kind {
		case principal.User:
			t.actorKind, t.actorID = "user", &p.UserID
		case principal.APIKey:
			t.actorKind, t.actorID = "api_key", &p.APIKeyID
		}
	}
	return t
}

// queueWrites queues the census's rows into b: patients first (encounters reference them), then
// encounters, the trail and the code occurrences.
func (c *census) queueWrites(ctx context.Context, b *pgx.Batch, t target) error {
	q := db.New(queue{b})
	if len(c.touched) > 0 {
		rows := make([]patientRow, 0, len(c.touched))
		for _, ps := range c.touched {
			r := ps.row
			if ps.allergiesSet {
				r.Allergies = &ps.allergies
			}
			if ps.ordersSet {
				r.DietOrders = &ps.orders
			}
			rows = append(rows, r)
		}
		raw, err := json.Marshal(rows)
		if err != nil {
			return err
		}
		if err := q.UpsertPatients(ctx, db.UpsertPatientsParams{OrgID: t.orgID, SiteID: t.siteID, Rows: raw, Now: t.now}); err != nil {
			return err
		}
	}
	if len(c.encounters) > 0 {
		rows := make([]encounterRow, 0, len(c.encounters))
		for _, e := range c.encounters {
			rows = append(rows, e.row)
		}
		raw, err := json.Marshal(rows)
		if err != nil {
			return err
		}
		if err := q.UpsertEncounters(ctx, db.UpsertEncountersParams{OrgID: t.orgID, Rows: raw, Now: t.now}); err != nil {
			return err
		}
	}
	if len(c.trail) > 0 {
		raw, err := json.Marshal(c.trail)
		if err != nil {
			return err
		}
		if err := q.InsertHl7Messages(ctx, db.InsertHl7MessagesParams{
			OrgID: t.orgID, SiteID: t.siteID, ReceivedAt: t.now, RequestID: t.requestID,
			ActorKind: t.actorKind, ActorID: t.actorID, Rows: raw,
		}); err != nil {
			return err
		}
	}
	if len(c.codeOrder) > 0 {
		rows := make([]*codeRow, 0, len(c.codeOrder))
		for _, k := range c.codeOrder {
			rows = append(rows, c.codes[k])
		}
		raw, err := json.Marshal(rows)
		if err != nil {
			return err
		}
		if err := q.RecordCodeOccurrences(ctx, db.RecordCodeOccurrencesParams{OrgID: t.orgID, Rows: raw, Now: t.now}); err != nil {
			return err
		}
	}
	if hook := testHookFailWrite.Load(); hook != nil && (*hook)(c.trail) {
		b.Queue("SELECT 1 / 0")
	}
	return nil
}
