package devices

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
)

// Kitchen is what the kitchen capability puts on screens; the devices package knows it only
// through this interface. Nil leaves production, handoffs and menus empty and finds no recipe to
// cast.
type Kitchen interface {
	// Production answers a wallboard's production timers (the site's live runs of the local
	// date at the stations; all of them when stations is empty) and, when handoffs is true, the
	// handoffs to those stations since the local day began, as the state's JSON arrays.
	Production(ctx context.Context, orgID, siteID uuid.UUID, date, dayStart time.Time, stations []string, handoffs bool) (production, handoffList json.RawMessage, err error)
	// Menu answers a menu board's items for the site's date and day part.
	Menu(ctx context.Context, orgID, siteID uuid.UUID, date time.Time, dayPart string, prices, allergens bool) ([]map[string]any, error)
	// RecipeCard answers the card a cast recipe shows, or a not-found error for a recipe that
	// does not exist in the organization or is archived.
	RecipeCard(ctx context.Context, q *db.Queries, orgID, recipeID uuid.UUID) (map[string]any, error)
}

// Trays is what the tray line puts on tray-line screens; nil leaves `trays` empty.
type Trays interface {
	// Queue answers the site's tickets of the local date and day part, in tray-line order,
	// only those of units when it is not empty, as the JSON array of the state's `trays`
	// (encoded once by the tray line: a screen polls hundreds of tickets).
	Queue(ctx context.Context, orgID, siteID uuid.UUID, date time.Time, dayPart string, units []string) (EncodedTrays, error)
}

// Temperatures is what the sensors put on kitchen wallboards; nil leaves `temperatures` empty.
type Temperatures interface {
	// Live answers the site's active temperature sensors with their latest reading, its age at
	// now and whether it is in range.
	Live(ctx context.Context, orgID, siteID uuid.UUID, now time.Time) ([]api.StateTemperature, error)
}

// EncodedTrays is the state's `trays` array as JSON with the SHA-256 of those bytes: the state's
// ETag covers the queue through the sum, so a poll neither re-encodes nor re-hashes the queue
// (the tray line keeps both between changes). The bytes are shared: never modified.
type EncodedTrays struct {
	JSON []byte
	Sum  [32]byte
}

// units lists a tray-line screen's configured patient units.
func (c Config) units() []string {
	raw, _ := c["units"].([]any)
	out := make([]string, 0, len(raw))
	for _, s := range raw {
		if str, ok := s.(string); ok {
			out = append(out, str)
		}
	}
	return out
}

// stations lists a wallboard's configured stations.
func (c Config) stations() []string {
	raw, _ := c["stations"].([]any)
	out := make([]string, 0, len(raw))
	for _, s := range raw {
		if str, ok := s.(string); ok {
			out = append(out, str)
		}
	}
	return out
}

func (c Config) flag(name string) bool {
	b, _ := c[name].(bool)
	return b
}
