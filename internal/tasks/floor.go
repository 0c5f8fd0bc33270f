package tasks

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/pg"
)

var (
	errPositionNotFound = apierr.NotFound("Position")
	errGuideNotFound    = apierr.NotFound("Guide")
)

// Positions.

func (h *Handlers) ListPositions(ctx context.Context, req api.ListPositionsRequestObject) (api.ListPositionsResponseObject, error) {
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
	rows, err := q.ListPositions(ctx, db.ListPositionsParams{OrgID: a.OrgID, Scope: a.SiteScope(), SiteID: req.Params.SiteId})
	if err != nil {
		return nil, err
	}
	out, err := positionsToAPI(ctx, q, a.OrgID, rows)
	if err != nil {
		return nil, err
	}
	return api.ListPositions200JSONResponse(out), nil
}

func positionsToAPI(ctx context.Context, q *db.Queries, org uuid.UUID, rows []db.Position) ([]api.Position, error) {
	ids := make([]uuid.UUID, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	members, err := q.PositionMembers(ctx, db.PositionMembersParams{OrgID: org, PositionIds: ids})
	if err != nil {
		return nil, err
	}
	by := map[uuid.UUID][]uuid.UUID{}
	for _, m := range members {
		by[m.PositionID] = append(by[m.PositionID], m.UserID)
	}
	out := make([]api.Position, 0, len(rows))
	for _, r := range rows {
		users := by[r.ID]
		if users == nil {
			users = []uuid.UUID{}
		}
		out = append(out, api.Position{Id: r.ID, SiteId: r.SiteID, Name: r.Name, UserIds: users, CreatedAt: r.CreatedAt})
	}
	return out, nil
}

func (h *Handlers) CreatePosition(ctx context.Context, req api.CreatePositionRequestObject) (api.CreatePositionResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSpace(req.Body.Name)
	if name == "" {
		return nil, apierr.InvalidField("name", "must not be blank")
	}
	now := h.clock.Now()
	var out []api.Position
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		if _, err := site(ctx, q, a, req.Body.SiteId); err != nil {
			return err
		}
		p, err := q.InsertPosition(ctx, db.InsertPositionParams{ID: uuid.Must(uuid.NewV7()), OrgID: a.OrgID, SiteID: req.Body.SiteId, Name: name, Now: now})
		if err != nil {
			return err
		}
		if out, err = positionsToAPI(ctx, q, a.OrgID, []db.Position{p}); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, a.OrgID, p.SiteID, p.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.CreatePosition201JSONResponse{Body: out[0]}, nil
}

// lockPosition locks a position the member can see.
func lockPosition(ctx context.Context, q *db.Queries, a authz.Access, id uuid.UUID) (db.Position, error) {
	p, err := q.GetPositionForUpdate(ctx, db.GetPositionForUpdateParams{OrgID: a.OrgID, ID: id})
	if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(p.SiteID)) {
		return p, errPositionNotFound
	}
	return p, err
}

func (h *Handlers) UpdatePosition(ctx context.Context, req api.UpdatePositionRequestObject) (api.UpdatePositionResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	name := strings.TrimSpace(req.Body.Name)
	if name == "" {
		return nil, apierr.InvalidField("name", "must not be blank")
	}
	now := h.clock.Now()
	var out []api.Position
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		cur, err := lockPosition(ctx, q, a, req.Id)
		if err != nil {
			return err
		}
		if req.Body.SiteId != cur.SiteID {
			return apierr.InvalidField("siteId", "cannot change: a position belongs to its site")
		}
		p, err := q.RenamePosition(ctx, db.RenamePositionParams{OrgID: a.OrgID, ID: cur.ID, Name: name, Now: now})
		if err != nil {
			return err
		}
		if out, err = positionsToAPI(ctx, q, a.OrgID, []db.Position{p}); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, a.OrgID, p.SiteID, p.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.UpdatePosition200JSONResponse(out[0]), nil
}

func (h *Handlers) SetPositionMembers(ctx context.Context, req api.SetPositionMembersRequestObject) (api.SetPositionMembersResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var out []api.Position
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		p, err := lockPosition(ctx, q, a, req.Id)
		if err != nil {
			return err
		}
		users := []uuid.UUID{}
		for _, u := range req.Body.UserIds {
			if !slices.Contains(users, u) {
				users = append(users, u)
			}
		}
		rows, err := q.MembersSites(ctx, db.MembersSitesParams{OrgID: a.OrgID, UserIds: users})
		if err != nil {
			return err
		}
		ok := map[uuid.UUID]bool{}
		for _, r := range rows {
			ok[r.UserID] = len(r.SiteIds) == 0 || slices.Contains(r.SiteIds, p.SiteID)
		}
		for _, u := range users {
			if !ok[u] {
				return apierr.InvalidField("userIds", u.String()+" is not a member with access to the position's site")
			}
		}
		if err := q.ClearPositionMembers(ctx, db.ClearPositionMembersParams{OrgID: a.OrgID, PositionID: p.ID}); err != nil {
			return err
		}
		if err := q.AddPositionMembers(ctx, db.AddPositionMembersParams{OrgID: a.OrgID, PositionID: p.ID, UserIds: users}); err != nil {
			return err
		}
		if out, err = positionsToAPI(ctx, q, a.OrgID, []db.Position{p}); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, a.OrgID, p.SiteID, p.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.SetPositionMembers200JSONResponse(out[0]), nil
}

