package clinical

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"hash/fnv"
	"slices"
	"strings"
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
			OrgID: t.orgID, SiteID: t.siteID, Now: t.now, Ids: make([]uuid.UUID, 0, n), Mrns: make([]string, 0, n),
			MrnSources: make([]string, 0, n), MrnAuthorities: make([]string, 0, n), FamilyNames: make([]string, 0, n),
			GivenNames: make([]string, 0, n), MiddleNames: make([]string, 0, n), BirthDates: make([]string, 0, n),
			Sexes: make([]string, 0, n), EncounterIds: make([]uuid.UUID, 0, n), Units: make([]string, 0, n),
			Rooms: make([]string, 0, n), Beds: make([]string, 0, n), AdmittedAts: make([]time.Time, 0, n),
			Allergies: make([]string, 0, n), DietOrders: make([]string, 0, n), DietOrderIds: make([]string, 0, n),
			AllergiesHashes: make([]int64, 0, n), DietOrdersHashes: make([]int64, 0, n),
		}
		for _, ps := range c.touched {
			allergies, allergiesHash, err := docToWrite(ps.allergiesSet, ps.allergies, ps.exists, ps.allergiesHash, nil)
			if err != nil {
				return err
			}
			orders, ordersHash, err := docToWrite(ps.ordersSet, ps.orders, ps.exists, ps.ordersHash, withoutOrderedAt)
			if err != nil {
				return err
			}
			r := &ps.row
			if ps.exists && allergies == "" && orders == "" && sameRow(r, &ps.stored) {
				continue // the messages restated what is stored
			}
			var encounterID uuid.UUID
			if r.EncounterID != nil {
				encounterID = *r.EncounterID
			}
			var admittedAt time.Time
			if r.AdmittedAt != nil {
				admittedAt = *r.AdmittedAt
			}
			p.Ids, p.Mrns, p.MrnSources = append(p.Ids, r.ID), append(p.Mrns, r.MRN), append(p.MrnSources, r.MRNSource)
			p.MrnAuthorities, p.FamilyNames = append(p.MrnAuthorities, r.MRNAuthority), append(p.FamilyNames, r.FamilyName)
			p.GivenNames, p.MiddleNames = append(p.GivenNames, r.GivenName), append(p.MiddleNames, r.MiddleName)
			p.BirthDates, p.Sexes = append(p.BirthDates, r.BirthDate), append(p.Sexes, r.Sex)
			p.EncounterIds, p.AdmittedAts = append(p.EncounterIds, encounterID), append(p.AdmittedAts, admittedAt)
			p.Units, p.Rooms, p.Beds = append(p.Units, r.Unit), append(p.Rooms, r.Room), append(p.Beds, r.Bed)
			p.Allergies, p.AllergiesHashes = append(p.Allergies, allergies), append(p.AllergiesHashes, allergiesHash)
			p.DietOrders, p.DietOrdersHashes = append(p.DietOrders, orders), append(p.DietOrdersHashes, ordersHash)
			p.DietOrderIds = append(p.DietOrderIds, orderIDs(orders, ps.orders))
		}
		if len(p.Ids) > 0 {
			if err := q.UpsertPatients(ctx, p); err != nil {
				return err
			}
		}
		c.patientsWritten = len(p.Ids)
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
			SendingApplications: make([]string, n), SendingFacilities: make([]string, n),
			MessageTypes: make([]string, n), Outcomes: make([]string, n), Actions: make([]string, n),
			Reasons: make([]string, n), Mrns: make([]string, n), PatientIds: make([]uuid.UUID, n),
			EncounterIds: make([]uuid.UUID, n), EventAts: make([]time.Time, n), Units: make([]string, n),
			Rooms: make([]string, n), Beds: make([]string, n), Raws: make([]string, n),
		}
		for i := range c.trail {
			r := &c.trail[i]
			p.Ids[i], p.BatchIndexes[i], p.ControlIds[i], p.MessageTypes[i] = r.ID, int32(r.BatchIndex), r.ControlID, r.MessageType
			p.SendingApplications[i], p.SendingFacilities[i] = r.Sender.app, r.Sender.facility
			p.Outcomes[i], p.Actions[i], p.Reasons[i], p.Mrns[i] = r.Outcome, r.Action, r.Reason, r.MRN
			p.PatientIds[i], p.EncounterIds[i], p.EventAts[i] = r.PatientID, r.EncounterID, r.EventAt
			p.Units[i], p.Rooms[i], p.Beds[i], p.Raws[i] = r.Unit, r.Room, r.Bed, r.Raw
		}
		if err := q.InsertHl7Messages(ctx, p); err != nil {
			return err
		}
	}
	if len(c.codeOrder) > 0 && !c.deferCodes {
		if err := c.queueCodes(ctx, q, t); err != nil {
			return err
		}
	}
	if hook := testHookFailWrite.Load(); hook != nil && (*hook)(c.trail) {
		b.Queue("SELECT 1 / 0")
	}
	return nil
}

