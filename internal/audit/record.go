// Package audit keeps the audit log: one row for every write made through the API, written in
// the same transaction as the write, so the row exists if and only if the change committed.
package audit

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/principal"
	"github.com/sous-app/sous/internal/reqinfo"
)

// Record writes the audit row of an organization-wide write (no site) for the current
// request's operation on target (uuid.Nil when the write has no single target). Who and from
// where come from the request's context. Only members with every site read such a row: a write
// that touches a site records it with RecordSite.
func Record(ctx context.Context, q *db.Queries, orgID, target uuid.UUID, at time.Time) error {
	return RecordSite(ctx, q, orgID, uuid.Nil, target, at)
}

// RecordSite writes the audit row of a write that touched siteID (uuid.Nil: none), so that
// members limited to that site read it and members limited to other sites do not.
func RecordSite(ctx context.Context, q *db.Queries, orgID, siteID, target uuid.UUID, at time.Time) error {
	e := EntryFor(ctx, siteID, target, at)
	return q.InsertAudit(ctx, db.InsertAuditParams{
		ID: e.ID, OrgID: orgID, At: e.At, ActorKind: e.ActorKind, ActorID: optional(e.ActorID), Action: e.Action,
		TargetID: optional(e.TargetID), SiteID: optional(e.SiteID), Ip: optionalString(e.IP), RequestID: optionalString(e.RequestID),
	})
}

// Entry is an audit row taken from a request's context, to be written later with RecordAll:
// for writes posted together with other requests' writes, in a transaction the request does
// not run itself. A nil id means none.
type Entry struct {
	ID        uuid.UUID
	At        time.Time
	ActorKind string
	ActorID   uuid.UUID
	Action    string
	TargetID  uuid.UUID
	SiteID    uuid.UUID
	IP        string
	RequestID string
}

// EntryFor is the audit row of the current request's write of target at siteID (uuid.Nil:
// none): who and from where come from ctx.
func EntryFor(ctx context.Context, siteID, target uuid.UUID, at time.Time) Entry {
	e := Entry{ID: uuid.Must(uuid.NewV7()), At: at, ActorKind: "system", Action: action(ctx), TargetID: target, SiteID: siteID,
		IP: reqinfo.ClientIP(ctx), RequestID: reqinfo.RequestID(ctx)}
	if p, ok := principal.From(ctx); ok {
		switch p.Kind {
		case principal.User:
			e.ActorKind, e.ActorID = "user", p.UserID
		case principal.APIKey:
			e.ActorKind, e.ActorID = "api_key", p.APIKeyID
		case principal.Device:
			e.ActorKind, e.ActorID = "device", p.DeviceID
		}
	}
	return e
}

// RecordAll writes entries of one organization in one statement.
func RecordAll(ctx context.Context, q *db.Queries, orgID uuid.UUID, entries []Entry) error {
	if len(entries) == 0 {
		return nil
	}
	n := len(entries)
	p := db.InsertAuditsParams{OrgID: orgID, Ids: make([]uuid.UUID, n), Ats: make([]time.Time, n), ActorKinds: make([]string, n),
		ActorIds: make([]uuid.UUID, n), Actions: make([]string, n), TargetIds: make([]uuid.UUID, n), SiteIds: make([]uuid.UUID, n),
		Ips: make([]string, n), RequestIds: make([]string, n)}
	for i, e := range entries {
		p.Ids[i], p.Ats[i], p.ActorKinds[i], p.ActorIds[i], p.Actions[i] = e.ID, e.At, e.ActorKind, e.ActorID, e.Action
		p.TargetIds[i], p.SiteIds[i], p.Ips[i], p.RequestIds[i] = e.TargetID, e.SiteID, e.IP, e.RequestID
	}
	return q.InsertAudits(ctx, p)
}

func action(ctx context.Context) string {
	if op := reqinfo.Operation(ctx); op != "" {
		return op
	}
	return "unknown"
}

func optional(id uuid.UUID) *uuid.UUID {
	if id == uuid.Nil {
		return nil
	}
	return &id
}

func optionalString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Withdraw removes entries RecordAll wrote earlier in the caller's transaction for writes that
// then failed, so that the transaction commits rows only for the writes it keeps.
func Withdraw(ctx context.Context, q *db.Queries, orgID uuid.UUID, entries []Entry) error {
	if len(entries) == 0 {
		return nil
	}
	ids := make([]uuid.UUID, len(entries))
	for i, e := range entries {
		ids[i] = e.ID
	}
	return q.DeleteAuditsOfTransaction(ctx, db.DeleteAuditsOfTransactionParams{OrgID: orgID, Ids: ids})
}
