package devices

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/paging"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/realtime"
)

type deviceCursor struct {
	Name string    `json:"n"`
	ID   uuid.UUID `json:"id"`
}

func (h *Handlers) ListDevices(ctx context.Context, req api.ListDevicesRequestObject) (api.ListDevicesResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	limit := paging.Limit(p.Limit)
	params := db.ListDevicesParams{OrgID: req.OrgId, Scope: a.SiteScope(), SiteID: p.SiteId, MaxRows: paging.Fetch(limit)}
	if p.Cursor != nil {
		var c deviceCursor
		if err := paging.DecodeCursor(*p.Cursor, &c, func() bool { return c.ID != uuid.Nil }); err != nil {
			return nil, err
		}
		params.CursorName, params.CursorID = &c.Name, &c.ID
	}
	rows, err := db.New(h.pool).ListDevices(ctx, params)
	if err != nil {
		return nil, err
	}
	out := api.ListDevices200JSONResponse{Body: make([]api.Device, 0, len(rows))}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last db.Device) any { return deviceCursor{Name: last.Name, ID: last.ID} })
	for _, r := range rows {
		d, err := toAPIDevice(r)
		if err != nil {
			return nil, err
		}
		out.Body = append(out.Body, d)
	}
	return out, nil
}

func (h *Handlers) CreateDevice(ctx context.Context, req api.CreateDeviceRequestObject) (api.CreateDeviceResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	name, err := deviceName(req.Body.Name)
	if err != nil {
		return nil, err
	}
	kind := Kind(req.Body.Kind)
	if !kind.valid() {
		return nil, apierr.InvalidField("kind", "is not a device kind")
	}
	var in map[string]any
	if req.Body.Config != nil {
		in = *req.Body.Config
	}
	cfg, err := normalizeConfig(kind, in)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var row db.Device
	err = pg.InQueries(ctx, h.pool, func(q *db.Queries) error {
		site, err := loadSite(ctx, q, a, req.Body.SiteId)
		if err != nil {
			return err
		}
		if err := checkDayPart(cfg, site); err != nil {
			return err
		}
		raw, _ := json.Marshal(cfg)
		row, err = q.CreateDevice(ctx, db.CreateDeviceParams{
			ID: uuid.Must(uuid.NewV7()), OrgID: req.OrgId, SiteID: site.ID, Name: name, Kind: string(kind), Config: raw, Now: now,
		})
		if err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, req.OrgId, row.SiteID, row.ID, now)
	})
	if err != nil {
		return nil, err
	}
	d, err := toAPIDevice(row)
	if err != nil {
		return nil, err
	}
	return api.CreateDevice201JSONResponse{Body: d}, nil
}

func (h *Handlers) GetDevice(ctx context.Context, req api.GetDeviceRequestObject) (api.GetDeviceResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	row, err := loadDevice(ctx, db.New(h.pool), a, req.Id, false)
	if err != nil {
		return nil, err
	}
	d, err := toAPIDevice(row)
	if err != nil {
		return nil, err
	}
	return api.GetDevice200JSONResponse(d), nil
}

func (h *Handlers) UpdateDevice(ctx context.Context, req api.UpdateDeviceRequestObject) (api.UpdateDeviceResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	now := h.clock.Now()
	var row db.Device
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		cur, err := loadDevice(ctx, q, a, req.Id, true)
		if err != nil {
			return err
		}
		params := db.UpdateDeviceParams{OrgID: cur.OrgID, ID: cur.ID, Name: cur.Name, Kind: cur.Kind, SiteID: cur.SiteID, Config: cur.Config, Now: now}
		if b.Name != nil {
			if params.Name, err = deviceName(*b.Name); err != nil {
				return err
			}
		}
		kind := Kind(cur.Kind)
		if b.Kind != nil {
			if kind = Kind(*b.Kind); !kind.valid() {
				return apierr.InvalidField("kind", "is not a device kind")
			}
		}
		var cfg Config
		switch {
		case b.Config != nil:
			cfg, err = normalizeConfig(kind, *b.Config)
		case kind != Kind(cur.Kind):
			cfg, err = normalizeConfig(kind, nil) // a new kind starts from its defaults
		default:
			cfg, err = decodeConfig(cur.Config)
		}
		if err != nil {
			return err
		}
		siteID := cur.SiteID
		if b.SiteId != nil {
			siteID = *b.SiteId
		}
		site, err := loadSite(ctx, q, a, siteID)
		if err != nil {
			return err
		}
		if err := checkDayPart(cfg, site); err != nil {
			return err
		}
		params.Kind, params.SiteID = string(kind), site.ID
		params.Config, _ = json.Marshal(cfg)
		if row, err = q.UpdateDevice(ctx, params); err != nil {
			return gatewayHasSensors(err)
		}
		if err := realtime.Notify(ctx, tx, row.ID); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, req.OrgId, row.SiteID, row.ID, now)
	})
	if err != nil {
		return nil, err
	}
	d, err := toAPIDevice(row)
	if err != nil {
		return nil, err
	}
	return api.UpdateDevice200JSONResponse(d), nil
}

