package sensors

import (
	"context"
	"fmt"
	"time"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/quantity"
)

// resolution is a log resolution's bucket width (0: every reading) and the longest span it
// answers, which bounds the work of one request.
type resolution struct {
	width   time.Duration
	maxSpan time.Duration
}

var resolutions = map[api.SensorLogResolution]resolution{
	api.Raw: {0, 7 * 24 * time.Hour},
	api.N5m: {5 * time.Minute, 31 * 24 * time.Hour},
	api.N1h: {time.Hour, 366 * 24 * time.Hour},
}

// maxRawReadings bounds a raw log: a week of readings every 30 seconds.
const maxRawReadings = 20160

func (h *Handlers) GetSensorReadings(ctx context.Context, req api.GetSensorReadingsRequestObject) (api.GetSensorReadingsResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	resName := api.Raw
	if p.Resolution != nil {
		resName = *p.Resolution
	}
	res, ok := resolutions[resName]
	if !ok {
		return nil, apierr.InvalidField("resolution", "must be one of: raw, 5m, 1h")
	}
	to := h.clock.Now()
	if p.To != nil {
		to = p.To.UTC()
	}
	from := to.Add(-24 * time.Hour)
	if p.From != nil {
		from = p.From.UTC()
	}
	if !from.Before(to) {
		return nil, apierr.InvalidField("from", "must be before to")
	}
	if to.Sub(from) > res.maxSpan {
		return nil, apierr.InvalidField("from", fmt.Sprintf("the span may be at most %d days at resolution %s", int(res.maxSpan.Hours()/24), resName))
	}
	q := db.New(h.pool)
	v, err := loadView(ctx, q, a, req.Id)
	if err != nil {
		return nil, err
	}
	out := api.GetSensorReadings200JSONResponse{
		SensorId: v.ID, Resolution: resName, Unit: logUnit(v.Kind), From: from, To: to,
		Readings: []api.SensorLogReading{}, Buckets: []api.SensorLogBucket{},
	}
	if res.width == 0 {
		rows, err := q.SensorRawReadings(ctx, db.SensorRawReadingsParams{SensorID: v.ID, FromAt: from, ToAt: to, MaxRows: maxRawReadings + 1})
		if err != nil {
			return nil, err
		}
		if len(rows) > maxRawReadings {
			return nil, apierr.InvalidField("resolution", fmt.Sprintf("more than %d readings in the span: ask for a shorter span or resolution 5m", maxRawReadings))
		}
		for _, r := range rows {
			out.Readings = append(out.Readings, api.SensorLogReading{At: r.At, Value: quantity.Format(r.Value)})
		}
		return out, nil
	}
	rows, err := q.SensorReadingBuckets(ctx, db.SensorReadingBucketsParams{SensorID: v.ID, FromAt: from, ToAt: to, WidthSeconds: int32(res.width / time.Second)})
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		out.Buckets = append(out.Buckets, api.SensorLogBucket{
			At: r.Bucket.UTC(), Min: quantity.Format(r.MinValue), Mean: quantity.Format(r.MeanValue), Max: quantity.Format(r.MaxValue), Count: int(r.Readings),
		})
	}
	return out, nil
}
