package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/periodic"
	"github.com/sous-app/sous/internal/pg"
)

// Horizon is how far ahead routines' tasks are made.
const Horizon = 24 * time.Hour

var errRoutineNotFound = apierr.NotFound("Routine")

// routineInput is a checked routine request.
type routineInput struct {
	name     string
	rrule    string
	startsOn time.Time
	active   bool
	items    []api.RoutineItem
}

// checkRoutine checks a routine request for a site in zone.
func checkRoutine(ctx context.Context, q *db.Queries, org uuid.UUID, b api.RoutineRequest, zone string, now time.Time) (routineInput, error) {
	in := routineInput{name: strings.TrimSpace(b.Name), rrule: strings.TrimSpace(b.Rrule), active: b.Active == nil || *b.Active, items: b.Items}
	if in.name == "" {
		return in, apierr.InvalidField("name", "must not be blank")
	}
	if b.StartsOn != nil {
		in.startsOn = b.StartsOn.Time
	} else {
		l := now.In(Zone(zone))
		in.startsOn = time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, time.UTC)
	}
	if _, err := ParseRule(in.rrule, in.startsOn); err != nil {
		return in, err
	}
	c := checker{ctx: ctx, q: q, org: org, site: b.SiteId}
	for i, it := range in.items {
		if _, err := c.params(itemField(i), itemSpec(it), now); err != nil {
			return in, err
		}
	}
	return in, nil
}

func itemField(i int) string { return "items[" + strconv.Itoa(i) + "]." }

func itemSpec(it api.RoutineItem) spec {
	return spec{
		Title: it.Title, Kind: it.Kind, Priority: it.Priority, Required: it.Required, RequiresScan: it.RequiresScan,
		RequiresPhoto: it.RequiresPhoto, RequiresTemp: it.RequiresTemp, TempRange: it.TempRange, TargetTagID: it.TargetTagId,
		LinkedDocIDs: it.LinkedDocIds, Assignee: it.Assignee, GraceMinutes: it.GraceMinutes,
	}
}

func (h *Handlers) CreateRoutine(ctx context.Context, req api.CreateRoutineRequestObject) (api.CreateRoutineResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := *req.Body
	now := h.clock.Now()
	var r db.Routine
	var zone string
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		if zone, err = site(ctx, q, a, b.SiteId); err != nil {
			return err
		}
		in, err := checkRoutine(ctx, q, a.OrgID, b, zone, now)
		if err != nil {
			return err
		}
		items, err := json.Marshal(in.items)
		if err != nil {
			return err
		}
		r, err = q.InsertRoutine(ctx, db.InsertRoutineParams{
			ID: uuid.Must(uuid.NewV7()), OrgID: a.OrgID, SiteID: b.SiteId, Name: in.name, Rrule: in.rrule,
			StartsOn: pgtype.Date{Time: in.startsOn, Valid: true}, Active: in.active, Items: items, Now: now,
		})
		if err != nil {
			return err
		}
		if err := plan(ctx, tx, now, planned{r: r, zone: zone}); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, a.OrgID, b.SiteId, r.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.CreateRoutine201JSONResponse{Body: routineToAPI(r, zone, now)}, nil
}

func (h *Handlers) UpdateRoutine(ctx context.Context, req api.UpdateRoutineRequestObject) (api.UpdateRoutineResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := *req.Body
	now := h.clock.Now()
	var r db.Routine
	var zone string
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		cur, err := q.LockRoutine(ctx, db.LockRoutineParams{OrgID: a.OrgID, ID: req.Id})
		if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(cur.SiteID)) {
			return errRoutineNotFound
		}
		if err != nil {
			return err
		}
		if b.SiteId != cur.SiteID {
			return apierr.InvalidField("siteId", "cannot change: make a new routine for another site")
		}
		if zone, err = q.SiteZone(ctx, db.SiteZoneParams{OrgID: a.OrgID, ID: cur.SiteID}); err != nil {
			return err
		}
		in, err := checkRoutine(ctx, q, a.OrgID, b, zone, now)
		if err != nil {
			return err
		}
		items, err := json.Marshal(in.items)
		if err != nil {
			return err
		}
		r, err = q.UpdateRoutine(ctx, db.UpdateRoutineParams{
			OrgID: a.OrgID, ID: cur.ID, Name: in.name, Rrule: in.rrule, StartsOn: pgtype.Date{Time: in.startsOn, Valid: true},
			Active: in.active, Items: items, Now: now,
		})
		if err != nil {
			return err
		}
		if err := replan(ctx, tx, r, zone, now); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, a.OrgID, r.SiteID, r.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.UpdateRoutine200JSONResponse(routineToAPI(r, zone, now)), nil
}

