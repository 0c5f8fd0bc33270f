package sensors

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/paging"
	"github.com/sous-app/sous/internal/pg"
)

// DefaultExcursionMinutes is how long a sensor must read out of range before it counts.
const DefaultExcursionMinutes = 15

type sensorCursor struct {
	Name string    `json:"n"`
	ID   uuid.UUID `json:"id"`
}

func (h *Handlers) ListSensors(ctx context.Context, req api.ListSensorsRequestObject) (api.ListSensorsResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	limit := paging.Limit(p.Limit)
	params := db.ListSensorViewsParams{OrgID: req.OrgId, Scope: a.SiteScope(), SiteID: p.SiteId, GatewayDeviceID: p.GatewayDeviceId, MaxRows: paging.Fetch(limit)}
	if p.Cursor != nil {
		var c sensorCursor
		if err := paging.DecodeCursor(*p.Cursor, &c, func() bool { return c.ID != uuid.Nil }); err != nil {
			return nil, err
		}
		params.CursorName, params.CursorID = &c.Name, &c.ID
	}
	rows, err := db.New(h.pool).ListSensorViews(ctx, params)
	if err != nil {
		return nil, err
	}
	out := api.ListSensors200JSONResponse{Body: make([]api.Sensor, 0, len(rows))}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last db.SensorView) any { return sensorCursor{Name: last.Name, ID: last.ID} })
	for _, r := range rows {
		out.Body = append(out.Body, toAPI(r))
	}
	return out, nil
}

func (h *Handlers) GetSensor(ctx context.Context, req api.GetSensorRequestObject) (api.GetSensorResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	v, err := loadView(ctx, db.New(h.pool), a, req.Id)
	if err != nil {
		return nil, err
	}
	return api.GetSensor200JSONResponse(toAPI(v)), nil
}

// loadView reads a sensor the caller may see: another organization's, or one at a site outside
// a site-scoped member's sites, is "Sensor not found" exactly like a missing one.
func loadView(ctx context.Context, q *db.Queries, a authz.Access, id uuid.UUID) (db.SensorView, error) {
	v, err := q.GetSensorView(ctx, db.GetSensorViewParams{OrgID: a.OrgID, ID: id})
	if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(v.SiteID)) {
		return db.SensorView{}, apierr.NotFound("Sensor")
	}
	return v, err
}

func (h *Handlers) CreateSensor(ctx context.Context, req api.CreateSensorRequestObject) (api.CreateSensorResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	id := uuid.Must(uuid.NewV7())
	var v db.SensorView
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		in, err := checkRequest(ctx, q, a, *req.Body)
		if err != nil {
			return err
		}
		if err := q.CreateSensor(ctx, db.CreateSensorParams{
			ID: id, OrgID: a.OrgID, SiteID: in.SiteID, GatewayDeviceID: in.GatewayDeviceID, ExternalID: in.ExternalID,
			Name: in.Name, Kind: in.Kind, StorageLocationID: in.StorageLocationID, EquipmentID: in.EquipmentID,
			MinTempF: in.MinTempF, MaxTempF: in.MaxTempF, ExcursionMinutes: in.ExcursionMinutes, Active: in.Active, Now: now,
		}); err != nil {
			return sensorWriteError(err, in.ExternalID)
		}
		if err := q.CreateSensorState(ctx, db.CreateSensorStateParams{SensorID: id, OrgID: a.OrgID}); err != nil {
			return err
		}
		if err := audit.RecordSite(ctx, q, a.OrgID, in.SiteID, id, now); err != nil {
			return err
		}
		v, err = q.GetSensorView(ctx, db.GetSensorViewParams{OrgID: a.OrgID, ID: id})
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.CreateSensor201JSONResponse{Body: toAPI(v)}, nil
}

func (h *Handlers) UpdateSensor(ctx context.Context, req api.UpdateSensorRequestObject) (api.UpdateSensorResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var v db.SensorView
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		// The sensor's state first, as storing readings takes it (then the sensor's row): readings
		// being stored for it finish before the move looks for them, and those that come after
		// find it gone from their gateway (PostDeviceReadings).
		if _, err := q.LockSensorStates(ctx, db.LockSensorStatesParams{OrgID: a.OrgID, SensorIds: []uuid.UUID{req.Id}}); err != nil {
			return err
		}
		cur, err := q.GetSensorForUpdate(ctx, db.GetSensorForUpdateParams{OrgID: a.OrgID, ID: req.Id})
		if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(cur.SiteID)) {
			return apierr.NotFound("Sensor")
		}
		if err != nil {
			return err
		}
		in, err := checkRequest(ctx, q, a, *req.Body)
		if err != nil {
			return err
		}
		if in.Kind != cur.Kind {
			// Its readings and its excursion in progress mean something only for its kind.
			return apierr.InvalidField("kind", "cannot change: register a new sensor for another kind of probe")
		}
		if in.SiteID != cur.SiteID {
			has, err := q.SensorHasHistory(ctx, db.SensorHasHistoryParams{OrgID: a.OrgID, SensorID: cur.ID})
			if err != nil {
				return err
			}
			if has {
				// They were taken at its site: moved, they would leave that site's temperature
				// log and appear in another's.
				return apierr.Conflict("The sensor has readings, which stay at its site with its excursions: " +
					"register a new sensor at the new site (and set this one inactive); it can move to another gateway of its own site").
					WithCode(apierr.CodeSensorHasReadings)
			}
		}
		if _, err := q.UpdateSensor(ctx, db.UpdateSensorParams{
			OrgID: a.OrgID, ID: cur.ID, SiteID: in.SiteID, GatewayDeviceID: in.GatewayDeviceID, ExternalID: in.ExternalID,
			Name: in.Name, Kind: in.Kind, StorageLocationID: in.StorageLocationID, EquipmentID: in.EquipmentID,
			MinTempF: in.MinTempF, MaxTempF: in.MaxTempF, ExcursionMinutes: in.ExcursionMinutes, Active: in.Active, Now: now,
		}); err != nil {
			return sensorWriteError(err, in.ExternalID)
		}
		if err := audit.RecordSite(ctx, q, a.OrgID, in.SiteID, cur.ID, now); err != nil {
			return err
		}
		v, err = q.GetSensorView(ctx, db.GetSensorViewParams{OrgID: a.OrgID, ID: cur.ID})
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.UpdateSensor200JSONResponse(toAPI(v)), nil
}

