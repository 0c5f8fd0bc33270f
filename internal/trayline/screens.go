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

// Queue lists the site's tickets of the date and day part (cancelled ones left out) by unit,
// room and bed: status, where, diets, allergens, texture, items with their checks, conflict.
func (s Screens) Queue(ctx context.Context, orgID, siteID uuid.UUID, date time.Time, dayPart string, units []string) ([]map[string]any, error) {
	rows, err := db.New(s.pool).TrayQueue(ctx, db.TrayQueueParams{OrgID: orgID, SiteID: siteID, Date: pgtype.Date{Time: date, Valid: true}, DayPart: dayPart})
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, 0, len(rows))
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
		t := map[string]any{"ticketId": r.ID, "status": r.Status, "unit": r.Unit, "room": r.Room, "bed": r.Bed,
			"diets": diets, "allergens": allergens, "items": json.RawMessage(r.Items), "conflict": r.Conflict}
		if r.Texture != nil {
			t["texture"] = *r.Texture
		}
		out = append(out, t)
	}
	return out, nil
}
