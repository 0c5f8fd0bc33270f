package trayline

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/gen/db"
)

// Screens answers tray-line screens' tray queue (devices.Trays). Patients' names and MRNs are
// never on a screen: it shows the room and bed.
type Screens struct{ pool *pgxpool.Pool }

func NewScreens(pool *pgxpool.Pool) Screens { return Screens{pool: pool} }

type screenDiet struct {
	Code string `json:"code"`
	Name string `json:"name"`
}

// screenTray is one ticket on a screen; a struct rather than a map so that encoding hundreds of
// them is cheap.
type screenTray struct {
	TicketID  uuid.UUID       `json:"ticketId"`
	Status    string          `json:"status"`
	Unit      string          `json:"unit"`
	Room      string          `json:"room"`
	Bed       string          `json:"bed"`
	Diets     []screenDiet    `json:"diets"`
	Allergens []string        `json:"allergens"`
	Texture   *int32          `json:"texture,omitempty"`
	Items     json.RawMessage `json:"items"`
	Conflict  bool            `json:"conflict"`
}

// Queue lists the site's tickets of the date and day part (cancelled ones left out) by unit,
// room and bed: status, where, diets, allergens, texture, items with their checks, conflict;
// encoded as the state's `trays` array.
func (s Screens) Queue(ctx context.Context, orgID, siteID uuid.UUID, date time.Time, dayPart string, units []string) (json.RawMessage, error) {
	rows, err := db.New(s.pool).TrayQueue(ctx, db.TrayQueueParams{OrgID: orgID, SiteID: siteID, Date: pgtype.Date{Time: date, Valid: true}, DayPart: dayPart})
	if err != nil {
		return nil, err
	}
	out := make([]screenTray, 0, len(rows))
	for _, r := range rows {
		if len(units) > 0 && !slices.Contains(units, r.Unit) {
			continue
		}
		diets := make([]screenDiet, 0, len(r.Diets))
		for _, d := range r.Diets {
			diets = append(diets, screenDiet{Code: d, Name: dietName(d)})
		}
		allergens := r.Allergens
		if allergens == nil {
			allergens = []string{}
		}
		out = append(out, screenTray{TicketID: r.ID, Status: r.Status, Unit: r.Unit, Room: r.Room, Bed: r.Bed,
			Diets: diets, Allergens: allergens, Texture: r.Texture, Items: json.RawMessage(r.Items), Conflict: r.Conflict})
	}
	return json.Marshal(out)
}
