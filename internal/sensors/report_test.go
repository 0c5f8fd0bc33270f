package sensors_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
	"github.com/sous-app/sous/internal/sensors"
)

type logBucket struct {
	At    time.Time `json:"at"`
	Min   string    `json:"min"`
	Mean  string    `json:"mean"`
	Max   string    `json:"max"`
	Count int       `json:"count"`
}

type temperatureLog struct {
	Site struct {
		ID       uuid.UUID `json:"id"`
		Timezone string    `json:"timezone"`
	} `json:"site"`
	PeriodStart time.Time `json:"periodStart"`
	PeriodEnd   time.Time `json:"periodEnd"`
	Interval    string    `json:"interval"`
	Sensors     []struct {
		SensorID   uuid.UUID   `json:"sensorId"`
		Name       string      `json:"name"`
		Location   *string     `json:"location"`
		MinTempF   *string     `json:"minTempF"`
		MaxTempF   *string     `json:"maxTempF"`
		Buckets    []logBucket `json:"buckets"`
		Excursions []struct {
			StartedAt       time.Time  `json:"startedAt"`
			EndedAt         *time.Time `json:"endedAt"`
			Ongoing         bool       `json:"ongoing"`
			DurationMinutes int        `json:"durationMinutes"`
			Peak            string     `json:"peak"`
			MaxTempF        *string    `json:"maxTempF"`
			AlertID         *uuid.UUID `json:"alertId"`
			Task            *struct {
				TaskID      uuid.UUID  `json:"taskId"`
				Status      string     `json:"status"`
				DueAt       time.Time  `json:"dueAt"`
				CompletedAt *time.Time `json:"completedAt"`
				CompletedBy *struct {
					UserID uuid.UUID `json:"userId"`
					Name   string    `json:"name"`
				} `json:"completedBy"`
				Note        *string `json:"note"`
				Temperature *struct {
					Value      string `json:"value"`
					Unit       string `json:"unit"`
					Fahrenheit string `json:"fahrenheit"`
				} `json:"temperature"`
			} `json:"task"`
		} `json:"excursions"`
	} `json:"sensors"`
}

func (k *kitchen) logPath(from, to, interval string) string {
	p := k.path("reports", "temperature-log") + "?siteId=" + k.site.String() + "&from=" + from + "&to=" + to
	if interval != "" {
		p += "&interval=" + interval
	}
	return p
}

