package sensors

import (
	"bytes"
	"context"
	"fmt"
	"mime"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/attachment"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/quantity"
	"github.com/sous-app/sous/internal/reqinfo"
	"github.com/sous-app/sous/internal/tasks"
)

const (
	// maxLogDays is the longest period one temperature log covers: a quarter.
	maxLogDays = 92
	// maxLogBuckets bounds the work of one log (sensors × buckets in the period): a quarter of
	// hourly buckets for 90 sensors, a month of 15-minute buckets for 67.
	maxLogBuckets = 200_000
	// maxLogSensors and maxLogExcursions bound the rows the log reads besides the buckets.
	maxLogSensors    = 1000
	maxLogExcursions = 20_000
)

var logIntervals = map[api.TemperatureLogInterval]time.Duration{
	api.LogEvery5m:  5 * time.Minute,
	api.LogEvery15m: 15 * time.Minute,
	api.LogEvery1h:  time.Hour,
	api.LogEvery4h:  4 * time.Hour,
}

// Media types the temperature log answers in.
const (
	mediaJSON = "application/json"
	mediaCSV  = "text/csv"
	mediaPDF  = "application/pdf"
)

// GetTemperatureLog answers a site's temperature log over local dates, in the media type the
// request's Accept prefers.
func (h *Handlers) GetTemperatureLog(ctx context.Context, req api.GetTemperatureLogRequestObject) (api.GetTemperatureLogResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	interval := api.LogEvery1h
	if p.Interval != nil {
		interval = *p.Interval
	}
	width, ok := logIntervals[interval]
	if !ok {
		return nil, apierr.InvalidField("interval", "must be one of: 5m, 15m, 1h, 4h")
	}
	if p.To.Before(p.From.Time) {
		return nil, apierr.InvalidField("from", "must not be after to")
	}
	if days := int(p.To.Sub(p.From.Time)/(24*time.Hour)) + 1; days > maxLogDays {
		return nil, apierr.InvalidField("to", fmt.Sprintf("the period may be at most %d days; it is %d", maxLogDays, days))
	}
	if err := a.CheckSite(p.SiteId); err != nil {
		return nil, err
	}
	q := db.New(h.pool)
	site, err := q.GetSite(ctx, db.GetSiteParams{OrgID: a.OrgID, ID: p.SiteId})
	if pg.IsNoRows(err) {
		return nil, apierr.NotFound("Site")
	}
	if err != nil {
		return nil, err
	}
	loc, err := time.LoadLocation(site.Timezone)
	if err != nil {
		return nil, apierr.Internal(fmt.Errorf("site %s time zone %q: %w", site.ID, site.Timezone, err))
	}
	start := time.Date(p.From.Year(), p.From.Month(), p.From.Day(), 0, 0, 0, 0, loc)
	end := time.Date(p.To.Year(), p.To.Month(), p.To.Day()+1, 0, 0, 0, 0, loc)
	views, err := q.TemperatureLogSensors(ctx, db.TemperatureLogSensorsParams{OrgID: a.OrgID, SiteID: site.ID, MaxRows: maxLogSensors + 1})
	if err != nil {
		return nil, err
	}
	if len(views) > maxLogSensors {
		return nil, apierr.InvalidField("siteId", fmt.Sprintf("the site has more than %d temperature sensors: ask for their logs one by one", maxLogSensors))
	}
	perSensor := int((end.Sub(start) + width - 1) / width)
	if n := perSensor * len(views); n > maxLogBuckets {
		return nil, apierr.InvalidField("interval", fmt.Sprintf("%d sensors × %d buckets of %s is more than %d: ask for a coarser interval or a shorter period",
			len(views), perSensor, interval, maxLogBuckets))
	}
	// A heavy log waits for one of the organization's slots, held until its body is written.
	release := func() {}
	if n := perSensor * len(views); n > heavyLogBuckets {
		slot, err := h.heavySlot(ctx, a.OrgID)
		if err != nil {
			return nil, err
		}
		release = slot.release
		defer func() {
			if release != nil {
				release()
			}
		}()
		q = db.New(slot.tx)
	}
	log := api.TemperatureLog{
		Site: api.TemperatureLogSite{Id: site.ID, Name: site.Name, Timezone: site.Timezone},
		From: p.From, To: p.To, PeriodStart: start.UTC(), PeriodEnd: end.UTC(), Interval: interval,
		GeneratedAt: h.clock.Now().UTC().Truncate(time.Second), Sensors: []api.TemperatureLogSensor{},
	}
	if err := h.fillLog(ctx, q, a.OrgID, views, width, &log); err != nil {
		return nil, err
	}
	media := preferredMedia(reqinfo.Accept(ctx))
	if media == mediaPDF {
		org, err := q.GetOrg(ctx, a.OrgID)
		if err != nil {
			return nil, err
		}
		b, err := logPDF(org.Name, log, loc)
		if err != nil {
			return nil, err
		}
		disposition := logDisposition(log, "pdf")
		return api.GetTemperatureLog200ApplicationpdfResponse{Body: bytes.NewReader(b), ContentLength: int64(len(b)),
			Headers: api.GetTemperatureLog200ResponseHeaders{ContentDisposition: &disposition}}, nil
	}
	// JSON and CSV are written to the client from the log as they are encoded; the slot, if any,
	// is the response's to release once written.
	res := &streamedLog{log: log, loc: loc, media: media, release: release}
	release = nil
	return res, nil
}

