// Package devices owns devices (wallboards, menu boards, tray-line screens, kiosks, sensor
// gateways): their registration and per-kind configuration, pairing with a short-lived code, the
// device token, the state a device polls, casts, the images boards show, and the WebSocket that
// tells a device to refetch its state.
//
// Every change that alters what a device shows sends a realtime hint in its own transaction
// (internal/realtime), so screens on any replica hear of it once it commits; unpairing and
// deleting close the device's sockets the same way.
package devices

import (
	"context"
	"log/slog"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/ratelimit"
	"github.com/sous-app/sous/internal/realtime"
)

// Handlers implements the device, pairing, cast, state and media operations, authenticates
// device tokens, and serves the device WebSocket.
type Handlers struct {
	pool    *pgxpool.Pool
	clock   clock.Clock
	limiter *ratelimit.Limiter
	hub     *realtime.Hub
	logger  *slog.Logger
	zones   zoneCache
	kitchen Kitchen
	trays   Trays
	temps   Temperatures
}

// Deps are what the handlers need. Hub may be nil, in which case the WebSocket answers 503
// and everything else works (devices poll).
type Deps struct {
	Pool    *pgxpool.Pool
	Clock   clock.Clock
	Limiter *ratelimit.Limiter
	Hub     *realtime.Hub
	Logger  *slog.Logger
	// Kitchen fills production, handoffs and menus and finds recipes to cast; nil: none.
	Kitchen Kitchen
	// Trays fills tray-line screens' tray queue; nil: none.
	Trays Trays
	// Temperatures fills kitchen wallboards' live temperatures; nil: none.
	Temperatures Temperatures
}

func NewHandlers(d Deps) *Handlers {
	logger := d.Logger
	if logger == nil {
		logger = slog.Default()
	}
	return &Handlers{pool: d.Pool, clock: d.Clock, limiter: d.Limiter, hub: d.Hub, logger: logger, kitchen: d.Kitchen, trays: d.Trays, temps: d.Temperatures}
}

// access is the request's authorization, established by the policy middleware.
func access(ctx context.Context) (authz.Access, error) { return authz.MustFromContext(ctx) }

// loadDevice reads a device the caller may see: another organization's device, or one at a site
// outside a site-scoped member's sites, is "Device not found" exactly like a missing one.
func loadDevice(ctx context.Context, q *db.Queries, a authz.Access, id uuid.UUID, forUpdate bool) (db.Device, error) {
	var (
		d   db.Device
		err error
	)
	if forUpdate {
		d, err = q.GetDeviceForUpdate(ctx, db.GetDeviceForUpdateParams{OrgID: a.OrgID, ID: id})
	} else {
		d, err = q.GetDevice(ctx, db.GetDeviceParams{OrgID: a.OrgID, ID: id})
	}
	if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(d.SiteID)) {
		return db.Device{}, apierr.NotFound("Device")
	}
	return d, err
}

// toAPIDevice renders a device row. Stored config and cast are normalized JSON, passed through.
func toAPIDevice(d db.Device) (api.Device, error) {
	out := api.Device{
		Id: d.ID, Name: d.Name, Kind: api.DeviceKind(d.Kind), SiteId: d.SiteID,
		Paired: d.TokenHash != nil, PairedAt: d.PairedAt, LastSeenAt: d.LastSeenAt,
		CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt,
	}
	if err := out.Config.UnmarshalJSON(d.Config); err != nil {
		return out, err
	}
	cast, err := decodeCast(d.CastContent)
	if err != nil {
		return out, err
	}
	out.Cast = cast
	return out, nil
}