// Guides.

func guideToAPI(g db.Guide) api.Guide {
	return api.Guide{Id: g.ID, Title: g.Title, Body: g.Body, MediaIds: orEmpty(g.MediaIds), SiteIds: orEmpty(g.SiteIds), CreatedAt: g.CreatedAt, UpdatedAt: g.UpdatedAt}
}

func orEmpty(ids []uuid.UUID) []uuid.UUID {
	if ids == nil {
		return []uuid.UUID{}
	}
	return ids
}

// guideVisible: a guide for every site, or for one of the member's.
func guideVisible(a authz.Access, g db.Guide) bool {
	if !a.Scoped() || len(g.SiteIds) == 0 {
		return true
	}
	return slices.ContainsFunc(g.SiteIds, a.CanSeeSite)
}

// checkGuide checks a guide request: sites of the organization within the member's scope (a
// site-limited member names some of theirs), images of the organization within it too (kept
// are those already on the guide, which stay whoever attached them). An image the member may
// not see is answered as one that does not exist.
func checkGuide(ctx context.Context, q *db.Queries, a authz.Access, b api.GuideRequest, kept []uuid.UUID) (title string, media, sites []uuid.UUID, err error) {
	title = strings.TrimSpace(b.Title)
	if title == "" {
		return "", nil, nil, apierr.InvalidField("title", "must not be blank")
	}
	media, sites = dedupe(b.MediaIds), dedupe(b.SiteIds)
	if len(sites) == 0 && a.Scoped() {
		return "", nil, nil, apierr.Forbidden("A guide for every site needs access to every site; name some of your sites in siteIds").WithCode(apierr.CodeSiteScopeExceeded)
	}
	for _, s := range sites {
		if _, err := site(ctx, q, a, s); err != nil {
			return "", nil, nil, err
		}
	}
	added := slices.DeleteFunc(slices.Clone(media), func(id uuid.UUID) bool { return slices.Contains(kept, id) })
	if len(added) > 0 {
		n, err := q.CountMedia(ctx, db.CountMediaParams{OrgID: a.OrgID, Ids: added, Scope: a.SiteScope()})
		if err != nil {
			return "", nil, nil, err
		}
		if int(n) != len(added) {
			return "", nil, nil, apierr.InvalidField("mediaIds", "name images of the organization (POST /media)")
		}
	}
	return title, media, sites, nil
}

