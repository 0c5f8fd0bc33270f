package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
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
	"github.com/sous-app/sous/internal/paging"
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
	// occs are the occurrences of the first planning (now to now+Horizon), found with the
	// rule before any transaction begins.
	occs []time.Time
}

// checkRoutine checks a routine request's name and rule for a site in zone, and expands the
// rule (bounded, see CheckRule): it touches no database, so it runs before any transaction.
func checkRoutine(b api.RoutineRequest, zone string, now time.Time) (routineInput, error) {
	in := routineInput{name: strings.TrimSpace(b.Name), rrule: strings.TrimSpace(b.Rrule), active: b.Active == nil || *b.Active, items: b.Items}
	if in.name == "" {
		return in, apierr.InvalidField("name", "must not be blank")
	}
	loc := Zone(zone)
	l := now.In(loc)
	today := time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, time.UTC)
	in.startsOn = today
	if b.StartsOn != nil {
		in.startsOn = b.StartsOn.Time
	}
	rule, err := CheckRule(in.rrule, in.startsOn, today, len(in.items))
	if err != nil {
		return in, err
	}
	if in.active {
		if in.occs, err = rule.Between(loc, now, now.Add(Horizon), len(in.items)); err != nil {
			return in, apierr.InvalidField("rrule", "too costly to plan: make it simpler")
		}
	}
	return in, nil
}

// checkItems checks a routine's items as POST /tasks checks a task.
func checkItems(ctx context.Context, q *db.Queries, org, siteID uuid.UUID, items []api.RoutineItem, now time.Time) error {
	c := checker{ctx: ctx, q: q, org: org, site: siteID}
	for i, it := range items {
		if _, err := c.params(itemField(i), itemSpec(it), now); err != nil {
			return err
		}
	}
	return nil
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
	// The rule is checked and expanded before the transaction: however long that takes (it
	// is bounded), no connection is held meanwhile.
	zone, err := site(ctx, db.New(h.pool), a, b.SiteId)
	if err != nil {
		return nil, err
	}
	in, err := checkRoutine(b, zone, now)
	if err != nil {
		return nil, err
	}
	items, err := json.Marshal(in.items)
	if err != nil {
		return nil, err
	}
	var r db.Routine
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		if err := checkItems(ctx, q, a.OrgID, b.SiteId, in.items, now); err != nil {
			return err
		}
		r, err = q.InsertRoutine(ctx, db.InsertRoutineParams{
			ID: uuid.Must(uuid.NewV7()), OrgID: a.OrgID, SiteID: b.SiteId, Name: in.name, Rrule: in.rrule,
			StartsOn: pgtype.Date{Time: in.startsOn, Valid: true}, Active: in.active, Items: items, Now: now,
		})
		if err != nil {
			return err
		}
		if err := plan(ctx, tx, now, planned{r: r, zone: zone, occs: in.occs}); err != nil {
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
	// As on create, the rule is checked and expanded before the transaction, in the zone of
	// the routine's site (which the routine cannot leave).
	q := db.New(h.pool)
	cur, err := q.GetRoutine(ctx, db.GetRoutineParams{OrgID: a.OrgID, ID: req.Id})
	if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(cur.SiteID)) {
		return nil, errRoutineNotFound
	}
	if err != nil {
		return nil, err
	}
	if b.SiteId != cur.SiteID {
		return nil, apierr.InvalidField("siteId", "cannot change: make a new routine for another site")
	}
	zone, err := q.SiteZone(ctx, db.SiteZoneParams{OrgID: a.OrgID, ID: cur.SiteID})
	if err != nil {
		return nil, err
	}
	in, err := checkRoutine(b, zone, now)
	if err != nil {
		return nil, err
	}
	items, err := json.Marshal(in.items)
	if err != nil {
		return nil, err
	}
	var r db.Routine
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		if _, err := q.LockRoutine(ctx, db.LockRoutineParams{OrgID: a.OrgID, ID: cur.ID}); pg.IsNoRows(err) {
			return errRoutineNotFound
		} else if err != nil {
			return err
		}
		if err := checkItems(ctx, q, a.OrgID, cur.SiteID, in.items, now); err != nil {
			return err
		}
		r, err = q.UpdateRoutine(ctx, db.UpdateRoutineParams{
			OrgID: a.OrgID, ID: cur.ID, Name: in.name, Rrule: in.rrule, StartsOn: pgtype.Date{Time: in.startsOn, Valid: true},
			Active: in.active, Items: items, Now: now,
		})
		if err != nil {
			return err
		}
		// Planned in the zone read before the transaction: should the site have changed zone
		// since, planned_zone says so and the planner's next pass plans the routine again.
		if err := replan(ctx, tx, planned{r: r, zone: zone, occs: in.occs}, now); err != nil {
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
	limit := paging.Limit(req.Params.Limit)
	p := db.ListRoutinesParams{OrgID: a.OrgID, Scope: a.SiteScope(), SiteID: req.Params.SiteId, MaxRows: paging.Fetch(limit)}
	if req.Params.Cursor != nil {
		var c routineCursor
		if err := paging.DecodeCursor(*req.Params.Cursor, &c, func() bool { return c.ID != uuid.Nil }); err != nil {
			return nil, err
		}
		p.CursorName, p.CursorID = &c.Name, &c.ID
	}
	q := db.New(h.pool)
	rows, err := q.ListRoutines(ctx, p)
	if err != nil {
		return nil, err
	}
	zones := map[uuid.UUID]string{}
	now := h.clock.Now()
	out := api.ListRoutines200JSONResponse{Body: make([]api.Routine, 0, len(rows))}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last db.Routine) any { return routineCursor{Name: last.Name, ID: last.ID} })
	for _, r := range rows {
		z, ok := zones[r.SiteID]
		if !ok {
			if z, err = q.SiteZone(ctx, db.SiteZoneParams{OrgID: a.OrgID, ID: r.SiteID}); err != nil {
				return nil, err
			}
			zones[r.SiteID] = z
		}
		out.Body = append(out.Body, routineToAPI(r, z, now))
	}
	return out, nil
}