// writeCodes records the code occurrences that write left for last (deferCodes).
func (c *census) writeCodes(ctx context.Context, tx pgx.Tx, t target) error {
	if len(c.codeOrder) == 0 {
		return nil
	}
	return c.queueCodes(ctx, db.New(tx), t)
}

// queueCodes upserts the census's unmapped codes with how many messages carried each.
func (c *census) queueCodes(ctx context.Context, q *db.Queries, t target) error {
	rows := make([]*codeRow, 0, len(c.codeOrder))
	for _, k := range c.codeOrder {
		rows = append(rows, c.codes[k])
	}
	// Concurrent bodies (of other patients) count the same codes: each upsert locks its
	// rows until commit, in the order given, so one order for all keeps two bodies from
	// each waiting for a row the other holds. (And the ingest upserts them last, right
	// before its commit, so that the next body waits for those rows as little as can be.)
	slices.SortFunc(rows, func(a, b *codeRow) int {
		return cmp.Or(strings.Compare(a.Kind, b.Kind), strings.Compare(a.Code, b.Code))
	})
	raw, err := json.Marshal(rows)
	if err != nil {
		return err
	}
	return q.RecordCodeOccurrences(ctx, db.RecordCodeOccurrencesParams{OrgID: t.orgID, Rows: raw, Now: t.now})
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

// docToWrite returns a document to store with its hash, or "" to keep the stored one: when the
// messages carried none, or the same one again (an existing patient's stored hash matches). The
// hash covers the document as canon returns it (all of it when canon is nil).
func docToWrite[T any](set bool, doc []T, exists bool, storedHash int64, canon func([]T) []T) (string, int64, error) {
	if !set {
		return "", 0, nil
	}
	if doc == nil {
		doc = []T{}
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		return "", 0, err
	}
	hashed := raw
	if canon != nil {
		if hashed, err = json.Marshal(canon(doc)); err != nil {
			return "", 0, err
		}
	}
	h := fnv.New64a()
	h.Write(hashed)
	sum := int64(h.Sum64())
	if sum == 0 {
		sum = 1 // 0 means unknown
	}
	if exists && sum == storedHash {
		return "", 0, nil
	}
	return string(raw), sum, nil
}

// sameRow reports whether a patient's row is as stored.
func sameRow(a, b *patientRow) bool {
	eqID := (a.EncounterID == nil) == (b.EncounterID == nil) && (a.EncounterID == nil || *a.EncounterID == *b.EncounterID)
	eqAt := (a.AdmittedAt == nil) == (b.AdmittedAt == nil) && (a.AdmittedAt == nil || a.AdmittedAt.Equal(*b.AdmittedAt))
	return eqID && eqAt && a.ID == b.ID && a.MRN == b.MRN && a.MRNSource == b.MRNSource && a.MRNAuthority == b.MRNAuthority &&
		a.FamilyName == b.FamilyName && a.GivenName == b.GivenName && a.MiddleName == b.MiddleName &&
		a.BirthDate == b.BirthDate && a.Sex == b.Sex && a.Unit == b.Unit && a.Room == b.Room && a.Bed == b.Bed
}

// withoutOrderedAt is what identifies a list of diet orders: an update that restates them keeps
// the stored ones, and so the time each was first received.
func withoutOrderedAt(orders []dietOrderDoc) []dietOrderDoc {
	out := make([]dietOrderDoc, len(orders))
	for i, o := range orders {
		o.OrderedAt = time.Time{}
		out[i] = o
	}
	return out
}

// orderIDs is what patients.diet_order_ids stores with a rewritten list: the ids, comma-separated.
func orderIDs(doc string, orders []dietOrderDoc) string {
	if doc == "" {
		return "" // kept: the stored ids stay
	}
	var b strings.Builder
	for i, o := range orders {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(o.ID.String())
	}
	return b.String()
}
