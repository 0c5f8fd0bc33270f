// Package records owns the operations records an operator shows a health inspector or a
// regional director: policies and who acknowledged them, inspection templates and inspections
// (whose failed items become findings, and findings corrective tasks), audit engagements that
// freeze a set of inspections, guided walkthroughs, equipment and its work orders, staff
// certifications and the alerts of their lapse, and generated reports.
//
// Findings become tasks through FindingTasks, which the tasks capability implements; records
// never writes the tasks table itself.
package records

import (
	"context"
	"slices"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/capability"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/paging"
	"github.com/sous-app/sous/internal/pg"
)

// Handlers serve the operations records operations.
type Handlers struct {
	pool     *pgxpool.Pool
	clock    clock.Clock
	resolver *capability.Resolver
	webURL   string
}

// NewHandlers serves the operations; resolver opens the public share links, webURL
// (SOUS_WEB_URL) is their base.
func NewHandlers(pool *pgxpool.Pool, c clock.Clock, resolver *capability.Resolver, webURL string) *Handlers {
	return &Handlers{pool: pool, clock: c, resolver: resolver, webURL: webURL}
}

// FindingTask is the corrective task of a finding, as records asks for it.
type FindingTask struct {
	OrgID, SiteID, FindingID uuid.UUID
	Title, Description       string
	Priority                 string // low, medium, high, critical
	Due                      time.Time
}

// FindingTasks makes and reads the corrective tasks of findings. The tasks capability
// implements it; the server's assembly installs it with SetFindingTasks.
type FindingTasks interface {
	// OpenFindingTask makes the task in tx (source audit_finding, sourceId the finding) and
	// returns its id.
	OpenFindingTask(ctx context.Context, tx pgx.Tx, now time.Time, t FindingTask) (uuid.UUID, error)
	// TaskStatuses returns the status of each of the tasks that exists.
	TaskStatuses(ctx context.Context, q *db.Queries, orgID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]string, error)
	// TaskOutcomes counts a site's tasks due in [from, to) by outcome, for reports.
	TaskOutcomes(ctx context.Context, q *db.Queries, orgID, siteID uuid.UUID, from, to time.Time) (TaskOutcomes, error)
	// GuideSites returns the sites of each guide that exists (empty: every site), for
	// walkthrough steps that link one.
	GuideSites(ctx context.Context, q *db.Queries, orgID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID][]uuid.UUID, error)
}

// TaskOutcomes are a site's tasks due in a period, by outcome.
type TaskOutcomes struct{ Due, Done, Late, Missed, Open int }

var findingTasks atomic.Pointer[FindingTasks]

// SetFindingTasks installs the tasks capability's side of FindingTasks.
func SetFindingTasks(f FindingTasks) { findingTasks.Store(&f) }

func tasksOf() (FindingTasks, error) {
	f := findingTasks.Load()
	if f == nil {
		return nil, apierr.Internal(errNoFindingTasks{})
	}
	return *f, nil
}

type errNoFindingTasks struct{}

func (errNoFindingTasks) Error() string { return "records: no FindingTasks installed" }

// taskStatuses reads the statuses of the tasks, tolerating no hook (no tasks then).
func taskStatuses(ctx context.Context, q *db.Queries, org uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]string, error) {
	if len(ids) == 0 {
		return map[uuid.UUID]string{}, nil
	}
	f, err := tasksOf()
	if err != nil {
		return nil, err
	}
	return f.TaskStatuses(ctx, q, org, ids)
}

// site checks a site of the organization within the member's scope: 404 Site otherwise.
func site(ctx context.Context, q *db.Queries, a authz.Access, id uuid.UUID) (db.RecordsSiteRow, error) {
	if err := a.CheckSite(id); err != nil {
		return db.RecordsSiteRow{}, err
	}
	s, err := q.RecordsSite(ctx, db.RecordsSiteParams{OrgID: a.OrgID, ID: id})
	if pg.IsNoRows(err) {
		return s, apierr.NotFound("Site")
	}
	return s, err
}

// sitesList checks a list of sites (deduplicated): each of the organization and the scope; an
// empty list ("every site") needs a member with every site.
func sitesList(ctx context.Context, q *db.Queries, a authz.Access, field string, ids []uuid.UUID, allowEmpty bool) ([]uuid.UUID, error) {
	out := []uuid.UUID{}
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	if len(out) == 0 {
		if !allowEmpty {
			return nil, apierr.InvalidField(field, "name at least one site")
		}
		if a.Scoped() {
			return nil, apierr.Forbidden("Something for every site needs access to every site; name some of your sites in siteIds").WithCode(apierr.CodeSiteScopeExceeded)
		}
		return out, nil
	}
	for _, id := range out {
		if _, err := site(ctx, q, a, id); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// visibleSites: for every site (empty) or one of the member's.
func visibleSites(a authz.Access, sites []uuid.UUID) bool {
	return !a.Scoped() || len(sites) == 0 || slices.ContainsFunc(sites, a.CanSeeSite)
}

// withinScope: every site of the list is the member's (an empty list needs every site).
func withinScope(a authz.Access, sites []uuid.UUID) bool {
	if !a.Scoped() {
		return true
	}
	if len(sites) == 0 {
		return false
	}
	for _, s := range sites {
		if !a.CanSeeSite(s) {
			return false
		}
	}
	return true
}

// auditSite is the site a write's audit row names: its one site, or none.
func auditSite(sites []uuid.UUID) uuid.UUID {
	if len(sites) == 1 {
		return sites[0]
	}
	return uuid.Nil
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func userPtr(a authz.Access) *uuid.UUID {
	if id := a.UserID(); id != uuid.Nil {
		return &id
	}
	return nil
}

func date(t time.Time) pgtype.Date { return pgtype.Date{Time: t, Valid: true} }

// localDate is the date of t in the IANA zone (UTC when unknown), as midnight UTC of that date.
func localDate(t time.Time, zone string) time.Time {
	loc, err := time.LoadLocation(zone)
	if err != nil {
		loc = time.UTC
	}
	y, m, d := t.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// cursor is a position in a list ordered by a time and id, newest first.
type cursor struct {
	At time.Time `json:"a"`
	ID uuid.UUID `json:"i"`
}

// page reads limit and cursor: the rows to ask for (one more than the page) and the position.
func page(limit *int, c *string) (int, *time.Time, *uuid.UUID, error) {
	n := paging.Limit(limit)
	if c == nil {
		return n, nil, nil, nil
	}
	var cur cursor
	if err := paging.DecodeCursor(*c, &cur, func() bool { return cur.ID != uuid.Nil }); err != nil {
		return 0, nil, nil, err
	}
	return n, &cur.At, &cur.ID, nil
}
