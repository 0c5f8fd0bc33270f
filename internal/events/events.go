// Package events publishes organization events (the spec's Events table). Publish writes the
// event in the caller's transaction, so it exists if and only if the change that caused it
// committed; webhook delivery picks it up after commit, on any replica.
package events

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/db"
)

// The event catalogue. Subscriptions name these, or "*" for all.
const (
	CateringQuoteAccepted = "catering.quote_accepted"
	CateringInvoicePaid   = "catering.invoice_paid"
	PolicyPublished       = "policy.published"
	WorkOrderResolved     = "work_order.resolved"
	TrayDelivered         = "tray.delivered"
	AlertCreated          = "alert.created"
	ReportPublished       = "report.published"
	SignoffDecided        = "signoff.decided"
	WalkthroughSubmitted  = "walkthrough.submitted"
	EngagementFinalized   = "engagement.finalized"

	// WebhookTest is sent only by the "send a test delivery" operation, whatever the filter.
	WebhookTest = "webhook.test"
	// All is the subscription filter that matches every event of the catalogue.
	All = "*"
)

// Catalogue lists the events a subscription may name.
var Catalogue = []string{
	CateringQuoteAccepted, CateringInvoicePaid, PolicyPublished, WorkOrderResolved, TrayDelivered,
	AlertCreated, ReportPublished, SignoffDecided, WalkthroughSubmitted, EngagementFinalized,
}

// Known reports whether name is in the catalogue.
func Known(name string) bool { return slices.Contains(Catalogue, name) }

// Channel is the PostgreSQL NOTIFY channel that wakes dispatchers when an event commits.
const Channel = "sous_events"

// Publish records event name for orgID with data (a JSON object of ids the API dereferences) in
// the transaction behind q, and wakes the dispatchers when it commits. data must have the shape
// the spec documents for the event (its <Event>Data schema); tests enforce it (CheckData).
func Publish(ctx context.Context, q *db.Queries, orgID uuid.UUID, name string, at time.Time, data any) (uuid.UUID, error) {
	if !Known(name) && name != WebhookTest {
		return uuid.Nil, fmt.Errorf("events: %q is not in the catalogue", name)
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return uuid.Nil, err
	}
	if len(raw) == 0 || raw[0] != '{' {
		return uuid.Nil, fmt.Errorf("events: data of %s must be a JSON object", name)
	}
	if err := checkInTests(name, raw); err != nil {
		return uuid.Nil, err
	}
	id := uuid.Must(uuid.NewV7())
	if err := q.InsertEvent(ctx, db.InsertEventParams{ID: id, OrgID: orgID, Name: name, At: at.UTC(), Data: raw}); err != nil {
		return uuid.Nil, err
	}
	if err := q.NotifyEvent(ctx, id.String()); err != nil {
		return uuid.Nil, err
	}
	return id, nil
}