func (h *Handlers) GetRoutine(ctx context.Context, req api.GetRoutineRequestObject) (api.GetRoutineResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	q := db.New(h.pool)
	r, err := q.GetRoutine(ctx, db.GetRoutineParams{OrgID: a.OrgID, ID: req.Id})
	if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(r.SiteID)) {
		return nil, errRoutineNotFound
	}
	if err != nil {
		return nil, err
	}
	zone, err := q.SiteZone(ctx, db.SiteZoneParams{OrgID: a.OrgID, ID: r.SiteID})
	if err != nil {
		return nil, err
	}
	return api.GetRoutine200JSONResponse(routineToAPI(r, zone, h.clock.Now())), nil
}

func (h *Handlers) ListRoutines(ctx context.Context, req api.ListRoutinesRequestObject) (api.ListRoutinesResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	if s := req.Params.SiteId; s != nil {
		if err := a.CheckSite(*s); err != nil {
			return nil, err
		}
	}
	q := db.New(h.pool)
	rows, err := q.ListRoutines(ctx, db.ListRoutinesParams{OrgID: a.OrgID, Scope: a.SiteScope(), SiteID: req.Params.SiteId})
	if err != nil {
		return nil, err
	}
	zones := map[uuid.UUID]string{}
	now := h.clock.Now()
	out := make(api.ListRoutines200JSONResponse, 0, len(rows))
	for _, r := range rows {
		z, ok := zones[r.SiteID]
		if !ok {
			if z, err = q.SiteZone(ctx, db.SiteZoneParams{OrgID: a.OrgID, ID: r.SiteID}); err != nil {
				return nil, err
			}
			zones[r.SiteID] = z
		}
		out = append(out, routineToAPI(r, z, now))
	}
	return out, nil
}

// RunRoutineNow makes one occurrence's tasks at once, keyed by its own instant.
func (h *Handlers) RunRoutineNow(ctx context.Context, req api.RunRoutineNowRequestObject) (api.RunRoutineNowResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now().Truncate(time.Microsecond)
	var ids []uuid.UUID
	var occ time.Time
	var zone string
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		r, err := q.LockRoutine(ctx, db.LockRoutineParams{OrgID: a.OrgID, ID: req.Id})
		if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(r.SiteID)) {
			return errRoutineNotFound
		}
		if err != nil {
			return err
		}
		if zone, err = q.SiteZone(ctx, db.SiteZoneParams{OrgID: a.OrgID, ID: r.SiteID}); err != nil {
			return err
		}
		// Two runs at the same instant (the clock's resolution) each get their own key.
		for occ = now; ; occ = occ.Add(time.Microsecond) {
			got, err := q.ClaimOccurrences(ctx, db.ClaimOccurrencesParams{OrgID: a.OrgID, RoutineID: r.ID, Occurrences: []time.Time{occ}, Manual: true, Now: now})
			if err != nil {
				return err
			}
			if len(got) == 1 {
				break
			}
		}
		if ids, err = materialize(ctx, q, r, occ, now); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, a.OrgID, r.SiteID, r.ID, now)
	})
	if err != nil {
		return nil, err
	}
	views, err := db.New(h.pool).GetTaskViews(ctx, db.GetTaskViewsParams{OrgID: a.OrgID, Ids: ids})
	if err != nil {
		return nil, err
	}
	out := api.RunNowResult{Occurrence: FormatDue(occ, zone), Tasks: make([]api.Task, 0, len(views))}
	for _, v := range views {
		out.Tasks = append(out.Tasks, toAPI(v))
	}
	return api.RunRoutineNow200JSONResponse(out), nil
}

