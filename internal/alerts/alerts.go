// Package alerts owns operational alerts: conditions at a site that need someone's attention.
// A capability that detects a condition opens an alert with Open and closes it with Close when
// the condition clears; members list and resolve them. Opening publishes alert.created and, like
// every change to open alerts, hints the site's screens (kitchen wallboards show open alerts).
package alerts

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/events"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/realtime"
)

// Kinds opened today; the schema documents the ones to come.
const (
	KindSensorOffline        = "sensor_offline"
	KindTemperatureExcursion = "temperature_excursion"
	KindTaskMissed           = "task_missed"
	// KindSensorFault is a sensor that sent FaultRun physically impossible readings in a row
	// (subject a sensor); its next plausible reading closes it.
	KindSensorFault = "sensor_fault"
)

// Severities, as the spec's DeviceAlert lists them.
const (
	Info     = "info"
	Warning  = "warning"
	Critical = "critical"
)

// Alert is what a detector asks to open. Subject and Kind together identify the condition: while
// an alert of that kind about that subject is open, Open does nothing. Occurrence is when this
// occurrence of the condition began; detectors skip one already reported (see SilentSensorGateways).
type Alert struct {
	OrgID, SiteID uuid.UUID
	Kind          string
	Severity      string
	Message       string
	SubjectType   string
	SubjectID     uuid.UUID
	Occurrence    time.Time
	// Cause tells apart the causes of a kind that has several ('' is the kind's first): each
	// detector closes only the alerts of its own cause.
	Cause string
}

// Open opens the alert in tx unless the same condition is already open, and reports whether it
// did. The alert.created event and the screens' hint commit or roll back with tx.
func Open(ctx context.Context, tx pgx.Tx, now time.Time, a Alert) (bool, error) {
	_, opened, err := OpenID(ctx, tx, now, a)
	return opened, err
}

// OpenID is Open that also returns the id of the alert it opened (uuid.Nil when it opened none).
func OpenID(ctx context.Context, tx pgx.Tx, now time.Time, a Alert) (uuid.UUID, bool, error) {
	q := db.New(tx)
	row, err := q.OpenAlert(ctx, db.OpenAlertParams{
		ID: uuid.Must(uuid.NewV7()), OrgID: a.OrgID, SiteID: a.SiteID, Kind: a.Kind, Severity: a.Severity,
		Message: a.Message, SubjectType: a.SubjectType, SubjectID: a.SubjectID, Occurrence: a.Occurrence, Now: now, Cause: a.Cause,
	})
	if pg.IsNoRows(err) {
		return uuid.Nil, false, nil // already open
	}
	if err != nil {
		return uuid.Nil, false, err
	}
	if _, err := events.Publish(ctx, q, a.OrgID, events.AlertCreated, now, map[string]any{
		"alertId": row.ID, "siteId": row.SiteID, "kind": row.Kind, "severity": row.Severity,
	}); err != nil {
		return uuid.Nil, false, err
	}
	if h := openHook.Load(); h != nil {
		if err := (*h).AlertOpened(ctx, tx, now, Opened{ID: row.ID, Alert: a}); err != nil {
			return uuid.Nil, false, err
		}
	}
	return row.ID, true, hintSite(ctx, tx, a.OrgID, a.SiteID)
}

// Opened is an alert that just opened.
type Opened struct {
	ID uuid.UUID
	Alert
}

// OpenHook is told, inside the opening transaction, of every alert Open opens, so another
// capability can act on it (tasks makes a follow-up task for sensor alerts) without alerts
// knowing it or anyone writing another domain's tables. Its error rolls the opening back.
type OpenHook interface {
	AlertOpened(ctx context.Context, tx pgx.Tx, now time.Time, a Opened) error
}

var openHook atomic.Pointer[OpenHook]

// SetOpenHook installs the hook (replacing any before it). The server's assembly installs it
// once; hooks must hold no per-server state, since every server of the process shares it.
func SetOpenHook(h OpenHook) { openHook.Store(&h) }

// Close closes the open alerts of kind about the subjects (their condition cleared by itself)
// and hints the screens of the sites concerned.
func Close(ctx context.Context, tx pgx.Tx, now time.Time, orgID uuid.UUID, kind string, subjectIDs ...uuid.UUID) error {
	closed, err := db.New(tx).CloseAlertsOf(ctx, db.CloseAlertsOfParams{OrgID: orgID, Kind: kind, SubjectIds: subjectIDs, Now: now})
	if err != nil {
		return err
	}
	hinted := map[uuid.UUID]bool{}
	for _, c := range closed {
		if hinted[c.SiteID] {
			continue
		}
		hinted[c.SiteID] = true
		if err := hintSite(ctx, tx, orgID, c.SiteID); err != nil {
			return err
		}
	}
	return nil
}

// hintSite tells the site's paired screens to refetch their state once tx commits.
func hintSite(ctx context.Context, tx pgx.Tx, orgID, siteID uuid.UUID) error {
	ids, err := db.New(tx).SiteDeviceIDs(ctx, db.SiteDeviceIDsParams{OrgID: orgID, SiteID: siteID})
	if err != nil || len(ids) == 0 {
		return err
	}
	return realtime.Notify(ctx, tx, ids...)
}

// Find returns an alert of the organization for another capability to act on (records opens a
// work order from one), read in the caller's transaction; pgx.ErrNoRows when there is none.
func Find(ctx context.Context, q *db.Queries, orgID, id uuid.UUID) (db.Alert, error) {
	return q.GetAlertForUpdate(ctx, db.GetAlertForUpdateParams{OrgID: orgID, ID: id})
}

// CountOpened counts the alerts of kind opened at a site in [from, to), for reports.
func CountOpened(ctx context.Context, q *db.Queries, orgID, siteID uuid.UUID, kind string, from, to time.Time) (int64, error) {
	return q.CountAlertsOpened(ctx, db.CountAlertsOpenedParams{OrgID: orgID, SiteID: siteID, Kind: kind, FromAt: from, ToAt: to})
}
