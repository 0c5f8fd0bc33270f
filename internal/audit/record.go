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
	kind, actor := "system", (*uuid.UUID)(nil)
	if p, ok := principal.From(ctx); ok {
		switch p.Kind {
		case principal.User:
			kind, actor = "user", &p.UserID
		case principal.APIKey:
			kind, actor = "api_key", &p.APIKeyID
		case principal.Device:
			kind, actor = "device", &p.DeviceID
		}
	}
	return q.InsertAudit(ctx, db.InsertAuditParams{
		ID:        uuid.Must(uuid.NewV7()),
		OrgID:     orgID,
		At:        at,
		ActorKind: kind,
		ActorID:   actor,
		Action:    action(ctx),
		TargetID:  optional(target),
		SiteID:    optional(siteID),
		Ip:        optionalString(reqinfo.ClientIP(ctx)),
		RequestID: optionalString(reqinfo.RequestID(ctx)),
	})
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
