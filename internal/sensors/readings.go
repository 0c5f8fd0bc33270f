package sensors

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/alerts"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/metrics"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/principal"
)

const (
	// MaxReadings is how many readings one call may carry.
	MaxReadings = 1000
	// FutureSlack is how far ahead of the server's clock a reading may be (gateway clocks drift).
	FutureSlack = 5 * time.Minute
	// judgeSlice bounds the readings one query hands to a sensor's judging; it reads on until done.
	judgeSlice = 5000
)

var (
	eighteenTenths = decimal.RequireFromString("1.8")
	thirtyTwo      = decimal.NewFromInt(32)
)

// candidate is a reading that passed the per-reading rules, in the sensor's stored unit.
type candidate struct {
	sensorID uuid.UUID
	at       time.Time
	value    decimal.Decimal
}

// PostDeviceReadings stores a gateway's readings and judges each sensor's in time order. The
// sensors' evaluation rows are locked first (in id order), so calls carrying readings of the
// same sensors, on any replica, take turns: each judges every reading stored before it, and an
// excursion opens (and its alert fires) once.
func (h *Handlers) PostDeviceReadings(ctx context.Context, req api.PostDeviceReadingsRequestObject) (api.PostDeviceReadingsResponseObject, error) {
	p, ok := principal.From(ctx)
	if !ok || p.Kind != principal.Device {
		return nil, apierr.Unauthenticated("Invalid device token")
	}
	if err := h.requireGateway(ctx, p); err != nil {
		return nil, err
	}
	in := req.Body.Readings
	if len(in) > MaxReadings {
		return nil, apierr.InvalidField("readings", fmt.Sprintf("at most %d readings a call", MaxReadings))
	}
	now := h.clock.Now()
	q := db.New(h.pool)
	names := make([]string, 0, len(in))
	for _, r := range in {
		names = append(names, r.Sensor)
	}
	slices.Sort(names)
	views, err := q.GatewaySensors(ctx, db.GatewaySensorsParams{OrgID: p.OrgID, GatewayDeviceID: p.DeviceID, ExternalIds: slices.Compact(names)})
	if err != nil {
		return nil, err
	}
	byName := make(map[string]db.SensorView, len(views))
	for _, v := range views {
		byName[v.ExternalID] = v
	}

	out := api.PostDeviceReadings200JSONResponse{Rejected: []api.ReadingRejection{}}
	cands := make([]candidate, 0, len(in))
	seen := make(map[candidate]bool, len(in))
	bad := map[uuid.UUID][]faultReading{} // implausible readings by sensor: refused, but counted as faults
	oldest := retentionCutoff(now, h.retention)
	for i, r := range in {
		v, known := byName[r.Sensor]
		reject := func(reason api.ReadingRejectionReason, msg string) {
			out.Rejected = append(out.Rejected, api.ReadingRejection{Index: i, Sensor: r.Sensor, Reason: reason, Message: msg})
		}
		at := r.At.UTC().Truncate(time.Microsecond) // PostgreSQL keeps microseconds: the key as stored
		switch {
		case !known:
			reject(api.UnknownSensor, fmt.Sprintf("No sensor of this gateway has externalId %q", r.Sensor))
			continue
		case !v.Active:
			reject(api.InactiveSensor, fmt.Sprintf("Sensor %q is inactive", r.Sensor))
			continue
		case !unitFits(v.Kind, r.Unit):
			reject(api.UnitMismatch, fmt.Sprintf("A %s sensor does not read in %s", v.Kind, r.Unit))
			continue
		case at.After(now.Add(FutureSlack)):
			reject(api.InFuture, "More than 5 minutes ahead of the server's clock")
			continue
		case at.Before(oldest):
			reject(api.TooOld, fmt.Sprintf("Older than the readings' retention of %d months", h.retention))
			continue
		}
		value, err := decimal.NewFromString(r.Value)
		if err != nil {
			return nil, apierr.InvalidField(fmt.Sprintf("readings[%d].value", i), "is not a decimal number")
		}
		if why := implausible(r.Unit, value); why != "" {
			reject(api.Implausible, why)
			bad[v.ID] = append(bad[v.ID], faultReading{at: at, sent: sentText(r.Unit, value)})
			continue
		}
		c := candidate{sensorID: v.ID, at: at, value: stored(r.Unit, value)}
		key := candidate{sensorID: c.sensorID, at: c.at}
		if seen[key] {
			out.Duplicates++ // twice in this call: the first one counts
			continue
		}
		seen[key] = true
		cands = append(cands, c)
	}
	if len(cands) == 0 && len(bad) == 0 {
		if err := pg.InTx(ctx, h.pool, func(tx pgx.Tx) error { return contact(ctx, tx, now, p) }); err != nil {
			return nil, err
		}
		countReadings(out)
		return out, nil
	}
	// Readings in (sensor, time) order: calls storing overlapping readings meet them in the same order.
	slices.SortFunc(cands, func(a, b candidate) int {
		return cmp.Or(slices.Compare(a.sensorID[:], b.sensorID[:]), a.at.Compare(b.at))
	})
	if err := h.ensureMonths(ctx, cands); err != nil {
		return nil, err
	}
	params := db.InsertReadingsParams{OrgID: p.OrgID, Now: now}
	var ids []uuid.UUID // the sensors whose readings are stored (heard from)
	for _, c := range cands {
		params.SensorIds = append(params.SensorIds, c.sensorID)
		params.Ats = append(params.Ats, c.at)
		params.Vals = append(params.Vals, c.value.String())
		if len(ids) == 0 || ids[len(ids)-1] != c.sensorID {
			ids = append(ids, c.sensorID)
		}
	}
	locked := slices.Clone(ids) // and those whose fault run moves (LockSensorStates locks in id order)
	for id := range bad {
		if !slices.Contains(ids, id) {
			locked = append(locked, id)
		}
	}
	byID := make(map[uuid.UUID]db.SensorView, len(views))
	for _, v := range views {
		byID[v.ID] = v
	}
	var inserted int
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		states, err := q.LockSensorStates(ctx, db.LockSensorStatesParams{OrgID: p.OrgID, SensorIds: locked})
		if err != nil {
			return err
		}
		// A sensor moved to another gateway (or site) after this call read the gateway's sensors
		// and before it took their states' locks, which the move takes too: its readings are no
		// longer this gateway's to store. Rare enough to send the call again rather than sort out
		// which readings still apply: then they are rejected as unknown_sensor.
		kept, err := q.GatewayKeepsSensors(ctx, db.GatewayKeepsSensorsParams{OrgID: p.OrgID, GatewayDeviceID: p.DeviceID, SensorIds: locked})
		if err != nil {
			return err
		}
		if int(kept) != len(locked) {
			return apierr.Unavailable(apierr.CodeServiceUnavailable, "A sensor of this gateway was moved while its readings were stored; nothing was stored, send them again", time.Second)
		}
		var rows []db.InsertReadingsRow
		if len(cands) > 0 {
			if rows, err = q.InsertReadings(ctx, params); err != nil {
				return err
			}
		}
		inserted = len(rows)
		// This call's readings of each sensor, in time order.
		slices.SortFunc(rows, func(a, b db.InsertReadingsRow) int {
			return cmp.Or(slices.Compare(a.SensorID[:], b.SensorID[:]), a.At.Compare(b.At))
		})
		fresh := make(map[uuid.UUID][]db.InsertReadingsRow, len(ids))
		for i := 0; i < len(rows); {
			j := i + 1
			for j < len(rows) && rows[j].SensorID == rows[i].SensorID {
				j++
			}
			fresh[rows[i].SensorID] = rows[i:j]
			i = j
		}
		saved := make([]savedState, 0, len(states))
		for _, st := range states {
			s, err := judge(ctx, tx, now, byID[st.SensorID], st, fresh[st.SensorID])
			if err != nil {
				return err
			}
			f, faulted, err := countFaults(ctx, tx, now, byID[st.SensorID], st, bad[st.SensorID], fresh[st.SensorID])
			if err != nil {
				return err
			}
			if s == nil && faulted {
				s = unjudged(st)
			}
			if s != nil {
				s.FaultRun, s.FaultSince, s.FaultAt = f.run, f.since, f.at
				saved = append(saved, *s)
			}
		}
		if len(saved) > 0 {
			raw, err := json.Marshal(saved)
			if err != nil {
				return err
			}
			if err := q.SaveSensorStates(ctx, raw); err != nil {
				return err
			}
		}
		return contact(ctx, tx, now, p, ids...)
	})
	if err != nil {
		return nil, err
	}
	out.Accepted = inserted
	out.Duplicates += len(cands) - inserted
	countReadings(out)
	return out, nil
}

