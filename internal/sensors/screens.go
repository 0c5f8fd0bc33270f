package sensors

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
)

// maxScreenSensors bounds the temperatures one wallboard shows.
const maxScreenSensors = 100

// Screens puts the site's live temperatures on kitchen wallboards (devices.Temperatures).
type Screens struct{ pool *pgxpool.Pool }

func NewScreens(pool *pgxpool.Pool) Screens { return Screens{pool: pool} }

// Live answers the site's active temperature sensors, by location then name: the latest
// reading, its age at now in whole minutes (so a screen's ETag changes at most once a minute
// for it), and whether it is within the sensor's range.
func (s Screens) Live(ctx context.Context, orgID, siteID uuid.UUID, now time.Time) ([]api.StateTemperature, error) {
	views, err := db.New(s.pool).SiteTemperatures(ctx, db.SiteTemperaturesParams{OrgID: orgID, SiteID: siteID, MaxRows: maxScreenSensors})
	if err != nil {
		return nil, err
	}
	out := make([]api.StateTemperature, 0, len(views))
	for _, v := range views {
		r := ruleOf(v)
		t := api.StateTemperature{
			SensorId: v.ID, Sensor: v.Name, Location: v.LocationName, MinTempF: formatDecimal(r.min), MaxTempF: formatDecimal(r.max),
			Excursion: v.ExcursionKind != nil,
		}
		if t.Location == nil {
			t.Location = v.EquipmentName
		}
		if v.LastAt != nil && v.LastValue != nil {
			at := v.LastAt.UTC()
			age := max(0, int(now.Sub(at)/time.Minute))
			t.At, t.ValueF, t.AgeMinutes = &at, formatDecimal(v.LastValue), &age
			if r.judged() {
				in := !r.out(*v.LastValue)
				t.InRange = &in
			}
		}
		out = append(out, t)
	}
	return out, nil
}
