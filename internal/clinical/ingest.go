package clinical

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/hl7"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/reqinfo"
	"github.com/sous-app/sous/internal/tracing"
)

// IngestHl7 applies a body of HL7 messages to a site's census.
//
// Every message is applied in memory against the census state loaded for the body, and the
// result is written in one pipelined batch of set-based statements inside a savepoint. Should
// that write fail, the savepoint is rolled back and the body is applied again one message per
// savepoint, reloading the state each time, so that a message the database refuses is reported
// rejected and the others are still applied.
func (h *Handlers) IngestHl7(ctx context.Context, req api.IngestHl7RequestObject) (api.IngestHl7ResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	siteID, message, err := ingestInput(req) // JSON or ER7 (er7.go)
	if err != nil {
		return nil, err
	}
	site, err := h.site(ctx, a, req.OrgId, siteID)
	if err != nil {
		return nil, err
	}
	began := time.Now()
	bufs := parsePool.Get().(*parseBuffers)
	defer bufs.release()
	_, parse := phase(ctx, "hl7 parse")
	batch, err := bufs.parser.ParseString(message)
	parse.SetAttributes(tracing.Attr("sous.hl7.messages", len(batch.Messages)))
	parse.End()
	switch {
	case errors.Is(err, hl7.ErrLimit):
		return nil, &apierr.Error{Kind: apierr.KindTooLarge, Code: apierr.CodeTooManyMessages, Message: fmt.Sprintf("A body may hold at most %d HL7 messages", hl7.MaxMessagesPerBody)}
	case errors.Is(err, hl7.ErrNoMessage):
		msg := "No parseable HL7 message: the body has no segment starting with MSH"
		if len(batch.Messages) > 0 {
			msg = "No parseable HL7 message: every MSH-framed message was rejected; the first because " + firstReason(&batch)
		}
		return nil, apierr.Unprocessable(msg).WithCode(apierr.CodeNoHL7Message)
	case err != nil:
		return nil, err
	}
	msgs := prepare(&batch, &bufs.adts)

	queued := time.Now()
	_, wait := phase(ctx, "hl7 wait for census lock")
	lk, unlock, err := h.lockBody(ctx, req.OrgId, site.ID, msgs)
	wait.End()
	if err != nil {
		return nil, err
	}
	defer unlock()
	locked := time.Now()
	t := targetOf(ctx, req.OrgId, site.ID, h.clock.Now())
	loc := h.location(site.Timezone)
	var results []api.Hl7MessageResult
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		results, err = h.ingestBody(ctx, tx, t, lk, loc, msgs, false, func(r []api.Hl7MessageResult) error {
			return runCensusHook(ctx, tx, req.OrgId, r)
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	observeBatch(results, time.Since(began))
	h.logger.DebugContext(ctx, "hl7 ingest queue", "wait", locked.Sub(queued), "held", time.Since(locked))
	out := api.Hl7IngestResult{Processed: len(results), Results: results}
	if len(batch.Notes) > 0 {
		out.Notes = &batch.Notes
	}
	return ingestResponse(ctx, out, message, t.now)
}

// batchFallbacks counts the bodies whose batch write the database refused, so that they were
// applied again one message per savepoint: each costs the organization's feed a body's worth of
// round trips, and a count above zero means a message reached the database that the parser
// should have rejected.
var batchFallbacks atomic.Int64

// parseBuffers are the memory one ingest parses and extracts into, reused
// from request to request: what is built from them (results, rows) copies
// what it keeps, and they return to the pool when the request is done.
type parseBuffers struct {
	parser hl7.Parser
	adts   []hl7.ADT
}

var parsePool = sync.Pool{New: func() any { return new(parseBuffers) }}

// maxPooledMessages keeps an unusually large body from pinning its buffers.
const maxPooledMessages = 1000

func (b *parseBuffers) release() {
	if cap(b.adts) > maxPooledMessages {
		return
	}
	// Drop references into the request body.
	clear(b.adts)
	b.parser.Clear()
	parsePool.Put(b)
}

func firstReason(b *hl7.Batch) string {
	var me *hl7.MessageError
	if errors.As(b.Messages[0].Err, &me) {
		return me.Reason
	}
	return "it could not be read"
}

// ingestBody applies prepared messages (HL7 messages, or the entries of a FHIR bundle) to the
// census. atomic (a FHIR transaction) applies all or none: when one is rejected, every other is
// rejected too, the trail keeps them all, and the census is left as it was. then (the census
// hook; nil: none) runs once the census is written, before the code occurrences are.
func (h *Handlers) ingestBody(ctx context.Context, tx pgx.Tx, t target, lk bodyLock, loc *time.Location, msgs []prepared, atomic bool,
	then func([]api.Hl7MessageResult) error) ([]api.Hl7MessageResult, error) {
	if then == nil {
		then = func([]api.Hl7MessageResult) error { return nil }
	}
	q := db.New(tx)
	start := time.Now()
	if err := lockInTx(ctx, q, t.orgID, lk); err != nil {
		return nil, err
	}
	// Received when applied: a body of another replica that held one of these patients before
	// this one is then received before it too, so the trail's times follow each patient's order.
	t.now = h.clock.Now()
	if hook := testHookLocked.Load(); hook != nil {
		(*hook)(msgs)
	}
	locked := time.Now()
	lctx, load := phase(ctx, "hl7 load")
	maps, err := loadMappings(lctx, q, t.orgID)
	if err != nil {
		load.End()
		return nil, err
	}

	c := newCensus(loc, t.now, maps)
	err = c.load(lctx, q, t, msgs)
	load.End()
	if err != nil {
		return nil, err
	}
	loaded := time.Now()
	_, apply := phase(ctx, "hl7 apply")
	results := make([]api.Hl7MessageResult, len(msgs))
	for i := range msgs {
		results[i] = c.apply(&msgs[i])
	}
	apply.End()
	h.logUnreadable(ctx, c)
	if atomic && firstFailed(msgs, results) >= 0 {
		c = rejectAll(loc, t.now, maps, msgs, results, "")
	}
	applied := time.Now()
	wctx, write := phase(ctx, "hl7 write")
	c.deferCodes = true
	werr := c.write(wctx, tx, t, "ingest", func(b *pgx.Batch) error {
		return audit.RecordSite(wctx, db.New(queue{b}), t.orgID, t.siteID, t.siteID, t.now)
	})
	write.End()
	if werr == nil {
		h.logger.DebugContext(ctx, "hl7 ingest", "messages", len(msgs), "patients", c.patientsWritten,
			"encounters", len(c.encounters), "lock", locked.Sub(start), "load", loaded.Sub(locked),
			"apply", applied.Sub(loaded), "write", time.Since(applied))
		if err := then(results); err != nil {
			return nil, err
		}
		return results, c.writeCodes(ctx, tx, t)
	}
	// A database that is down or read-only refuses every message alike: that is a 503 for the
	// whole body, not a rejection of each message.
	if ctx.Err() != nil || pg.Unavailable(werr) != nil {
		return nil, werr
	}
	batchFallbacks.Add(1)
	h.logger.WarnContext(ctx, "hl7 batch write failed; applying message by message",
		"err", werr.Error(), "messages", len(msgs), "request_id", reqinfo.RequestID(ctx))
	if _, err := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT ingest"); err != nil {
		return nil, err
	}
	if atomic {
		c = rejectAll(loc, t.now, maps, msgs, results, "the transaction could not be stored (the server logged the cause under this request's id)")
		if err := c.write(ctx, tx, t, "ingest", nil); err != nil {
			return nil, err
		}
		if err := audit.RecordSite(ctx, q, t.orgID, t.siteID, t.siteID, t.now); err != nil {
			return nil, err
		}
		return results, then(results)
	}
	for i := range msgs {
		if results[i], err = h.ingestOne(ctx, tx, t, loc, maps, &msgs[i]); err != nil {
			return nil, err
		}
	}
	if err := audit.RecordSite(ctx, q, t.orgID, t.siteID, t.siteID, t.now); err != nil {
		return nil, err
	}
	return results, then(results)
}

// ingestOne applies one message in its own savepoint, against state reloaded from the database
// (which holds the messages before it). A write the database refuses rolls the savepoint back
// and the message is recorded as rejected.
func (h *Handlers) ingestOne(ctx context.Context, tx pgx.Tx, t target, loc *time.Location, maps orgMappings, p *prepared) (api.Hl7MessageResult, error) {
	q := db.New(tx)
	c := newCensus(loc, t.now, maps)
	one := []prepared{*p}
	if err := c.load(ctx, q, t, one); err != nil {
		return api.Hl7MessageResult{}, err
	}
	res := c.apply(&one[0])
	h.logUnreadable(ctx, c)
	werr := c.write(ctx, tx, t, "message", nil)
	if werr == nil {
		return res, nil
	}
	if ctx.Err() != nil || pg.Unavailable(werr) != nil {
		return res, werr
	}
	h.logger.WarnContext(ctx, "hl7 message refused by the database",
		"err", werr.Error(), "index", p.index, "control_id", p.controlID, "request_id", reqinfo.RequestID(ctx))
	if _, err := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT message"); err != nil {
		return res, err
	}
	rejected := *p
	rejected.reject = "the message could not be stored (the server logged the cause under this request's id)"
	c = newCensus(loc, t.now, maps)
	res = c.apply(&rejected)
	return res, c.write(ctx, tx, t, "message", nil)
}

