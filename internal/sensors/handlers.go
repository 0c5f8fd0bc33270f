// Package sensors owns sensors: temperature, humidity and door probes behind a sensor gateway
// (a device), the readings the gateway sends, their log, and the judging of each sensor's
// readings in time order that opens and closes temperature_excursion and door_open alerts.
//
// Readings live in a table partitioned by month (sensor_readings); partitions are made ahead of
// need and dropped past retention by PartitionTask, and made on demand by the first reading of a
// month that has none yet.
package sensors

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/quantity"
)

// DefaultRetentionMonths is how long readings are kept unless configured: two years, the HACCP
// record period most inspectors ask for.
const DefaultRetentionMonths = 24

// Handlers implements the sensor, readings and log operations.
type Handlers struct {
	pool      *pgxpool.Pool
	clock     clock.Clock
	retention int
	// months holds the months (UTC, first instant) whose readings partition is known to exist,
	// so a call makes a partition at most once per process and month.
	months sync.Map
}

// NewHandlers builds the handlers; retentionMonths 0 is DefaultRetentionMonths.
func NewHandlers(pool *pgxpool.Pool, c clock.Clock, retentionMonths int) *Handlers {
	if retentionMonths <= 0 {
		retentionMonths = DefaultRetentionMonths
	}
	return &Handlers{pool: pool, clock: c, retention: retentionMonths}
}

func access(ctx context.Context) (authz.Access, error) { return authz.MustFromContext(ctx) }

// retentionCutoff is the oldest instant whose readings are kept at now.
func retentionCutoff(now time.Time, months int) time.Time { return now.AddDate(0, -months, 0) }

// ruleOf is how a sensor's readings are judged (see rule).
func ruleOf(v db.SensorView) rule {
	r := rule{hold: time.Duration(v.ExcursionMinutes) * time.Minute}
	switch v.Kind {
	case kindDoor:
		r.door = true
	case kindTemperature:
		r.min, r.max = effective(v.MinTempF, v.LocationMinTempF), effective(v.MaxTempF, v.LocationMaxTempF)
	}
	return r
}

func effective(own, location *decimal.Decimal) *decimal.Decimal {
	if own != nil {
		return own
	}
	return location
}

// Sensor kinds.
const (
	kindTemperature = "temperature"
	kindHumidity    = "humidity"
	kindDoor        = "door"
)

// logUnit is the unit a sensor's stored values are in.
func logUnit(kind string) api.SensorLogUnit {
	switch kind {
	case kindTemperature:
		return api.SensorLogUnitF
	case kindDoor:
		return api.SensorLogUnitOpen
	default:
		return api.SensorLogUnitPercent
	}
}

func formatDecimal(d *decimal.Decimal) *string {
	if d == nil {
		return nil
	}
	s := quantity.Format(*d)
	return &s
}

// toAPI renders a sensor.
func toAPI(v db.SensorView) api.Sensor {
	r := ruleOf(v)
	out := api.Sensor{
		Id: v.ID, Name: v.Name, GatewayDeviceId: v.GatewayDeviceID, ExternalId: v.ExternalID, Kind: api.SensorKind(v.Kind),
		SiteId: v.SiteID, StorageLocationId: v.StorageLocationID, EquipmentId: v.EquipmentID,
		MinTempF: formatDecimal(v.MinTempF), MaxTempF: formatDecimal(v.MaxTempF),
		EffectiveMinTempF: formatDecimal(r.min), EffectiveMaxTempF: formatDecimal(r.max),
		ExcursionMinutes: int(v.ExcursionMinutes), Active: v.Active, CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt,
	}
	if v.LastAt != nil && v.LastValue != nil {
		out.LastReading = &api.SensorLastReading{At: *v.LastAt, Value: quantity.Format(*v.LastValue), Unit: logUnit(v.Kind)}
	}
	if v.ExcursionKind != nil && v.ExcursionStartedAt != nil {
		ex := &api.SensorExcursion{Kind: api.SensorExcursionKind(*v.ExcursionKind), StartedAt: *v.ExcursionStartedAt, AlertId: v.ExcursionAlertID}
		if v.ExcursionPeak != nil {
			ex.Peak = quantity.Format(*v.ExcursionPeak)
		}
		out.Excursion = ex
	}
	return out
}