// The whole path through the API: a paired gateway, a probe registered on the walk-in, a warm
// afternoon sent as the gateway sends it, the excursion's alert and task, the task completed
// with a note and a reading, and the temperature log showing it all in JSON, CSV and PDF. Every
// number below is worked out from the warming curve (see warming), not read back from the server.
func TestTemperatureLogShowsTheExcursionAndItsCorrection(t *testing.T) {
	env := apitest.New(t)
	k := newKitchen(t, env, "Inspected")
	s := k.sensor("probe-7", nil)
	start := env.Clock.Now() // 2026-03-02 09:00 UTC, 03:00 in the site's Chicago
	const minutes = 75
	env.Clock.Set(start.Add(minutes * time.Minute))
	res := k.send(series("probe-7", start, minutes, warming))
	must(t, res.Accepted == minutes, "accepted %+v", res)

	// The curve: 38 °F until minute 10, then +0.5 °F a minute; above the cooler's 41 °F from the
	// first minute past 41 (38 + 0.5·7 = 41.5 at minute 17); 46 °F from minute 26 to 39; then
	// −1 °F a minute, 41 °F (in range again) at minute 39 + (46 − 41) = 44.
	outAt := 10 + int((41-38)/0.5) + 1
	backAt := 39 + (46 - 41)
	must(t, outAt == 17 && backAt == 44, "curve arithmetic: %d %d", outAt, backAt)
	duration := backAt - outAt // 27 minutes
	opened := k.alerts("temperature_excursion", "resolved")
	must(t, len(opened) == 1, "one excursion, resolved within the batch: %+v", opened)
	alertID := opened[0].ID

	var tasks []struct {
		ID       uuid.UUID  `json:"id"`
		Source   string     `json:"source"`
		SourceID *uuid.UUID `json:"sourceId"`
		DueAt    string     `json:"dueAt"`
	}
	env.Call(http.MethodGet, k.path("tasks")+"?siteId="+k.site.String()).Token(k.token()).Do().Expect(http.StatusOK).Decode(&tasks)
	must(t, len(tasks) == 1 && tasks[0].Source == "sensor_alert" && tasks[0].SourceID != nil && *tasks[0].SourceID == alertID, "tasks: %+v", tasks)

	completedAt := start.Add(90 * time.Minute)
	env.Clock.Set(completedAt)
	note := "Door gasket torn; product moved to the reach-in"
	env.Call(http.MethodPost, k.path("tasks", tasks[0].ID.String(), "complete")).Token(k.token()).
		JSON(map[string]any{"note": note, "temperature": map[string]any{"value": "3.5", "unit": "C"}}).Do().Expect(http.StatusOK)
	// 3.5 °C × 9/5 + 32 = 6.3 + 32 = 38.3 °F.
	const probeF = "38.3"

	env.Clock.Set(start.Add(24 * time.Hour))
	var log temperatureLog
	env.Call(http.MethodGet, k.logPath("2026-03-02", "2026-03-02", "")).Token(k.token()).Do().Expect(http.StatusOK).Decode(&log)
	chicago, _ := time.LoadLocation("America/Chicago")
	dayStart := time.Date(2026, 3, 2, 0, 0, 0, 0, chicago)
	must(t, log.Interval == "1h" && log.PeriodStart.Equal(dayStart) && log.PeriodEnd.Equal(dayStart.AddDate(0, 0, 1)), "period: %+v", log)
	must(t, len(log.Sensors) == 1 && log.Sensors[0].SensorID == s.ID && *log.Sensors[0].Location == "Walk-in cooler" &&
		*log.Sensors[0].MinTempF == "33" && *log.Sensors[0].MaxTempF == "41", "sensor: %+v", log.Sensors)
	got := log.Sensors[0]

	// Hourly buckets from local midnight: 09:00 UTC holds minutes 0–59, 10:00 UTC minutes 60–74.
	// Minutes 0–9: 10 × 38; 10–25: 16 values 38 … 45.5, 16 × (38 + 45.5) / 2; 26–39: 14 × 46;
	// 40–47: 45 … 38, 8 × (45 + 38) / 2; 48–59: 12 × 38.
	sum := 10*38 + 16*(38+45.5)/2 + 14*46 + 8*(45+38)/2 + 12*38
	must(t, sum == 2480, "sum %v", sum)
	wantMean := fmt.Sprintf("%.2f", sum/60) // 41.33
	must(t, len(got.Buckets) == 2, "buckets: %+v", got.Buckets)
	b0, b1 := got.Buckets[0], got.Buckets[1]
	must(t, b0.At.Equal(start) && b0.Count == 60 && b0.Min == "38" && b0.Max == "46" && b0.Mean == wantMean, "first hour: %+v, want mean %s", b0, wantMean)
	must(t, b1.At.Equal(start.Add(time.Hour)) && b1.Count == minutes-60 && b1.Min == "38" && b1.Max == "38" && b1.Mean == "38", "second hour: %+v", b1)

	must(t, len(got.Excursions) == 1, "excursions: %+v", got.Excursions)
	e := got.Excursions[0]
	must(t, e.StartedAt.Equal(start.Add(time.Duration(outAt)*time.Minute)) && e.EndedAt != nil && e.EndedAt.Equal(start.Add(time.Duration(backAt)*time.Minute)) &&
		!e.Ongoing && e.DurationMinutes == duration && e.Peak == "46" && *e.MaxTempF == "41" && e.AlertID != nil && *e.AlertID == alertID, "excursion: %+v", e)
	// The alert opened when the batch was judged (the clock at minute 75): its task is due an hour later.
	must(t, e.Task != nil && e.Task.TaskID == tasks[0].ID && e.Task.Status == "done" && e.Task.DueAt.Equal(start.Add((minutes+60)*time.Minute)) &&
		e.Task.CompletedAt != nil && e.Task.CompletedAt.Equal(completedAt) && e.Task.CompletedBy != nil &&
		e.Task.CompletedBy.UserID == k.owner.User.ID && e.Task.CompletedBy.Name == k.owner.User.Name &&
		e.Task.Note != nil && *e.Task.Note == note && e.Task.Temperature != nil && e.Task.Temperature.Fahrenheit == probeF &&
		e.Task.Temperature.Value == "3.5" && e.Task.Temperature.Unit == "C", "task: %+v", e.Task)

	// CSV: the same numbers, times in Chicago (UTC−6 in March before the 8th).
	raw := env.Call(http.MethodGet, k.logPath("2026-03-02", "2026-03-02", "")).Token(k.token()).Header("Accept", "text/csv").Do().Expect(http.StatusOK)
	must(t, strings.HasPrefix(raw.Header.Get("Content-Type"), "text/csv"), "content type %q", raw.Header.Get("Content-Type"))
	must(t, raw.Header.Get("Content-Disposition") == `attachment; filename="temperature-log-2026-03-02.csv"`, "csv: %q", raw.Header.Get("Content-Disposition"))
	rows, err := csv.NewReader(bytes.NewReader(raw.Body)).ReadAll()
	must(t, err == nil && len(rows) == 1+2+1, "csv rows: %v %v", err, rows)
	must(t, strings.Join(rows[1][:9], ",") == "reading,Walk-in cooler,Probe probe-7,"+s.ID.String()+",2026-03-02T03:00:00-06:00,38,"+wantMean+",46,60", "reading row: %v", rows[1])
	ex := rows[3]
	must(t, ex[0] == "excursion" && ex[4] == "2026-03-02T03:17:00-06:00" && ex[9] == "2026-03-02T03:44:00-06:00" &&
		ex[10] == fmt.Sprint(duration) && ex[11] == "46" && ex[12] == "33" && ex[13] == "41" && ex[14] == "done" &&
		ex[15] == k.owner.User.Name && ex[16] == "2026-03-02T04:30:00-06:00" && ex[17] == note && ex[18] == probeF, "excursion row: %v", ex)

	pdf := env.Call(http.MethodGet, k.logPath("2026-03-02", "2026-03-02", "")).Token(k.token()).Header("Accept", "application/pdf").Do().Expect(http.StatusOK)
	must(t, pdf.Header.Get("Content-Type") == "application/pdf" && bytes.HasPrefix(pdf.Body, []byte("%PDF-")), "pdf: %q", pdf.Header.Get("Content-Type"))
	must(t, pdf.Header.Get("Content-Disposition") == `attachment; filename="temperature-log-2026-03-02.pdf"`, "pdf: %q", pdf.Header.Get("Content-Disposition"))
	pages := sensors.PDFPageTexts(t, pdf.Body)
	must(t, len(pages) == 1 && slices.Contains(pages[0], "Inspected") && slices.Contains(pages[0], "Page 1 of 1") &&
		slices.Contains(pages[0], "Walk-in cooler · Probe probe-7"), "pdf text: %q", pages)
	// The first hour's maximum (46) and mean (41.33) are out of the cooler's 33–41 °F: in bold.
	must(t, slices.Contains(pages[0], "46") && slices.Contains(pages[0], wantMean), "pdf marks: %q", pages)
	// A month: its file is named by its first and last dates; JSON names none.
	month := env.Call(http.MethodGet, k.logPath("2026-03-01", "2026-03-31", "")).Token(k.token()).Header("Accept", "application/pdf").Do().Expect(http.StatusOK)
	must(t, month.Header.Get("Content-Disposition") == `attachment; filename="temperature-log-2026-03-01-to-2026-03-31.pdf"`, "month: %q", month.Header.Get("Content-Disposition"))
	js := env.Call(http.MethodGet, k.logPath("2026-03-02", "2026-03-02", "")).Token(k.token()).Do().Expect(http.StatusOK)
	must(t, js.Header.Get("Content-Disposition") == "", "json: %q", js.Header.Get("Content-Disposition"))

	// Accept ranks: CSV preferred by weight, JSON by default and on */*.
	for accept, want := range map[string]string{
		"application/json;q=0.5, text/csv": "text/csv", "*/*": "application/json", "application/pdf;q=0.1, application/*": "application/json",
		"text/*, application/json;q=0.9": "text/csv",
	} {
		r := env.Call(http.MethodGet, k.logPath("2026-03-02", "2026-03-02", "")).Token(k.token()).Header("Accept", accept).Do().Expect(http.StatusOK)
		must(t, strings.HasPrefix(r.Header.Get("Content-Type"), want), "Accept %q answered %q, want %q", accept, r.Header.Get("Content-Type"), want)
	}
}