// sensorWriteError maps what the database refuses of a sensor write to the API's errors.
func sensorWriteError(err error, externalID string) error {
	if _, ok := pg.IsUniqueViolation(err); ok {
		return apierr.Conflict(fmt.Sprintf("A sensor of this gateway already has externalId %q", externalID))
	}
	// The gateway moved to another site (or changed kind) after checkRequest read it: the
	// sensors' key on their gateway's site refuses the write, as checkRequest would have.
	if pg.IsForeignKeyViolation(err, "sensors_gateway_site_fkey") {
		return apierr.InvalidField("siteId", "must be the gateway's site")
	}
	return err
}

// checked is a sensor request that passed every rule, ready to store.
type checked struct {
	SiteID, GatewayDeviceID        uuid.UUID
	ExternalID, Name, Kind         string
	StorageLocationID, EquipmentID *uuid.UUID
	MinTempF, MaxTempF             *decimal.Decimal
	ExcursionMinutes               int32
	Active                         bool
}

// checkRequest applies the rules of a sensor: its gateway is a sensor_gateway of the
// organization, at the site given; its storage location and equipment are of that site; only a
// temperature sensor has a range, and its minimum is not above its maximum.
func checkRequest(ctx context.Context, q *db.Queries, a authz.Access, b api.SensorRequest) (checked, error) {
	out := checked{
		SiteID: b.SiteId, GatewayDeviceID: b.GatewayDeviceId, ExternalID: b.ExternalId, Kind: string(b.Kind),
		StorageLocationID: b.StorageLocationId, EquipmentID: b.EquipmentId, ExcursionMinutes: DefaultExcursionMinutes, Active: true,
	}
	if out.Name = strings.TrimSpace(b.Name); out.Name == "" {
		return out, apierr.InvalidField("name", "must not be blank")
	}
	if b.ExcursionMinutes != nil {
		out.ExcursionMinutes = int32(*b.ExcursionMinutes)
	}
	if b.Active != nil {
		out.Active = *b.Active
	}
	var err error
	if out.MinTempF, err = temperature("minTempF", b.MinTempF); err != nil {
		return out, err
	}
	if out.MaxTempF, err = temperature("maxTempF", b.MaxTempF); err != nil {
		return out, err
	}
	if out.Kind != kindTemperature && (out.MinTempF != nil || out.MaxTempF != nil) {
		return out, apierr.InvalidField("minTempF", "only temperature sensors have a range")
	}
	if out.MinTempF != nil && out.MaxTempF != nil && out.MinTempF.GreaterThan(*out.MaxTempF) {
		return out, apierr.InvalidField("minTempF", "must not be above maxTempF")
	}
	if err := a.CheckSite(b.SiteId); err != nil {
		return out, err
	}
	gw, err := q.GetDevice(ctx, db.GetDeviceParams{OrgID: a.OrgID, ID: b.GatewayDeviceId})
	if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(gw.SiteID)) {
		return out, apierr.NotFound("Device")
	}
	if err != nil {
		return out, err
	}
	if gw.Kind != "sensor_gateway" {
		return out, apierr.InvalidField("gatewayDeviceId", "is a "+gw.Kind+" device, not a sensor_gateway")
	}
	if gw.SiteID != b.SiteId {
		return out, apierr.InvalidField("siteId", "must be the gateway's site")
	}
	if id := b.StorageLocationId; id != nil {
		l, err := q.GetStorageLocation(ctx, db.GetStorageLocationParams{OrgID: a.OrgID, ID: *id})
		if pg.IsNoRows(err) {
			return out, apierr.NotFound("Storage location")
		}
		if err != nil {
			return out, err
		}
		if l.SiteID != b.SiteId {
			return out, apierr.InvalidField("storageLocationId", "is a storage location of another site")
		}
	}
	if id := b.EquipmentId; id != nil {
		e, err := q.GetEquipment(ctx, db.GetEquipmentParams{OrgID: a.OrgID, ID: *id})
		if pg.IsNoRows(err) {
			return out, apierr.NotFound("Equipment")
		}
		if err != nil {
			return out, err
		}
		if e.SiteID != b.SiteId {
			return out, apierr.InvalidField("equipmentId", "is equipment of another site")
		}
	}
	return out, nil
}

func temperature(field string, s *string) (*decimal.Decimal, error) {
	if s == nil {
		return nil, nil
	}
	d, err := decimal.NewFromString(*s)
	if err != nil {
		return nil, apierr.InvalidField(field, "is not a decimal number")
	}
	return &d, nil
}