// countReadings counts a call's readings in sous_sensor_readings_total once it is answered:
// accepted, duplicates, and each rejection by its reason.
func countReadings(out api.PostDeviceReadings200JSONResponse) {
	metrics.SensorReadings.WithLabelValues(metrics.ReadingAccepted).Add(float64(out.Accepted))
	metrics.SensorReadings.WithLabelValues(metrics.ReadingDuplicate).Add(float64(out.Duplicates))
	for _, r := range out.Rejected {
		metrics.SensorReadingRejected(string(r.Reason))
	}
}

// requireGateway refuses readings from a device that is not a sensor gateway.
func (h *Handlers) requireGateway(ctx context.Context, p principal.Principal) error {
	kind := ""
	if st, ok := p.Loaded.(*db.DeviceState); ok && st.ID == p.DeviceID {
		kind = st.Kind
	} else {
		d, err := db.New(h.pool).GetDevice(ctx, db.GetDeviceParams{OrgID: p.OrgID, ID: p.DeviceID})
		if pg.IsNoRows(err) {
			return apierr.Unauthenticated("Invalid device token")
		}
		if err != nil {
			return err
		}
		kind = d.Kind
	}
	if kind != "sensor_gateway" {
		return apierr.Forbidden("Only a sensor gateway sends readings; this device is a " + kind)
	}
	return nil
}