// logUnreadable logs the stored documents a census could not read; the messages that needed them
// were rejected, with a reason pointing here.
func (h *Handlers) logUnreadable(ctx context.Context, c *census) {
	for _, err := range c.unreadable {
		h.logger.ErrorContext(ctx, "hl7 message rejected: a stored document cannot be read",
			"err", err.Error(), "request_id", reqinfo.RequestID(ctx))
	}
}

func loadMappings(ctx context.Context, q *db.Queries, orgID uuid.UUID) (orgMappings, error) {
	rows, err := q.CodeMappings(ctx, orgID)
	if err != nil {
		return nil, err
	}
	m := make(orgMappings, len(rows))
	for _, r := range rows {
		m[mappingKey{r.Kind, r.Code}] = r.Targets
	}
	return m, nil
}

// load reads what the messages need: which of their control ids are consumed, and the stored
// state of their patients.
func (c *census) load(ctx context.Context, q *db.Queries, t target, msgs []prepared) error {
	var keys db.ConsumedControlIDsParams
	mrns := make([]string, 0, len(msgs))
	seen := make(map[string]bool, len(msgs))
	var full []string     // patients of order messages need their stored diet orders
	var allergic []string // and those of FHIR allergy and nutrition entries their allergies
	for i := range msgs {
		p := &msgs[i]
		if p.reject != "" {
			continue
		}
		if p.controlID != "" {
			keys.SendingApplications = append(keys.SendingApplications, p.sender.app)
			keys.SendingFacilities = append(keys.SendingFacilities, p.sender.facility)
			keys.ControlIds = append(keys.ControlIds, p.controlID)
		}
		if mrn, _ := p.mrn(); mrn != "" {
			if !seen[mrn] { // one probe per patient
				seen[mrn] = true
				mrns = append(mrns, mrn)
			}
			if p.action == hl7.ActionDietOrder {
				full = append(full, mrn)
			}
			if p.fhir != nil && p.fhir.needsAllergies() {
				allergic = append(allergic, mrn)
			}
		}
	}
	if len(keys.ControlIds) > 0 {
		keys.OrgID = t.orgID
		rows, err := q.ConsumedControlIDs(ctx, keys)
		if err != nil {
			return err
		}
		for _, r := range rows {
			c.consumed[messageKey{sender{r.SendingApplication, r.SendingFacility}, r.ControlID}] = true
		}
	}
	if len(mrns) == 0 {
		return nil
	}
	if full == nil {
		full = []string{}
	}
	if allergic == nil {
		allergic = []string{}
	}
	rows, err := q.PatientsByMRN(ctx, db.PatientsByMRNParams{OrgID: t.orgID, SiteID: t.siteID, Mrns: mrns, FullMrns: full, AllergyMrns: allergic})
	if err != nil {
		return err
	}
	for _, r := range rows {
		ps := &patientState{
			row: patientRow{
				ID: r.ID, MRN: r.Mrn, MRNSource: r.MrnSource, MRNAuthority: r.MrnAuthority, FamilyName: r.FamilyName,
				GivenName: r.GivenName, MiddleName: r.MiddleName, BirthDate: r.BirthDate, Sex: r.Sex,
				EncounterID: r.EncounterID, Unit: r.Unit, Room: r.Room, Bed: r.Bed, AdmittedAt: r.AdmittedAt,
			},
			storedOrders: r.DietOrders, orderIDs: r.DietOrderIds, storedAllergies: r.Allergies,
			exists: true, allergiesHash: r.AllergiesHash, ordersHash: r.DietOrdersHash,
		}
		ps.stored = ps.row
		if r.EncounterID != nil {
			e := &encounterState{row: encounterRow{
				ID: *r.EncounterID, PatientID: r.ID, VisitNumber: r.VisitNumber, PatientClass: r.PatientClass,
				Unit: r.Unit, Room: r.Room, Bed: r.Bed,
			}}
			if !r.EncounterAdmittedAt.IsZero() {
				e.row.AdmittedAt = r.EncounterAdmittedAt
			}
			ps.enc = e
		}
		c.patients[r.Mrn] = ps
	}
	return nil
}

// rejectAll rejects every message of an atomic body in a new census (whose trail is all it
// writes): the first that failed keeps its reason (or why, when given), the others name it.
func rejectAll(loc *time.Location, now time.Time, maps orgMappings, msgs []prepared, results []api.Hl7MessageResult, why string) *census {
	failed := firstFailed(msgs, results)
	if failed < 0 {
		failed = 0
	}
	if why == "" {
		why = reasonOf(results[failed])
	}
	c := newCensus(loc, now, maps)
	for i := range msgs {
		p := &msgs[i]
		if i == failed {
			p.reject = why
			if p.fhir != nil && p.fhir.status < 400 {
				p.fhir.status, p.fhir.issueCode = 422, "processing"
			}
		} else {
			p.reject = fmt.Sprintf("not applied: entry %d of the transaction failed", failed)
			if p.fhir != nil {
				p.fhir.bystander = true
			}
		}
		results[i] = c.apply(p)
	}
	return c
}