// routineCursor is the position of a page of routines: their order is by name, then id.
type routineCursor struct {
	Name string    `json:"n"`
	ID   uuid.UUID `json:"i"`
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

// planned is a routine, its site's zone, and its occurrences in the planning window, found
// before the transaction that plans them.
type planned struct {
	r    db.Routine
	zone string
	occs []time.Time
}

// occurrences finds a routine's occurrences in [now, now+Horizon), bounded (see Between). A
// rule stored before today's checks may fail them: it plans nothing, and why is returned.
func occurrences(r db.Routine, zone string, now time.Time) ([]time.Time, error) {
	if !r.Active {
		return nil, nil
	}
	rule, err := ParseRule(r.Rrule, r.StartsOn.Time)
	if err != nil {
		return nil, err
	}
	var items []json.RawMessage
	if err := json.Unmarshal(r.Items, &items); err != nil {
		return nil, err
	}
	return rule.Between(Zone(zone), now, now.Add(Horizon), len(items))
}

// plan makes the tasks of the routines' occurrences (found beforehand) not made yet. The
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
		byID[p.r.ID] = p.r
		for _, o := range p.occs {
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
func replan(ctx context.Context, tx pgx.Tx, p planned, now time.Time) error {
	q := db.New(tx)
	if _, err := q.DeleteUnstartedRoutineTasks(ctx, db.DeleteUnstartedRoutineTasksParams{OrgID: p.r.OrgID, RoutineID: p.r.ID, Now: now}); err != nil {
		return err
	}
	if err := q.ReleaseFutureOccurrences(ctx, db.ReleaseFutureOccurrencesParams{OrgID: p.r.OrgID, RoutineID: p.r.ID, Now: now}); err != nil {
		return err
	}
	return plan(ctx, tx, now, p)
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
func PlanTask(pool *pgxpool.Pool, c clock.Clock, logger *slog.Logger) periodic.Task {
	return periodic.Task{Name: "tasks: plan routines", Every: 5 * time.Minute, Run: func(ctx context.Context) error {
		return PlanAll(ctx, pool, c.Now(), logger)
	}}
}

// PlanAll runs one planning pass at now. Each batch of routines is read, then expanded (each
// routine bounded, no connection held), then planned in one transaction. A routine whose
// stored rule fails today's checks (saved before them) is skipped, with a warning.
func PlanAll(ctx context.Context, pool *pgxpool.Pool, now time.Time, logger *slog.Logger) error {
	after := uuid.Nil
	for {
		rows, err := db.New(pool).ActiveRoutines(ctx, db.ActiveRoutinesParams{After: after, MaxRows: planBatch})
		if err != nil {
			return err
		}
		batch := make([]planned, 0, len(rows))
		var moved []planned // routines whose site changed zone: planned again from scratch
		for _, row := range rows {
			after = row.ID
			r := db.Routine{
				ID: row.ID, OrgID: row.OrgID, SiteID: row.SiteID, Name: row.Name, Rrule: row.Rrule, StartsOn: row.StartsOn,
				Active: row.Active, Items: row.Items, PlannedZone: row.PlannedZone, CreatedAt: row.CreatedAt, UpdatedAt: row.UpdatedAt,
			}
			occs, err := occurrences(r, row.Timezone, now)
			if err != nil {
				logger.Warn("tasks: routine not planned: its rule fails the checks", "org", r.OrgID, "routine", r.ID, "rrule", r.Rrule, "reason", err.Error())
				continue
			}
			p := planned{r: r, zone: row.Timezone, occs: occs}
			if r.PlannedZone != nil && *r.PlannedZone != row.Timezone {
				moved = append(moved, p)
			} else {
				batch = append(batch, p)
			}
		}
		err = pg.InTx(ctx, pool, func(tx pgx.Tx) error {
			q := db.New(tx)
			for _, p := range moved {
				// Lock the routine and look again (another replica may have planned it already,
				// or someone changed it since it was read: the next pass takes it up then).
				cur, err := q.LockRoutine(ctx, db.LockRoutineParams{OrgID: p.r.OrgID, ID: p.r.ID})
				if pg.IsNoRows(err) {
					continue
				}
				if err != nil {
					return err
				}
				if !cur.UpdatedAt.Equal(p.r.UpdatedAt) || cur.PlannedZone == nil || *cur.PlannedZone == p.zone {
					continue
				}
				p.r = cur
				if err := replan(ctx, tx, p, now); err != nil {
					return err
				}
			}
			keep, err := unchanged(ctx, q, batch)
			if err != nil {
				return err
			}
			return plan(ctx, tx, now, keep...)
		})
		if err != nil {
			return err
		}
		if len(rows) < planBatch {
			return nil
		}
	}
}

// unchanged locks the batch's routines (shared) and keeps those not changed since they were
// read: their occurrences were found from what they were then.
func unchanged(ctx context.Context, q *db.Queries, batch []planned) ([]planned, error) {
	if len(batch) == 0 {
		return nil, nil
	}
	orgIDs, ids := make([]uuid.UUID, len(batch)), make([]uuid.UUID, len(batch))
	for i, p := range batch {
		orgIDs[i], ids[i] = p.r.OrgID, p.r.ID
	}
	rows, err := q.LockRoutineVersions(ctx, db.LockRoutineVersionsParams{OrgIds: orgIDs, Ids: ids})
	if err != nil {
		return nil, err
	}
	version := make(map[uuid.UUID]time.Time, len(rows))
	for _, r := range rows {
		version[r.ID] = r.UpdatedAt
	}
	out := batch[:0:0]
	for _, p := range batch {
		if v, ok := version[p.r.ID]; ok && v.Equal(p.r.UpdatedAt) {
			out = append(out, p)
		}
	}
	return out, nil
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
