// Package public owns the surfaces people reach without an account or through printed links:
// the support inquiry form, printed tags and the scan resolution behind their QR codes.
// Capability links (surveys, shared quotes, invoices and inspection reports) share the token
// mechanism of internal/capability.
package public

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/ratelimit"
)

// Handlers implements the support inquiry, tag and scan operations.
type Handlers struct {
	pool    *pgxpool.Pool
	clock   clock.Clock
	limiter *ratelimit.Limiter
	webURL  string
	// locations resolves storage locations for their tags; nil: tags cannot name one by id.
	locations StorageLocations
	// floor answers what a scan shows of the work at the target; nil: none of it.
	floor Floor
}

// Floor is what a scan needs of the domains behind the work done at a tag: the tasks due there
// (tasks), a piece of equipment's open work orders (records), the live temperature (sensors)
// and the open count sheet of a storage location (inventory).
type Floor struct {
	Tasks interface {
		ScanTasks(ctx context.Context, orgID, tagID uuid.UUID, targetType string, targetID *uuid.UUID, siteID uuid.UUID, label *string, dueTo time.Time) ([]api.Task, error)
	}
	Equipment interface {
		ScanEquipment(ctx context.Context, a authz.Access, orgID, id uuid.UUID) (*api.ScanEquipmentContext, bool, error)
	}
	Temperatures interface {
		ScanTemperature(ctx context.Context, orgID uuid.UUID, storageLocationID, equipmentID *uuid.UUID) (*api.ScanTemperature, error)
	}
	Counts interface {
		ScanCount(ctx context.Context, orgID, siteID, locationID uuid.UUID) (*api.ScanCount, error)
	}
}

// WithFloor lets scans answer the work at the target; a nil member leaves its part out.
func (h *Handlers) WithFloor(f Floor) *Handlers {
	h.floor = f
	return h
}

// StorageLocations is what tags and scans need of the inventory domain: the site and name of a
// storage location a tag names, and what a scan of it shows and offers the member.
type StorageLocations interface {
	// TagTarget returns the location's site and name; a location that does not exist in the
	// organization is an error the client sees (404).
	TagTarget(ctx context.Context, orgID, id uuid.UUID) (siteID uuid.UUID, name string, err error)
	// ScanContext returns the location with its stock, and the actions the member's role allows
	// there.
	ScanContext(ctx context.Context, a authz.Access, orgID, id uuid.UUID) (*api.ScanLocationContext, []api.ScanAction, error)
}

// WithStorageLocations lets tags name storage locations by id and scans answer their stock.
func (h *Handlers) WithStorageLocations(l StorageLocations) *Handlers {
	h.locations = l
	return h
}

// NewHandlers serves the operations; webURL is SOUS_WEB_URL, the base of printed scan links.
func NewHandlers(pool *pgxpool.Pool, c clock.Clock, limiter *ratelimit.Limiter, webURL string) *Handlers {
	return &Handlers{pool: pool, clock: c, limiter: limiter, webURL: webURL}
}

// ScanURL is the web deep link printed on a tag: {web_url}/scan/{code}.
func (h *Handlers) ScanURL(code string) string { return h.webURL + "/scan/" + code }