func (h *Handlers) DeleteDevice(ctx context.Context, req api.DeleteDeviceRequestObject) (api.DeleteDeviceResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		cur, err := loadDevice(ctx, q, a, req.Id, true)
		if err != nil {
			return err
		}
		if _, err := q.DeleteDevice(ctx, db.DeleteDeviceParams{OrgID: req.OrgId, ID: req.Id}); err != nil {
			return err
		}
		if err := realtime.DisconnectDevice(ctx, tx, req.Id); err != nil {
			return err
		}
		return audit.RecordSite(ctx, q, req.OrgId, cur.SiteID, req.Id, now)
	})
	if err != nil {
		return nil, err
	}
	return api.DeleteDevice204Response{}, nil
}

// gatewayHasSensors turns the database's refusal to move a sensor gateway with sensors, or to
// change its kind, into a 409. The sensors' key on their gateway's site and kind refuses it
// (migration 0074): a sensor, its readings and its excursions belong to the site the readings
// were taken at, and a sensor registered while the gateway moves waits for the move and fails,
// so no check here could race it.
func gatewayHasSensors(err error) error {
	if pg.IsForeignKeyViolation(err, "sensors_gateway_site_fkey") {
		return apierr.Conflict("The sensor gateway has sensors, which stay at its site with their readings: " +
			"move them to another gateway of the site first, or register a new gateway at the new site").WithCode(apierr.CodeGatewayHasSensors)
	}
	return err
}

func deviceName(s string) (string, error) {
	name := strings.TrimSpace(s)
	if name == "" {
		return "", apierr.InvalidField("name", "must not be blank")
	}
	return name, nil
}

// siteInfo is what device rules need of a site.
type siteInfo struct {
	ID       uuid.UUID
	Name     string
	DayParts []dayPart
}

// loadSite reads a site of the organization for a device: absent, another organization's, or
// outside a site-scoped member's sites, it is "Site not found" (404), as for HL7 ingest.
func loadSite(ctx context.Context, q *db.Queries, a authz.Access, id uuid.UUID) (siteInfo, error) {
	if !a.CanSeeSite(id) {
		return siteInfo{}, apierr.NotFound("Site")
	}
	s, err := q.GetSite(ctx, db.GetSiteParams{OrgID: a.OrgID, ID: id})
	if pg.IsNoRows(err) {
		return siteInfo{}, apierr.NotFound("Site")
	}
	if err != nil {
		return siteInfo{}, err
	}
	parts, err := decodeDayParts(s.DayParts)
	if err != nil {
		return siteInfo{}, err
	}
	return siteInfo{ID: s.ID, Name: s.Name, DayParts: parts}, nil
}

// checkDayPart requires a menu board's pinned day part to be one of its site's, and stores it
// spelled as the site spells it.
func checkDayPart(cfg Config, site siteInfo) error {
	name := cfg.dayPart()
	if name == "" {
		return nil
	}
	for _, p := range site.DayParts {
		if strings.EqualFold(p.Name, name) {
			cfg["dayPart"] = p.Name
			return nil
		}
	}
	names := make([]string, len(site.DayParts))
	for i, p := range site.DayParts {
		names[i] = p.Name
	}
	return apierr.InvalidField("config.dayPart", fmt.Sprintf("%q is not a day part of site %s (%s)", name, site.Name, strings.Join(names, ", ")))
}
