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

// queueWrites queues the census's changes into b: patients first (encounters reference them),
// then encounters, the trail and the code occurrences. Arrays travel in binary, one element per
// row, so a batch of a hundred messages is four statements and nothing to parse but the JSON
// documents.
func (c *census) queueWrites(ctx context.Context, b *pgx.Batch, t target) error {
	q := db.New(queue{b})
	if n := len(c.touched); n > 0 {
		p := db.UpsertPatientsParams{
			OrgID: t.orgID, SiteID: t.siteID, Now: t.now, Ids: make([]uuid.UUID, n), Mrns: make([]string, n),
			MrnSources: make([]string, n), MrnAuthorities: make([]string, n), FamilyNames: make([]string, n),
			GivenNames: make([]string, n), MiddleNames: make([]string, n), BirthDates: make([]string, n),
			Sexes: make([]string, n), EncounterIds: make([]uuid.UUID, n), Units: make([]string, n),
			Rooms: make([]string, n), Beds: make([]string, n), AdmittedAts: make([]time.Time, n),
			Allergies: make([]string, n), DietOrders: make([]string, n),
		}
		for i, ps := range c.touched {
			r := &ps.row
			p.Ids[i], p.Mrns[i], p.MrnSources[i], p.MrnAuthorities[i] = r.ID, r.MRN, r.MRNSource, r.MRNAuthority
			p.FamilyNames[i], p.GivenNames[i], p.MiddleNames[i] = r.FamilyName, r.GivenName, r.MiddleName
			p.BirthDates[i], p.Sexes[i], p.Units[i], p.Rooms[i], p.Beds[i] = r.BirthDate, r.Sex, r.Unit, r.Room, r.Bed
			if r.EncounterID != nil {
				p.EncounterIds[i] = *r.EncounterID
			}
			if r.AdmittedAt != nil {
				p.AdmittedAts[i] = *r.AdmittedAt
			}
			if ps.allergiesSet {
				raw, err := json.Marshal(ps.allergies)
				if err != nil {
					return err
				}
				p.Allergies[i] = string(raw)
			}
			if ps.ordersSet {
				raw, err := json.Marshal(ps.orders)
				if err != nil {
					return err
				}
				p.DietOrders[i] = string(raw)
			}
		}
		if err := q.UpsertPatients(ctx, p); err != nil {
			return err
		}
	}
	if n := len(c.encounters); n > 0 {
		p := db.UpsertEncountersParams{
			OrgID: t.orgID, Now: t.now, Ids: make([]uuid.UUID, n), PatientIds: make([]uuid.UUID, n),
			VisitNumbers: make([]string, n), PatientClasses: make([]string, n), AdmittedAts: make([]time.Time, n),
			DischargedAts: make([]time.Time, n), Units: make([]string, n), Rooms: make([]string, n), Beds: make([]string, n),
		}
		for i, e := range c.encounters {
			r := &e.row
			p.Ids[i], p.PatientIds[i], p.VisitNumbers[i], p.PatientClasses[i] = r.ID, r.PatientID, r.VisitNumber, r.PatientClass
			p.AdmittedAts[i], p.Units[i], p.Rooms[i], p.Beds[i] = r.AdmittedAt, r.Unit, r.Room, r.Bed
			if r.DischargedAt != nil {
				p.DischargedAts[i] = *r.DischargedAt
			}
		}
		if err := q.UpsertEncounters(ctx, p); err != nil {
			return err
		}
	}
	if n := len(c.trail); n > 0 {
		p := db.InsertHl7MessagesParams{
			OrgID: t.orgID, SiteID: t.siteID, ReceivedAt: t.now, RequestID: t.requestID, ActorKind: t.actorKind,
			ActorID: t.actorID, Ids: make([]uuid.UUID, n), BatchIndexes: make([]int32, n), ControlIds: make([]string, n),
			MessageTypes: make([]string, n), Outcomes: make([]string, n), Actions: make([]string, n),
			Reasons: make([]string, n), Mrns: make([]string, n), PatientIds: make([]uuid.UUID, n),
			EncounterIds: make([]uuid.UUID, n), EventAts: make([]time.Time, n), Units: make([]string, n),
			Rooms: make([]string, n), Beds: make([]string, n), Raws: make([]string, n),
		}
		for i := range c.trail {
			r := &c.trail[i]
			p.Ids[i], p.BatchIndexes[i], p.ControlIds[i], p.MessageTypes[i] = r.ID, int32(r.BatchIndex), r.ControlID, r.MessageType
			p.Outcomes[i], p.Actions[i], p.Reasons[i], p.Mrns[i] = r.Outcome, r.Action, r.Reason, r.MRN
			p.PatientIds[i], p.EncounterIds[i], p.EventAts[i] = r.PatientID, r.EncounterID, r.EventAt
			p.Units[i], p.Rooms[i], p.Beds[i], p.Raws[i] = r.Unit, r.Room, r.Bed, r.Raw
		}
		if err := q.InsertHl7Messages(ctx, p); err != nil {
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

// write sends the census in a savepoint, all in one pipelined batch: SAVEPOINT, the census's
// statements, extra ones (the audit row), RELEASE. On error the caller rolls the savepoint back.
func (c *census) write(ctx context.Context, tx pgx.Tx, t target, savepoint string, extra func(*pgx.Batch) error) error {
	b := &pgx.Batch{}
	b.Queue("SAVEPOINT " + savepoint)
	if err := c.queueWrites(ctx, b, t); err != nil {
		return err
	}
	if extra != nil {
		if err := extra(b); err != nil {
			return err
		}
	}
	b.Queue("RELEASE SAVEPOINT " + savepoint)
	return tx.SendBatch(ctx, b).Close()
}
