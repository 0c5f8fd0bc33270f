package inventory

import (
	"context"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/pg"
)

var (
	errLocationNotFound = apierr.NotFound("Storage location")
	errLocationName     = apierr.Conflict("A storage location with this name already exists at the site")
)

func (h *Handlers) ListStorageLocations(ctx context.Context, req api.ListStorageLocationsRequestObject) (api.ListStorageLocationsResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	if req.Params.SiteId != nil {
		if err := a.CheckSite(*req.Params.SiteId); err != nil {
			return nil, err
		}
	}
	rows, err := db.New(h.pool).ListStorageLocations(ctx, db.ListStorageLocationsParams{
		OrgID: req.OrgId, Scope: a.SiteScope(), SiteID: req.Params.SiteId, Active: req.Params.Active,
	})
	if err != nil {
		return nil, err
	}
	out := make(api.ListStorageLocations200JSONResponse, 0, len(rows))
	for _, r := range rows {
		out = append(out, locationToAPI(r))
	}
	return out, nil
}

func (h *Handlers) GetStorageLocation(ctx context.Context, req api.GetStorageLocationRequestObject) (api.GetStorageLocationResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	loc, err := getLocation(ctx, db.New(h.pool), a, req.OrgId, req.Id)
	if err != nil {
		return nil, err
	}
	return api.GetStorageLocation200JSONResponse(locationToAPI(loc)), nil
}

// getLocation reads a location the member may see: another organization's, or one at a site
// outside the member's scope, is not found.
func getLocation(ctx context.Context, q *db.Queries, a authz.Access, orgID, id uuid.UUID) (db.StorageLocation, error) {
	loc, err := q.GetStorageLocation(ctx, db.GetStorageLocationParams{OrgID: orgID, ID: id})
	if pg.IsNoRows(err) || err == nil && !a.CanSeeSite(loc.SiteID) {
		return loc, errLocationNotFound
	}
	return loc, err
}

func temps(minF, maxF *string) (lo, hi *decimal.Decimal, err error) {
	if minF != nil {
		d, err := parseQty("minTempF", *minF)
		if err != nil {
			return nil, nil, err
		}
		lo = &d
	}
	if maxF != nil {
		d, err := parseQty("maxTempF", *maxF)
		if err != nil {
			return nil, nil, err
		}
		hi = &d
	}
	if lo != nil && hi != nil && lo.GreaterThan(*hi) {
		return nil, nil, apierr.InvalidField("maxTempF", "must not be below minTempF")
	}
	return lo, hi, nil
}

func (h *Handlers) CreateStorageLocation(ctx context.Context, req api.CreateStorageLocationRequestObject) (api.CreateStorageLocationResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	if err := a.CheckSite(b.SiteId); err != nil {
		return nil, err
	}
	name := strings.TrimSpace(b.Name)
	if name == "" {
		return nil, apierr.InvalidField("name", "must not be blank")
	}
	lo, hi, err := temps(b.MinTempF, b.MaxTempF)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var loc db.StorageLocation
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		if _, err := q.GetSite(ctx, db.GetSiteParams{OrgID: req.OrgId, ID: b.SiteId}); err != nil {
			return notFound(err, "Site")
		}
		loc, err = q.CreateStorageLocation(ctx, db.CreateStorageLocationParams{
			ID: uuid.Must(uuid.NewV7()), OrgID: req.OrgId, SiteID: b.SiteId, Name: name, Kind: string(b.Kind),
			MinTempF: lo, MaxTempF: hi, Active: b.Active == nil || *b.Active, Now: now,
		})
		if _, dup := pg.IsUniqueViolation(err); dup {
			return errLocationName
		}
		if err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, req.OrgId, loc.SiteID, loc.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.CreateStorageLocation201JSONResponse{Body: locationToAPI(loc)}, nil
}

func (h *Handlers) UpdateStorageLocation(ctx context.Context, req api.UpdateStorageLocationRequestObject) (api.UpdateStorageLocationResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	name := strings.TrimSpace(b.Name)
	if name == "" {
		return nil, apierr.InvalidField("name", "must not be blank")
	}
	lo, hi, err := temps(b.MinTempF, b.MaxTempF)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var loc db.StorageLocation
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		if _, err := getLocation(ctx, q, a, req.OrgId, req.Id); err != nil {
			return err
		}
		loc, err = q.UpdateStorageLocation(ctx, db.UpdateStorageLocationParams{
			OrgID: req.OrgId, ID: req.Id, Name: name, Kind: string(b.Kind), MinTempF: lo, MaxTempF: hi,
			Active: b.Active == nil || *b.Active, Now: now,
		})
		if _, dup := pg.IsUniqueViolation(err); dup {
			return errLocationName
		}
		if err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, req.OrgId, loc.SiteID, loc.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return api.UpdateStorageLocation200JSONResponse(locationToAPI(loc)), nil
}

func locationToAPI(l db.StorageLocation) api.StorageLocation {
	out := api.StorageLocation{Id: l.ID, SiteId: l.SiteID, Name: l.Name, Kind: api.StorageLocationKind(l.Kind), Active: l.Active, CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt}
	if l.MinTempF != nil {
		s := fmtQty(*l.MinTempF)
		out.MinTempF = &s
	}
	if l.MaxTempF != nil {
		s := fmtQty(*l.MaxTempF)
		out.MaxTempF = &s
	}
	return out
}
