package records

import (
	"context"
	"errors"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/pg"
)

var errEquipmentNotFound = apierr.NotFound("Equipment")

func equipmentToAPI(e db.Equipment) api.Equipment {
	return api.Equipment{Id: e.ID, SiteId: e.SiteID, Name: e.Name, Kind: e.Kind, Make: e.Make, Model: e.Model, Serial: e.Serial,
		LocationId: e.LocationID, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt}
}

func trimmed(s *string) *string {
	if s == nil {
		return nil
	}
	t := strings.TrimSpace(*s)
	if t == "" {
		return nil
	}
	return &t
}

func equipmentInput(b api.EquipmentRequest) (name, kind string, err error) {
	name, kind = strings.TrimSpace(b.Name), strings.TrimSpace(b.Kind)
	if name == "" {
		return "", "", apierr.InvalidField("name", "must not be blank")
	}
	if kind == "" {
		return "", "", apierr.InvalidField("kind", "must not be blank")
	}
	return name, kind, nil
}

// locationErr turns the refusal of a storage location of another site (or none) into a 400.
func locationErr(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23503" && strings.Contains(pe.ConstraintName, "location") {
		return apierr.InvalidField("locationId", "is not a storage location of the equipment's site")
	}
	return err
}

// equipmentOf loads equipment the member can see: 404 otherwise.
func equipmentOf(ctx context.Context, q *db.Queries, a authz.Access, id uuid.UUID, forUpdate bool) (db.Equipment, error) {
	var e db.Equipment
	var err error
	if forUpdate {
		e, err = q.GetEquipmentForUpdate(ctx, db.GetEquipmentForUpdateParams{OrgID: a.OrgID, ID: id})
	} else {
		e, err = q.GetEquipment(ctx, db.GetEquipmentParams{OrgID: a.OrgID, ID: id})
	}
	if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(e.SiteID)) {
		return e, errEquipmentNotFound
	}
	return e, err
}

// EquipmentLookup lets scan tags name equipment by id (public.EquipmentLookup).
type EquipmentLookup struct{}

// EquipmentTarget reports the site and name of equipment of the organization, for another
// capability that points at it (scan tags name equipment by id); ok is false for none.
func (EquipmentLookup) EquipmentTarget(ctx context.Context, q *db.Queries, orgID, id uuid.UUID) (siteID uuid.UUID, name string, ok bool, err error) {
	e, err := q.GetEquipment(ctx, db.GetEquipmentParams{OrgID: orgID, ID: id})
	if pg.IsNoRows(err) {
		return uuid.Nil, "", false, nil
	}
	if err != nil {
		return uuid.Nil, "", false, err
	}
	return e.SiteID, e.Name, true, nil
}

func (h *Handlers) ListEquipment(ctx context.Context, req api.ListEquipmentRequestObject) (api.ListEquipmentResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	if req.Params.SiteId != nil {
		if err := a.CheckSite(*req.Params.SiteId); err != nil {
			return nil, err
		}
	}
	rows, err := db.New(h.pool).ListEquipment(ctx, db.ListEquipmentParams{OrgID: a.OrgID, Scope: a.SiteScope(), SiteID: req.Params.SiteId})
	if err != nil {
		return nil, err
	}
	out := make(api.ListEquipment200JSONResponse, 0, len(rows))
	for _, e := range rows {
		out = append(out, equipmentToAPI(e))
	}
	return out, nil
}

func (h *Handlers) CreateEquipment(ctx context.Context, req api.CreateEquipmentRequestObject) (api.CreateEquipmentResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	name, kind, err := equipmentInput(*b)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var e db.Equipment
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		if _, err := site(ctx, q, a, b.SiteId); err != nil {
			return err
		}
		if e, err = q.InsertEquipment(ctx, db.InsertEquipmentParams{ID: uuid.Must(uuid.NewV7()), OrgID: a.OrgID, SiteID: b.SiteId, Name: name, Kind: kind,
			Make: trimmed(b.Make), Model: trimmed(b.Model), Serial: trimmed(b.Serial), LocationID: b.LocationId, Now: now}); err != nil {
			return locationErr(err)
		}
		return audit.RecordSite(ctx, q, a.OrgID, e.SiteID, e.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.CreateEquipment201JSONResponse{Body: equipmentToAPI(e)}, nil
}

func (h *Handlers) GetEquipment(ctx context.Context, req api.GetEquipmentRequestObject) (api.GetEquipmentResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	e, err := equipmentOf(ctx, db.New(h.pool), a, req.Id, false)
	if err != nil {
		return nil, err
	}
	return api.GetEquipment200JSONResponse(equipmentToAPI(e)), nil
}

func (h *Handlers) UpdateEquipment(ctx context.Context, req api.UpdateEquipmentRequestObject) (api.UpdateEquipmentResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	name, kind, err := equipmentInput(*b)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var e db.Equipment
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		cur, err := equipmentOf(ctx, q, a, req.Id, true)
		if err != nil {
			return err
		}
		if _, err := site(ctx, q, a, b.SiteId); err != nil {
			return err
		}
		if e, err = q.UpdateEquipment(ctx, db.UpdateEquipmentParams{OrgID: a.OrgID, ID: cur.ID, SiteID: b.SiteId, Name: name, Kind: kind,
			Make: trimmed(b.Make), Model: trimmed(b.Model), Serial: trimmed(b.Serial), LocationID: b.LocationId, Now: now}); err != nil {
			return locationErr(err)
		}
		return audit.RecordSite(ctx, q, a.OrgID, e.SiteID, e.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.UpdateEquipment200JSONResponse(equipmentToAPI(e)), nil
}
