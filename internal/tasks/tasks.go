// Package tasks owns what a kitchen's day is made of besides cooking: tasks (one thing to do at
// a site by a time, completed with evidence), routines (recurring checklists that make tasks),
// positions (roles on the floor tasks are assigned to), guides (documents tasks link to),
// huddles (shift meetings whose actions become tasks) and the follow-up task of a sensor alert.
//
// Two pieces of periodic work keep tasks moving without a request: MissedTask marks open tasks
// past their grace missed (and opens task_missed for required ones), PlanTask makes every active
// routine's tasks for the next 24 hours. Both are safe on any number of replicas: a conditional
// update and a unique key, not a lock held in memory.
package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/paging"
	"github.com/sous-app/sous/internal/pg"
)

// Defaults the issue fixes.
const (
	DefaultGrace   = 30 * time.Minute
	sourceManual   = "manual"
	sourceRoutine  = "routine"
	sourceHuddle   = "huddle"
	sourceSensor   = "sensor_alert"
	statusOpen     = "open"
	statusDone     = "done"
	statusMissed   = "missed"
	statusCanceled = "cancelled"
)

// DueLayout is how the spec writes a task's dueAt: date, space, time, UTC offset.
const DueLayout = "2006-01-02 15:04:05-07:00"

// Handlers serve the tasks, routines, positions, guides and huddles operations.
type Handlers struct {
	pool  *pgxpool.Pool
	clock clock.Clock
}

func NewHandlers(pool *pgxpool.Pool, c clock.Clock) *Handlers {
	return &Handlers{pool: pool, clock: c}
}

var errTaskNotFound = apierr.NotFound("Task")

// zones caches loaded time zones (time.LoadLocation reads the zone database every call).
var zones sync.Map

// Zone loads an IANA zone, UTC when the name is unknown (sites' zones are checked when set).
func Zone(name string) *time.Location {
	if l, ok := zones.Load(name); ok {
		return l.(*time.Location)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return time.UTC
	}
	zones.Store(name, loc)
	return loc
}

// FormatDue writes t as the spec writes dueAt, in zone.
func FormatDue(t time.Time, zone string) string { return t.In(Zone(zone)).Format(DueLayout) }

var dueLayouts = []string{"2006-01-02 15:04:05Z07:00", time.RFC3339, "2006-01-02 15:04Z07:00", "2006-01-02T15:04Z07:00"}

// ParseDue reads a moment in the dueAt form or RFC 3339.
func ParseDue(field, s string) (time.Time, error) {
	for _, l := range dueLayouts {
		if t, err := time.Parse(l, s); err == nil {
			if !clock.InRange(t) {
				return time.Time{}, apierr.InvalidField(field, clock.RangeProblem)
			}
			return t, nil
		}
	}
	return time.Time{}, apierr.InvalidField(field, "must be a moment such as 2026-03-02 14:00:00-06:00 or 2026-03-02T20:00:00Z")
}

// checker validates what a task refers to, at its site.
type checker struct {
	ctx  context.Context
	q    *db.Queries
	org  uuid.UUID
	site uuid.UUID
}

// assignee checks a member with access to the site or a position of the site; exactly one.
func (c checker) assignee(field string, userID, positionID *uuid.UUID) (*uuid.UUID, *uuid.UUID, error) {
	switch {
	case userID != nil && positionID != nil:
		return nil, nil, apierr.InvalidField(field, "give either userId or positionId, not both")
	case userID != nil:
		sites, err := c.q.MemberSites(c.ctx, db.MemberSitesParams{OrgID: c.org, UserID: *userID})
		if pg.IsNoRows(err) {
			return nil, nil, apierr.InvalidField(field+".userId", "is not a member of the organization")
		}
		if err != nil {
			return nil, nil, err
		}
		if len(sites) > 0 && !slices.Contains(sites, c.site) {
			return nil, nil, apierr.InvalidField(field+".userId", "is a member without access to the task's site")
		}
		return userID, nil, nil
	case positionID != nil:
		p, err := c.q.GetPosition(c.ctx, db.GetPositionParams{OrgID: c.org, ID: *positionID})
		if pg.IsNoRows(err) || (err == nil && p.SiteID != c.site) {
			return nil, nil, apierr.InvalidField(field+".positionId", "is not a position of the task's site")
		}
		if err != nil {
			return nil, nil, err
		}
		return nil, positionID, nil
	}
	return nil, nil, apierr.InvalidField(field, "give userId or positionId")
}

type target struct {
	typ, name *string
	id        *uuid.UUID
}