// contact records that the gateway, and the sensors whose readings it sent, were heard from:
// their silence alerts, if open, close now rather than at the next sweep (the token check
// already wrote the gateway's last contact). One statement for all of them.
func contact(ctx context.Context, tx pgx.Tx, now time.Time, p principal.Principal, sensorIDs ...uuid.UUID) error {
	return alerts.Close(ctx, tx, now, p.OrgID, alerts.KindSensorOffline, append(sensorIDs, p.DeviceID)...)
}

func unitFits(kind string, unit api.ReadingUnit) bool {
	switch kind {
	case kindTemperature:
		return unit == api.ReadingUnitF || unit == api.ReadingUnitC
	case kindHumidity:
		return unit == api.ReadingUnitPercent
	case kindDoor:
		return unit == api.ReadingUnitOpen || unit == api.ReadingUnitClosed
	}
	return false
}

// stored is a reading's value in its sensor's stored unit: °F, percent, or 1 open / 0 closed.
func stored(unit api.ReadingUnit, v decimal.Decimal) decimal.Decimal {
	switch unit {
	case api.ReadingUnitC:
		return v.Mul(eighteenTenths).Add(thirtyTwo) // exact: 1.8 has a finite decimal expansion
	case api.ReadingUnitOpen:
		return one
	case api.ReadingUnitClosed:
		return decimal.Zero
	}
	return v
}

// ensureMonths makes the readings partitions of the months the readings fall in, each once per
// process, each in its own short transaction (the partition must exist before the insert).
func (h *Handlers) ensureMonths(ctx context.Context, cands []candidate) error {
	for _, c := range cands {
		month := time.Date(c.at.Year(), c.at.Month(), 1, 0, 0, 0, 0, time.UTC)
		if _, ok := h.months.Load(month); ok {
			continue
		}
		if _, err := db.New(h.pool).EnsureReadingsPartition(ctx, month); err != nil {
			return err
		}
		h.months.Store(month, true)
	}
	return nil
}