// A cell a note-writer meant as a formula reaches the CSV as text.
func TestTemperatureLogCSVNeutralisesFormulas(t *testing.T) {
	env := apitest.New(t)
	k := newKitchen(t, env, "Formula")
	k.sensor("probe-7", map[string]any{"name": "=HYPERLINK(\"x\")"})
	start := env.Clock.Now()
	env.Clock.Set(start.Add(time.Hour))
	k.send(series("probe-7", start, 30, func(int) string { return "38" }))
	raw := env.Call(http.MethodGet, k.logPath("2026-03-02", "2026-03-02", "")).Token(k.token()).Header("Accept", "text/csv").Do().Expect(http.StatusOK)
	rows, err := csv.NewReader(bytes.NewReader(raw.Body)).ReadAll()
	must(t, err == nil && len(rows) == 2 && rows[1][2] == "'=HYPERLINK(\"x\")", "rows: %v %v", err, rows)
}

// Bounds, hostile input and access: each refusal is the documented status, never a 500.
func TestTemperatureLogRefusals(t *testing.T) {
	env := apitest.New(t)
	k := newKitchen(t, env, "Mine")
	them := newKitchen(t, env, "Theirs")
	k.sensor("probe-7", nil)
	ok := k.logPath("2026-03-01", "2026-03-02", "")
	cases := []struct {
		name   string
		path   string
		token  string
		accept string
		status int
		msg    string
	}{
		{"a quarter is fine", k.logPath("2026-01-01", "2026-04-02", ""), k.token(), "", http.StatusOK, ""},
		{"93 days", k.logPath("2026-01-01", "2026-04-03", ""), k.token(), "", http.StatusBadRequest, "at most 92 days"},
		{"from after to", k.logPath("2026-03-03", "2026-03-02", ""), k.token(), "", http.StatusBadRequest, "must not be after to"},
		{"unknown interval", k.logPath("2026-03-01", "2026-03-02", "7m"), k.token(), "", http.StatusBadRequest, "interval"},
		{"no site", k.path("reports", "temperature-log") + "?from=2026-03-01&to=2026-03-02", k.token(), "", http.StatusBadRequest, "siteId"},
		{"site not a uuid", k.path("reports", "temperature-log") + "?siteId=%27%3B%20DROP&from=2026-03-01&to=2026-03-02", k.token(), "", http.StatusBadRequest, "siteId"},
		{"date not a date", k.path("reports", "temperature-log") + "?siteId=" + k.site.String() + "&from=2026-02-30&to=2026-03-02", k.token(), "", http.StatusBadRequest, "from"},
		{"nul in a date", k.path("reports", "temperature-log") + "?siteId=" + k.site.String() + "&from=2026%0003-01&to=2026-03-02", k.token(), "", http.StatusBadRequest, "from"},
		{"another organization's site", them.logPath("2026-03-01", "2026-03-02", ""), k.token(), "", http.StatusNotFound, ""},
		{"their site under our org", k.path("reports", "temperature-log") + "?siteId=" + them.site.String() + "&from=2026-03-01&to=2026-03-02", k.token(), "", http.StatusNotFound, "Site not found"},
		{"no token", ok, "", "", http.StatusUnauthorized, ""},
		{"xml", ok, k.token(), "application/xml", http.StatusNotAcceptable, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := env.With(t).Call(http.MethodGet, c.path)
			if c.token != "" {
				r = r.Token(c.token)
			}
			if c.accept != "" {
				r = r.Header("Accept", c.accept)
			}
			res := r.Do()
			if c.msg != "" {
				res.ExpectError(c.status, c.msg)
				return
			}
			res.Expect(c.status)
		})
	}

	// A member limited to another site gets 404 for this one; a viewer reads it.
	other := env.Site(k.token(), k.org, "Commissary")
	scoped := env.Member(k.org, "manager", other)
	env.Call(http.MethodGet, ok).Token(scoped.AccessToken).Do().ExpectError(http.StatusNotFound, "Site not found")
	viewer := env.Member(k.org, "viewer")
	env.Call(http.MethodGet, ok).Token(viewer.AccessToken).Do().Expect(http.StatusOK)

	// Too many buckets: 70 sensors × 31 days of 15-minute buckets (2,976 each) is past 200,000.
	for i := range 69 {
		k.sensor(fmt.Sprintf("probe-%d", 100+i), nil)
	}
	env.Call(http.MethodGet, k.logPath("2026-03-01", "2026-03-31", "15m")).Token(k.token()).Do().ExpectError(http.StatusBadRequest, "coarser interval")
	env.Call(http.MethodGet, k.logPath("2026-03-01", "2026-03-31", "1h")).Token(k.token()).Do().Expect(http.StatusOK)
}