func routineToAPI(r db.Routine, zone string, now time.Time) api.Routine {
	out := api.Routine{
		Id: r.ID, SiteId: r.SiteID, Name: r.Name, Rrule: r.Rrule, StartsOn: openapi_types.Date{Time: r.StartsOn.Time},
		Active: r.Active, Items: []api.RoutineItem{}, NextOccurrences: []api.DueAt{}, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
	_ = json.Unmarshal(r.Items, &out.Items)
	if r.Active {
		if rule, err := ParseRule(r.Rrule, r.StartsOn.Time); err == nil {
			for _, t := range rule.Next(Zone(zone), now, 5) {
				out.NextOccurrences = append(out.NextOccurrences, FormatDue(t, zone))
			}
		}
	}
	return out
}

// planned is a routine and its site's zone, to plan.
type planned struct {
	r    db.Routine
	zone string
}

// plan makes the tasks of the routines' occurrences in [now, now+Horizon) not made yet. The
// occurrence keys (routine, instant) are claimed first, in one statement: of any number of
// replicas planning at once, one claims each occurrence and makes its tasks (copied in at once).
func plan(ctx context.Context, tx pgx.Tx, now time.Time, rs ...planned) error {
	q := db.New(tx)
	var orgIDs, routineIDs []uuid.UUID
	var occs []time.Time
	byID := map[uuid.UUID]db.Routine{}
	for _, p := range rs {
		if p.r.PlannedZone == nil || *p.r.PlannedZone != p.zone {
			if err := q.SetRoutinePlannedZone(ctx, db.SetRoutinePlannedZoneParams{OrgID: p.r.OrgID, ID: p.r.ID, Zone: &p.zone}); err != nil {
				return err
			}
		}
		if !p.r.Active {
			continue
		}
		rule, err := ParseRule(p.r.Rrule, p.r.StartsOn.Time)
		if err != nil {
			continue // stored rules were checked when saved; one the parser no longer reads makes nothing
		}
		byID[p.r.ID] = p.r
		for _, o := range rule.Between(Zone(p.zone), now, now.Add(Horizon)) {
			orgIDs, routineIDs, occs = append(orgIDs, p.r.OrgID), append(routineIDs, p.r.ID), append(occs, o)
		}
	}
	if len(occs) == 0 {
		return nil
	}
	claimed, err := q.ClaimOccurrencesOf(ctx, db.ClaimOccurrencesOfParams{OrgIds: orgIDs, RoutineIds: routineIDs, Occurrences: occs, Now: now})
	if err != nil || len(claimed) == 0 {
		return err
	}
	rows := make([]db.InsertTaskParams, 0, len(claimed))
	cache := map[uuid.UUID][]template{}
	for _, c := range claimed {
		ts, ok := cache[c.RoutineID]
		if !ok {
			if ts, err = templates(ctx, q, byID[c.RoutineID]); err != nil {
				return err
			}
			cache[c.RoutineID] = ts
		}
		for _, t := range ts {
			rows = append(rows, t.at(c.Occurrence, now))
		}
	}
	return copyTasks(ctx, tx, rows)
}

// replan removes the routine's future tasks not yet started and plans them again.
func replan(ctx context.Context, tx pgx.Tx, r db.Routine, zone string, now time.Time) error {
	q := db.New(tx)
	if _, err := q.DeleteUnstartedRoutineTasks(ctx, db.DeleteUnstartedRoutineTasksParams{OrgID: r.OrgID, RoutineID: r.ID, Now: now}); err != nil {
		return err
	}
	if err := q.ReleaseFutureOccurrences(ctx, db.ReleaseFutureOccurrencesParams{OrgID: r.OrgID, RoutineID: r.ID, Now: now}); err != nil {
		return err
	}
	return plan(ctx, tx, now, planned{r: r, zone: zone})
}

// template is a routine item resolved once per planning: the task it makes, due after its
// occurrence.
type template struct {
	p     db.InsertTaskParams
	after time.Duration
}

// at is the template's task for an occurrence.
func (t template) at(occ, now time.Time) db.InsertTaskParams {
	p := t.p
	p.ID = uuid.Must(uuid.NewV7())
	p.DueAt = occ.Add(t.after)
	p.MissedAfter = p.DueAt.Add(time.Duration(p.GraceMinutes) * time.Minute)
	p.Occurrence, p.CreatedAt = &occ, now
	return p
}

// templates resolves a routine's items. A reference an item names that no longer holds (a
// position removed, a tag retired, a guide moved to other sites) is left off the task rather
// than stopping the routine.
func templates(ctx context.Context, q *db.Queries, r db.Routine) ([]template, error) {
	var items []api.RoutineItem
	if err := json.Unmarshal(r.Items, &items); err != nil {
		return nil, err
	}
	c := checker{ctx: ctx, q: q, org: r.OrgID, site: r.SiteID}
	out := make([]template, 0, len(items))
	for _, it := range items {
		p, err := c.params("", itemSpec(it), time.Time{})
		var ae *apierr.Error
		if errors.As(err, &ae) && ae.Kind == apierr.KindInvalid {
			s := itemSpec(it)
			s.Assignee, s.LinkedDocIDs, s.TargetTagID, s.RequiresScan = nil, nil, nil, nil
			p, err = c.params("", s, time.Time{})
		}
		if err != nil {
			return nil, err
		}
		p.Source, p.SourceID = sourceRoutine, &r.ID
		out = append(out, template{p: p, after: time.Duration(deref(it.DueAfterMinutes)) * time.Minute})
	}
	return out, nil
}

// materialize makes one occurrence's tasks (run-now), one per item, and returns their ids.
func materialize(ctx context.Context, q *db.Queries, r db.Routine, occ, now time.Time) ([]uuid.UUID, error) {
	ts, err := templates(ctx, q, r)
	if err != nil {
		return nil, err
	}
	ids := make([]uuid.UUID, 0, len(ts))
	for _, t := range ts {
		id, err := q.InsertTask(ctx, t.at(occ, now))
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// planBatch is how many routines one transaction of the planner walks.
const planBatch = 100

// PlanTask makes, every five minutes, the tasks of every active routine's occurrences in the
// next 24 hours, and plans again the future of a routine whose site changed time zone.
func PlanTask(pool *pgxpool.Pool, c clock.Clock) periodic.Task {
	return periodic.Task{Name: "tasks: plan routines", Every: 5 * time.Minute, Run: func(ctx context.Context) error {
		return PlanAll(ctx, pool, c.Now())
	}}
}

// PlanAll runs one planning pass at now.
func PlanAll(ctx context.Context, pool *pgxpool.Pool, now time.Time) error {
	after := uuid.Nil
	for {
		var n int
		err := pg.InTx(ctx, pool, func(tx pgx.Tx) error {
			q := db.New(tx)
			rows, err := q.ActiveRoutines(ctx, db.ActiveRoutinesParams{After: after, MaxRows: planBatch})
			if err != nil {
				return err
			}
			n = len(rows)
			batch := make([]planned, 0, len(rows))
			for _, row := range rows {
				after = row.ID
				r := db.Routine{
					ID: row.ID, OrgID: row.OrgID, SiteID: row.SiteID, Name: row.Name, Rrule: row.Rrule, StartsOn: row.StartsOn,
					Active: row.Active, Items: row.Items, PlannedZone: row.PlannedZone, CreatedAt: row.CreatedAt, UpdatedAt: row.UpdatedAt,
				}
				if r.PlannedZone != nil && *r.PlannedZone != row.Timezone {
					// The site moved zone: lock the routine and look again (another replica may
					// have planned it already), then plan its future again in the new zone.
					if r, err = q.LockRoutine(ctx, db.LockRoutineParams{OrgID: r.OrgID, ID: r.ID}); err != nil {
						return err
					}
					if r.PlannedZone != nil && *r.PlannedZone != row.Timezone {
						if err := replan(ctx, tx, r, row.Timezone, now); err != nil {
							return err
						}
						continue
					}
				}
				batch = append(batch, planned{r: r, zone: row.Timezone})
			}
			if err := plan(ctx, tx, now, batch...); err != nil {
				return err
			}
			return nil
		})
		if err != nil {
			return err
		}
		if n < planBatch {
			return nil
		}
	}
}

// taskColumns are the columns copyTasks writes, in the order of db.InsertTaskParams.
var taskColumns = []string{"id", "org_id", "site_id", "title", "description", "kind", "priority", "required", "requires_scan",
	"requires_photo", "requires_temp", "temp_min_f", "temp_max_f", "target_type", "target_id", "target_name", "linked_doc_ids",
	"assignee_user_id", "assignee_position_id", "due_at", "grace_minutes", "missed_after", "source", "source_id", "occurrence", "created_at"}

// copyTasks writes many tasks with one COPY (the planner's batch), as InsertTask writes one.
func copyTasks(ctx context.Context, tx pgx.Tx, rows []db.InsertTaskParams) error {
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"tasks"}, taskColumns, pgx.CopyFromSlice(len(rows), func(i int) ([]any, error) {
		p := rows[i]
		return []any{p.ID, p.OrgID, p.SiteID, p.Title, p.Description, p.Kind, p.Priority, p.Required, p.RequiresScan,
			p.RequiresPhoto, p.RequiresTemp, p.TempMinF, p.TempMaxF, p.TargetType, p.TargetID, p.TargetName, p.LinkedDocIds,
			p.AssigneeUserID, p.AssigneePositionID, p.DueAt, p.GraceMinutes, p.MissedAfter, p.Source, p.SourceID, p.Occurrence, p.CreatedAt}, nil
	}))
	return err
}
