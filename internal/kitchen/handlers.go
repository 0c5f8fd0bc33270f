// Package kitchen owns what a kitchen cooks: recipes with versions, sub-recipes, derived
// allergens and costs; cycle menus with date overrides; forecasts; production runs generated
// from the effective menu × forecast, with batch cards, status moves, events and handoffs; labels;
// and the production and menu state of the site's screens.
//
// Ingredients are inventory items, read through inventory.GetItems; quantities convert through
// the quantity package. Nothing here moves stock.
package kitchen

import (
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/internal/clock"
)

type (
	timeT   = time.Time
	uuidT   = uuid.UUID
	pgDateT = pgtype.Date
)

// Handlers serve the kitchen operations of the spec.
type Handlers struct {
	pool  *pgxpool.Pool
	clock clock.Clock
}

func NewHandlers(pool *pgxpool.Pool, c clock.Clock) *Handlers {
	return &Handlers{pool: pool, clock: c}
}