// target resolves a tag to the target a scan must hit.
func (c checker) target(field string, tagID *uuid.UUID) (target, error) {
	if tagID == nil {
		return target{}, nil
	}
	t, err := c.q.GetTagTarget(c.ctx, db.GetTagTargetParams{OrgID: c.org, ID: *tagID})
	if pg.IsNoRows(err) {
		return target{}, apierr.InvalidField(field, "is not a current tag of the organization")
	}
	if err != nil {
		return target{}, err
	}
	if t.SiteID != nil && *t.SiteID != c.site {
		return target{}, apierr.InvalidField(field, "is a tag of another site")
	}
	id := t.ID
	if t.TargetID != nil { // a site, or equipment named by id
		id = *t.TargetID
	}
	return target{typ: &t.TargetType, name: &t.Name, id: &id}, nil
}

// docs checks guides of the organization for the site, and returns them without repeats.
func (c checker) docs(field string, ids *[]uuid.UUID) ([]uuid.UUID, error) {
	out := []uuid.UUID{}
	if ids == nil {
		return out, nil
	}
	for _, id := range *ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	if len(out) == 0 {
		return out, nil
	}
	rows, err := c.q.GuidesSites(c.ctx, db.GuidesSitesParams{OrgID: c.org, Ids: out})
	if err != nil {
		return nil, err
	}
	found := map[uuid.UUID]bool{}
	for _, r := range rows {
		if len(r.SiteIds) == 0 || slices.Contains(r.SiteIds, c.site) {
			found[r.ID] = true
		}
	}
	for _, id := range out {
		if !found[id] {
			return nil, apierr.InvalidField(field, fmt.Sprintf("%s is not a guide for the task's site", id))
		}
	}
	return out, nil
}

// spec is what every origin of task needs checked: the fields a task and a routine item share.
type spec struct {
	Title         string
	Description   *string
	Kind          *api.TaskKind
	Priority      *api.TaskPriority
	Required      *bool
	RequiresScan  *bool
	RequiresPhoto *bool
	RequiresTemp  *bool
	TempRange     *api.TempRange
	TargetTagID   *uuid.UUID
	LinkedDocIDs  *[]uuid.UUID
	Assignee      *api.AssigneeInput
	GraceMinutes  *int
}

// params checks s (field names under prefix) and returns the insert for a task due at due.
func (c checker) params(prefix string, s spec, due time.Time) (db.InsertTaskParams, error) {
	p := db.InsertTaskParams{
		ID: uuid.Must(uuid.NewV7()), OrgID: c.org, SiteID: c.site, Description: s.Description,
		Kind: "other", Priority: "medium", Required: deref(s.Required), RequiresScan: deref(s.RequiresScan),
		RequiresPhoto: deref(s.RequiresPhoto), RequiresTemp: deref(s.RequiresTemp), DueAt: due,
		GraceMinutes: int32(DefaultGrace / time.Minute),
	}
	p.Title = strings.TrimSpace(s.Title)
	if p.Title == "" {
		return p, apierr.InvalidField(prefix+"title", "must not be blank")
	}
	if s.Kind != nil {
		p.Kind = string(*s.Kind)
	}
	if s.Priority != nil {
		p.Priority = string(*s.Priority)
	}
	if s.GraceMinutes != nil {
		p.GraceMinutes = int32(*s.GraceMinutes)
	}
	p.MissedAfter = due.Add(time.Duration(p.GraceMinutes) * time.Minute)
	if s.TempRange != nil {
		if !p.RequiresTemp {
			return p, apierr.InvalidField(prefix+"tempRange", "needs requiresTemp")
		}
		lo, err1 := decimal.NewFromString(s.TempRange.MinF)
		hi, err2 := decimal.NewFromString(s.TempRange.MaxF)
		if err1 != nil || err2 != nil || lo.GreaterThan(hi) {
			return p, apierr.InvalidField(prefix+"tempRange", "minF must not be above maxF")
		}
		p.TempMinF, p.TempMaxF = &lo, &hi
	}
	if p.RequiresScan && s.TargetTagID == nil {
		return p, apierr.InvalidField(prefix+"targetTagId", "is required with requiresScan: the tag whose target a scan must hit")
	}
	t, err := c.target(prefix+"targetTagId", s.TargetTagID)
	if err != nil {
		return p, err
	}
	p.TargetType, p.TargetID, p.TargetName = t.typ, t.id, t.name
	if p.LinkedDocIds, err = c.docs(prefix+"linkedDocIds", s.LinkedDocIDs); err != nil {
		return p, err
	}
	if s.Assignee != nil {
		if p.AssigneeUserID, p.AssigneePositionID, err = c.assignee(prefix+"assignee", s.Assignee.UserId, s.Assignee.PositionId); err != nil {
			return p, err
		}
	}
	return p, nil
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// site loads a site the member can see: 404 Site for one outside the scope or unknown.
func site(ctx context.Context, q *db.Queries, a authz.Access, id uuid.UUID) (string, error) {
	if err := a.CheckSite(id); err != nil {
		return "", err
	}
	zone, err := q.SiteZone(ctx, db.SiteZoneParams{OrgID: a.OrgID, ID: id})
	if pg.IsNoRows(err) {
		return "", apierr.NotFound("Site")
	}
	return zone, err
}

func (h *Handlers) CreateTask(ctx context.Context, req api.CreateTaskRequestObject) (api.CreateTaskResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	due, err := ParseDue("dueAt", b.DueAt)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var id uuid.UUID
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		if _, err := site(ctx, q, a, b.SiteId); err != nil {
			return err
		}
		c := checker{ctx: ctx, q: q, org: a.OrgID, site: b.SiteId}
		p, err := c.params("", spec{
			Title: b.Title, Description: b.Description, Kind: b.Kind, Priority: b.Priority, Required: b.Required,
			RequiresScan: b.RequiresScan, RequiresPhoto: b.RequiresPhoto, RequiresTemp: b.RequiresTemp, TempRange: b.TempRange,
			TargetTagID: b.TargetTagId, LinkedDocIDs: b.LinkedDocIds, Assignee: b.Assignee, GraceMinutes: b.GraceMinutes,
		}, due)
		if err != nil {
			return err
		}
		p.Source, p.CreatedAt = sourceManual, now
		if id, err = q.InsertTask(ctx, p); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, a.OrgID, b.SiteId, id, now)
	})
	if err != nil {
		return nil, err
	}
	v, err := db.New(h.pool).GetTaskView(ctx, db.GetTaskViewParams{OrgID: a.OrgID, ID: id})
	if err != nil {
		return nil, err
	}
	return api.CreateTask201JSONResponse{Body: toAPI(v)}, nil
}