func dedupe(ids *[]uuid.UUID) []uuid.UUID {
	out := []uuid.UUID{}
	if ids == nil {
		return out
	}
	for _, id := range *ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// guideAuditSite is the site a guide's audit row names: its one site, or none.
func guideAuditSite(sites []uuid.UUID) uuid.UUID {
	if len(sites) == 1 {
		return sites[0]
	}
	return uuid.Nil
}

func (h *Handlers) ListGuides(ctx context.Context, req api.ListGuidesRequestObject) (api.ListGuidesResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := db.New(h.pool).ListGuides(ctx, db.ListGuidesParams{OrgID: a.OrgID, Scope: a.SiteScope()})
	if err != nil {
		return nil, err
	}
	out := make(api.ListGuides200JSONResponse, 0, len(rows))
	for _, g := range rows {
		out = append(out, guideToAPI(g))
	}
	return out, nil
}

func (h *Handlers) CreateGuide(ctx context.Context, req api.CreateGuideRequestObject) (api.CreateGuideResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var g db.Guide
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		title, media, sites, err := checkGuide(ctx, q, a, *req.Body, nil)
		if err != nil {
			return err
		}
		if g, err = q.InsertGuide(ctx, db.InsertGuideParams{ID: uuid.Must(uuid.NewV7()), OrgID: a.OrgID, Title: title, Body: req.Body.Body, MediaIds: media, SiteIds: sites, Now: now}); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, a.OrgID, guideAuditSite(sites), g.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.CreateGuide201JSONResponse{Body: guideToAPI(g)}, nil
}

func (h *Handlers) GetGuide(ctx context.Context, req api.GetGuideRequestObject) (api.GetGuideResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	g, err := db.New(h.pool).GetGuide(ctx, db.GetGuideParams{OrgID: a.OrgID, ID: req.Id})
	if pg.IsNoRows(err) || (err == nil && !guideVisible(a, g)) {
		return nil, errGuideNotFound
	}
	if err != nil {
		return nil, err
	}
	return api.GetGuide200JSONResponse(guideToAPI(g)), nil
}

func (h *Handlers) UpdateGuide(ctx context.Context, req api.UpdateGuideRequestObject) (api.UpdateGuideResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var g db.Guide
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		cur, err := q.GetGuideForUpdate(ctx, db.GetGuideForUpdateParams{OrgID: a.OrgID, ID: req.Id})
		if pg.IsNoRows(err) || (err == nil && !guideVisible(a, cur)) {
			return errGuideNotFound
		}
		if err != nil {
			return err
		}
		// A site-limited member changes only guides wholly within their sites.
		if a.Scoped() && (len(cur.SiteIds) == 0 || !allVisible(a, cur.SiteIds)) {
			return apierr.Forbidden("This guide is also for sites you have no access to").WithCode(apierr.CodeSiteScopeExceeded)
		}
		title, media, sites, err := checkGuide(ctx, q, a, *req.Body, cur.MediaIds)
		if err != nil {
			return err
		}
		if g, err = q.UpdateGuide(ctx, db.UpdateGuideParams{OrgID: a.OrgID, ID: cur.ID, Title: title, Body: req.Body.Body, MediaIds: media, SiteIds: sites, Now: now}); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, a.OrgID, guideAuditSite(sites), g.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.UpdateGuide200JSONResponse(guideToAPI(g)), nil
}

func allVisible(a authz.Access, sites []uuid.UUID) bool {
	for _, s := range sites {
		if !a.CanSeeSite(s) {
			return false
		}
	}
	return true
}

// Huddles.

func (h *Handlers) ListHuddles(ctx context.Context, req api.ListHuddlesRequestObject) (api.ListHuddlesResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	if s := req.Params.SiteId; s != nil {
		if err := a.CheckSite(*s); err != nil {
			return nil, err
		}
	}
	rows, err := db.New(h.pool).ListHuddles(ctx, db.ListHuddlesParams{OrgID: a.OrgID, Scope: a.SiteScope(), SiteID: req.Params.SiteId})
	if err != nil {
		return nil, err
	}
	out := make(api.ListHuddles200JSONResponse, 0, len(rows))
	for _, r := range rows {
		out = append(out, api.Huddle{
			Id: r.ID, SiteId: r.SiteID, Date: openapi_types.Date{Time: r.Date.Time}, DayPart: r.DayPart, Notes: r.Notes,
			TaskIds: orEmpty(r.TaskIds), CreatedAt: r.CreatedAt,
		})
	}
	return out, nil
}

func (h *Handlers) CreateHuddle(ctx context.Context, req api.CreateHuddleRequestObject) (api.CreateHuddleResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	now := h.clock.Now()
	var hu db.Huddle
	ids := []uuid.UUID{}
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		if _, err := site(ctx, q, a, b.SiteId); err != nil {
			return err
		}
		var dayPart *string
		if b.DayPart != nil && strings.TrimSpace(*b.DayPart) != "" {
			s := strings.TrimSpace(*b.DayPart)
			dayPart = &s
		}
		by := a.UserID()
		hu, err = q.InsertHuddle(ctx, db.InsertHuddleParams{
			ID: uuid.Must(uuid.NewV7()), OrgID: a.OrgID, SiteID: b.SiteId, Date: pgtype.Date{Time: b.Date.Time, Valid: true},
			DayPart: dayPart, Notes: deref(b.Notes), CreatedBy: &by, Now: now,
		})
		if err != nil {
			return err
		}
		c := checker{ctx: ctx, q: q, org: a.OrgID, site: b.SiteId}
		required := true
		for i, act := range deref(b.Actions) {
			field := "actions[" + strconv.Itoa(i) + "]."
			due, err := ParseDue(field+"dueAt", act.DueAt)
			if err != nil {
				return err
			}
			p, err := c.params(field, spec{Title: act.Title, Priority: act.Priority, Required: &required, Assignee: act.Assignee}, due)
			if err != nil {
				return err
			}
			p.Source, p.SourceID, p.CreatedAt = sourceHuddle, &hu.ID, now
			id, err := q.InsertTask(ctx, p)
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return audit.RecordSite(ctx, q, a.OrgID, b.SiteId, hu.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.CreateHuddle201JSONResponse{Body: api.Huddle{
		Id: hu.ID, SiteId: hu.SiteID, Date: openapi_types.Date{Time: hu.Date.Time}, DayPart: hu.DayPart, Notes: hu.Notes,
		TaskIds: ids, CreatedAt: hu.CreatedAt,
	}}, nil
}