// fillLog reads the sensors' buckets, excursions and corrective tasks into log, three queries in all.
func (h *Handlers) fillLog(ctx context.Context, q *db.Queries, orgID uuid.UUID, views []db.SensorView, width time.Duration, log *api.TemperatureLog) error {
	ids := make([]uuid.UUID, len(views))
	for i, v := range views {
		ids[i] = v.ID
	}
	buckets, err := q.TemperatureLogBuckets(ctx, db.TemperatureLogBucketsParams{
		WidthSeconds: int32(width / time.Second), Origin: log.PeriodStart, SensorIds: ids, FromAt: log.PeriodStart, ToAt: log.PeriodEnd,
	})
	if err != nil {
		return err
	}
	excursions, err := q.TemperatureLogExcursions(ctx, db.TemperatureLogExcursionsParams{
		OrgID: orgID, SensorIds: ids, FromAt: log.PeriodStart, ToAt: log.PeriodEnd, MaxRows: maxLogExcursions + 1,
	})
	if err != nil {
		return err
	}
	if len(excursions) > maxLogExcursions {
		return apierr.InvalidField("from", fmt.Sprintf("more than %d excursions in the period: ask for a shorter one", maxLogExcursions))
	}
	var alertIDs []uuid.UUID
	for _, e := range excursions {
		if e.AlertID != nil {
			alertIDs = append(alertIDs, *e.AlertID)
		}
	}
	outcomes, err := tasks.SensorAlertOutcomes(ctx, q, orgID, alertIDs)
	if err != nil {
		return err
	}
	bySensor := make(map[uuid.UUID]*api.TemperatureLogSensor, len(views))
	for _, v := range views {
		r := ruleOf(v)
		log.Sensors = append(log.Sensors, api.TemperatureLogSensor{
			SensorId: v.ID, Name: v.Name, StorageLocationId: v.StorageLocationID, Location: v.LocationName,
			EquipmentId: v.EquipmentID, Equipment: v.EquipmentName, MinTempF: formatDecimal(r.min), MaxTempF: formatDecimal(r.max),
			Active: v.Active, Buckets: []api.SensorLogBucket{}, Excursions: []api.TemperatureLogExcursion{},
		})
	}
	for i := range log.Sensors {
		bySensor[log.Sensors[i].SensorId] = &log.Sensors[i]
	}
	for _, b := range buckets {
		s := bySensor[b.SensorID]
		s.Buckets = append(s.Buckets, api.SensorLogBucket{
			At: b.Bucket.UTC(), Min: quantity.Format(b.MinValue), Mean: quantity.Format(b.MeanValue), Max: quantity.Format(b.MaxValue), Count: int(b.Readings),
		})
	}
	for _, e := range excursions {
		s := bySensor[e.SensorID]
		until := log.GeneratedAt
		if e.EndedAt != nil {
			until = *e.EndedAt
		}
		x := api.TemperatureLogExcursion{
			Id: e.ID, Kind: api.LogTemperatureExcursion, StartedAt: e.StartedAt.UTC(), EndedAt: utc(e.EndedAt), Ongoing: e.EndedAt == nil,
			DurationMinutes: int(until.Sub(e.StartedAt) / time.Minute), Peak: quantity.Format(e.Peak),
			MinTempF: formatDecimal(e.MinTempF), MaxTempF: formatDecimal(e.MaxTempF), AlertId: e.AlertID,
		}
		if e.AlertID != nil {
			if t, ok := outcomes[*e.AlertID]; ok {
				x.Task = &t
			}
		}
		s.Excursions = append(s.Excursions, x)
	}
	return nil
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// preferredMedia picks the media type Accept ranks highest among JSON, CSV and PDF (RFC 9110
// §12.5.1), JSON on a tie or with no Accept. The negotiation middleware has already answered 406
// when Accept allows none of them.
func preferredMedia(accept string) string {
	best, bestQ, bestSpecific := mediaJSON, -1.0, -1
	for _, part := range strings.Split(accept, ",") {
		rng, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		if q <= 0 {
			continue
		}
		for _, offered := range []string{mediaJSON, mediaCSV, mediaPDF} {
			specific := specificity(rng, offered)
			if specific < 0 {
				continue
			}
			if q > bestQ || (q == bestQ && specific > bestSpecific) {
				best, bestQ, bestSpecific = offered, q, specific
			}
		}
	}
	return best
}

// specificity is how exactly a media range names a type: 2 exactly, 1 as type/*, 0 as */*, -1 not at all.
func specificity(rng, offered string) int {
	switch {
	case rng == offered:
		return 2
	case strings.HasSuffix(rng, "/*") && strings.HasPrefix(offered, strings.TrimSuffix(rng, "*")):
		return 1
	case rng == "*/*":
		return 0
	}
	return -1
}

// logDisposition names the log's file by its local dates:
// temperature-log-2026-03-01-to-2026-03-31.csv, or temperature-log-2026-03-02.pdf for one day.
func logDisposition(log api.TemperatureLog, ext string) string {
	return attachment.Disposition("temperature log", log.From.Time, log.To.Time, ext)
}

// localDate is a report date as a time for formatting.
func localDate(d openapi_types.Date) string { return d.Format("2006-01-02") }