type cursor struct {
	At time.Time `json:"a"`
	ID uuid.UUID `json:"i"`
}

func (h *Handlers) ListTasks(ctx context.Context, req api.ListTasksRequestObject) (api.ListTasksResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	if p.SiteId != nil {
		if err := a.CheckSite(*p.SiteId); err != nil {
			return nil, err
		}
	}
	limit := paging.Limit(p.Limit)
	params := db.ListTasksParams{
		OrgID: req.OrgId, Scope: a.SiteScope(), SiteID: p.SiteId, PositionID: p.PositionId, AssigneeID: p.AssigneeId,
		MaxRows: paging.Fetch(limit),
	}
	v := url.Values{}
	if p.SiteId != nil {
		v.Set("siteId", p.SiteId.String())
	}
	if p.Status != nil {
		s := string(*p.Status)
		params.Status = &s
		v.Set("status", s)
	}
	if p.Kind != nil {
		s := string(*p.Kind)
		params.Kind = &s
		v.Set("kind", s)
	}
	if p.Source != nil {
		s := string(*p.Source)
		params.Source = &s
		v.Set("source", s)
	}
	if p.AssigneeId != nil {
		v.Set("assigneeId", p.AssigneeId.String())
	}
	if p.PositionId != nil {
		v.Set("positionId", p.PositionId.String())
	}
	if p.DueFrom != nil {
		t, err := ParseDue("dueFrom", *p.DueFrom)
		if err != nil {
			return nil, err
		}
		params.DueFrom = &t
		v.Set("dueFrom", *p.DueFrom)
	}
	if p.DueTo != nil {
		t, err := ParseDue("dueTo", *p.DueTo)
		if err != nil {
			return nil, err
		}
		params.DueTo = &t
		v.Set("dueTo", *p.DueTo)
	}
	if p.Limit != nil {
		v.Set("limit", strconv.Itoa(*p.Limit))
	}
	if p.Cursor != nil {
		var c cursor
		if err := paging.DecodeCursor(*p.Cursor, &c, func() bool { return c.ID != uuid.Nil }); err != nil {
			return nil, err
		}
		params.CursorAt, params.CursorID = &c.At, &c.ID
	}
	rows, err := db.New(h.pool).ListTasks(ctx, params)
	if err != nil {
		return nil, err
	}
	out := api.ListTasks200JSONResponse{Body: make([]api.Task, 0, len(rows))}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last db.TaskView) any { return cursor{At: last.DueAt, ID: last.ID} })
	for _, r := range rows {
		out.Body = append(out.Body, toAPI(r))
	}
	return out, nil
}

func (h *Handlers) GetTask(ctx context.Context, req api.GetTaskRequestObject) (api.GetTaskResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	q := db.New(h.pool)
	v, err := q.GetTaskView(ctx, db.GetTaskViewParams{OrgID: req.OrgId, ID: req.Id})
	if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(v.SiteID)) {
		return nil, errTaskNotFound
	}
	if err != nil {
		return nil, err
	}
	t := toAPI(v)
	photos, err := q.ListTaskPhotos(ctx, db.ListTaskPhotosParams{OrgID: req.OrgId, TaskID: req.Id})
	if err != nil {
		return nil, err
	}
	ps := make([]api.TaskPhoto, 0, len(photos))
	for _, p := range photos {
		ps = append(ps, photoToAPI(req.OrgId, req.Id, p.ID, p.ContentType, p.Size, p.Filename, p.CreatedAt))
	}
	guides := []api.GuideRef{}
	if len(v.LinkedDocIds) > 0 {
		rows, err := q.GuidesSites(ctx, db.GuidesSitesParams{OrgID: req.OrgId, Ids: v.LinkedDocIds})
		if err != nil {
			return nil, err
		}
		byID := map[uuid.UUID]string{}
		for _, r := range rows {
			byID[r.ID] = r.Title
		}
		for _, id := range v.LinkedDocIds {
			if title, ok := byID[id]; ok {
				guides = append(guides, api.GuideRef{Id: id, Title: title})
			}
		}
	}
	t.Photos, t.Guides = &ps, &guides
	return api.GetTask200JSONResponse(t), nil
}

func photoToAPI(org, task, id uuid.UUID, contentType string, size int32, filename *string, at time.Time) api.TaskPhoto {
	return api.TaskPhoto{
		MediaId: id, ContentType: api.TaskPhotoContentType(contentType), Size: int(size), Filename: filename, CreatedAt: at,
		Url: fmt.Sprintf("/v1/orgs/%s/tasks/%s/photos/%s", org, task, id),
	}
}

func toAPI(v db.TaskView) api.Task {
	t := api.Task{
		Id: v.ID, SiteId: v.SiteID, Title: v.Title, Kind: api.TaskKind(v.Kind), DueAt: FormatDue(v.DueAt, v.Timezone),
		Priority: api.TaskPriority(v.Priority), Status: api.TaskStatus(v.Status), RequiresScan: v.RequiresScan,
		RequiresPhoto: v.RequiresPhoto, RequiresTemp: v.RequiresTemp, LinkedDocIds: v.LinkedDocIds,
		AttachmentMediaIds: v.PhotoIds, Source: api.TaskSource(v.Source), Description: v.Description,
		Required: v.Required, SourceId: v.SourceID, GraceMinutes: int(v.GraceMinutes), CompletedAt: v.CompletedAt,
		CompletedBy: v.CompletedBy, Late: v.Late, CreatedAt: v.CreatedAt,
	}
	if t.LinkedDocIds == nil {
		t.LinkedDocIds = []uuid.UUID{}
	}
	if t.AttachmentMediaIds == nil {
		t.AttachmentMediaIds = []uuid.UUID{}
	}
	if v.AssigneeUserID != nil || v.AssigneePositionID != nil {
		t.Assignee = &api.Assignee{UserId: v.AssigneeUserID, PositionId: v.AssigneePositionID, Name: v.AssigneeName}
	}
	if v.TargetType != nil && v.TargetID != nil {
		t.Target = &api.TaskTarget{Type: api.TaskTargetType(*v.TargetType), Id: *v.TargetID, Name: deref(v.TargetName)}
	}
	if v.TempMinF != nil && v.TempMaxF != nil {
		t.TempRange = &api.TempRange{MinF: v.TempMinF.String(), MaxF: v.TempMaxF.String()}
	}
	if len(v.Evidence) > 0 {
		var e api.Evidence
		if json.Unmarshal(v.Evidence, &e) == nil {
			t.Evidence = &e
		}
	}
	return t
}

// lockTask locks a task the member can see, for a write.
func lockTask(ctx context.Context, tx pgx.Tx, a authz.Access, id uuid.UUID) (db.Task, error) {
	t, err := db.New(tx).GetTaskForUpdate(ctx, db.GetTaskForUpdateParams{OrgID: a.OrgID, ID: id})
	if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(t.SiteID)) {
		return t, errTaskNotFound
	}
	return t, err
}

// closedConflict refuses a change to a task that is finished.
func closedConflict(t db.Task) error {
	switch t.Status {
	case statusDone:
		return apierr.Conflict("The task is already done")
	case statusCanceled:
		return apierr.Conflict("The task is cancelled")
	}
	return nil
}

func (h *Handlers) view(ctx context.Context, org, id uuid.UUID) (api.Task, error) {
	v, err := db.New(h.pool).GetTaskView(ctx, db.GetTaskViewParams{OrgID: org, ID: id})
	if err != nil {
		return api.Task{}, err
	}
	return toAPI(v), nil
}
