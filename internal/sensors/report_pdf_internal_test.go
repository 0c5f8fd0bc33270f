package sensors

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/api"
)

// knownLog is three days of 5-minute buckets at a Chicago site for two sensors: the walk-in
// (33–41 °F) with out-of-range values at known buckets and 70 excursions, and a probe with no
// range. Bucket i of the walk-in, counted from the period's start, reads:
//
//	i % 100 == 10: 36 / 37.5 / 42.5   the maximum out
//	i % 100 == 20: 32 / 37.5 / 39     the minimum out
//	i % 100 == 30: 41.5 / 42 / 43     all three out
//	i % 100 == 40: 33 / 37 / 41       on the limits: in range
//	otherwise      36 / 37.5 / 39
func knownLog() api.TemperatureLog {
	chicago, _ := time.LoadLocation("America/Chicago")
	start := time.Date(2026, 3, 2, 0, 0, 0, 0, chicago).UTC()
	log := api.TemperatureLog{Site: api.TemperatureLogSite{Name: "Main Kitchen", Timezone: "America/Chicago"}, Interval: api.LogEvery5m,
		PeriodStart: start, PeriodEnd: start.Add(3 * 24 * time.Hour), GeneratedAt: start.Add(4 * 24 * time.Hour)}
	log.From.Time, log.To.Time = time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC)
	place, lo, hi := "Walk-in cooler", "33", "41"
	walkIn := api.TemperatureLogSensor{SensorId: uuid.New(), Name: "Probe A", Location: &place, MinTempF: &lo, MaxTempF: &hi}
	probe := api.TemperatureLogSensor{SensorId: uuid.New(), Name: "Hand probe"}
	for i := range knownBuckets {
		at := start.Add(time.Duration(i) * 5 * time.Minute)
		b := api.SensorLogBucket{At: at, Min: "36", Mean: "37.5", Max: "39", Count: 5}
		switch i % 100 {
		case 10:
			b.Max = "42.5"
		case 20:
			b.Min = "32"
		case 30:
			b.Min, b.Mean, b.Max = "41.5", "42", "43"
		case 40:
			b.Min, b.Mean, b.Max = "33", "37", "41"
		}
		walkIn.Buckets = append(walkIn.Buckets, b)
		probe.Buckets = append(probe.Buckets, api.SensorLogBucket{At: at, Min: "70", Mean: "71", Max: "72", Count: 5})
	}
	for d := range 70 {
		at := start.Add(time.Duration(d) * time.Hour)
		end := at.Add(20 * time.Minute)
		walkIn.Excursions = append(walkIn.Excursions, api.TemperatureLogExcursion{StartedAt: at, EndedAt: &end, DurationMinutes: 20, Peak: "43", MinTempF: &lo, MaxTempF: &hi})
	}
	log.Sensors = []api.TemperatureLogSensor{walkIn, probe}
	return log
}

const knownBuckets = 3 * 288

// The walk-in's out-of-range values of knownLog, bucket by bucket, as its comment has them.
func knownOutOfRange() []string {
	var out []string
	for i := range knownBuckets {
		switch i % 100 {
		case 10:
			out = append(out, "42.5")
		case 20:
			out = append(out, "32")
		case 30:
			out = append(out, "41.5", "42", "43")
		}
	}
	return out
}

func knownPDF(t *testing.T) []pdfPage {
	t.Helper()
	chicago, _ := time.LoadLocation("America/Chicago")
	b, err := logPDF("Harbor Foods & Co", knownLog(), chicago)
	if err != nil {
		t.Fatal(err)
	}
	return readPDF(t, b)
}

// Every page names the organization in its heading and counts itself among all pages.
func TestLogPDFEveryPageNamesTheOrganizationAndItsNumber(t *testing.T) {
	pages := knownPDF(t)
	if len(pages) < 4 {
		t.Fatalf("%d pages: the fixture should run over several", len(pages))
	}
	for i, p := range pages {
		texts := p.texts()
		if !slices.Contains(texts, "Harbor Foods & Co") {
			t.Errorf("page %d: no organization in %q", i+1, texts[:min(len(texts), 4)])
		}
		if want := fmt.Sprintf("Page %d of %d", i+1, len(pages)); !slices.Contains(texts, want) {
			t.Errorf("page %d: no %q", i+1, want)
		}
	}
}

// A table that runs onto another page starts it with the sensor's name, "(continued)", and its
// heading row: the excursions' once, the readings' at the top of each of its columns.
func TestLogPDFContinuedTablesRepeatTheirHeading(t *testing.T) {
	pages := knownPDF(t)
	const title = "Walk-in cooler · Probe A"
	excursionsContinued, readingsContinued := 0, 0
	for i, p := range pages {
		sensorOnPage := false // a sensor's section starts or continues on the page
		for n, s := range p.shows {
			switch s.text {
			case title, "Hand probe":
				sensorOnPage = true
			case title + " (continued)", "Hand probe (continued)":
				sensorOnPage = true
				switch next := p.shows[n+1]; {
				case next.text == "Out of range from" && next.font == "Helvetica-Bold":
					excursionsContinued++
				case next.text == bucketHeader && next.font == "Courier-Bold":
					readingsContinued++
				default:
					t.Errorf("page %d: %q followed by %q in %s, not a heading row", i+1, s.text, next.text, next.font)
				}
			}
		}
		// Rows of readings: one text object per column, each under its heading.
		columns := strings.Count(p.content, " TL\n")
		headings := 0
		for _, s := range p.shows {
			if s.text == bucketHeader {
				headings++
			}
		}
		if columns != headings {
			t.Errorf("page %d: %d columns of readings, %d headings", i+1, columns, headings)
		}
		if (columns > 0 || slices.Contains(p.texts(), "Out of range from")) && !sensorOnPage {
			t.Errorf("page %d: a table without its sensor's name", i+1)
		}
	}
	// 70 excursions (5 mm a row) do not fit under the chart on the first page; 2 × 864 readings
	// at 3 × 95 rows a page fill several.
	if excursionsContinued != 1 || readingsContinued < 2 {
		t.Errorf("continued: excursions %d (want 1), readings %d (want at least 2)", excursionsContinued, readingsContinued)
	}
}

// The values out of the walk-in's range, and only they, are shown in bold over a red ground;
// their row leaves their place blank in the regular font. The probe without a range has none.
func TestLogPDFMarksExactlyTheOutOfRangeCells(t *testing.T) {
	pages := knownPDF(t)
	want := knownOutOfRange()
	// 9 buckets each of i % 100 = 10, 20 and 30 in 864: 9 + 9 + 3 × 9 values.
	if len(want) != 9+9+3*9 {
		t.Fatalf("fixture arithmetic: %d", len(want))
	}
	var bold []string
	grounds := 0
	for _, p := range pages {
		for _, s := range p.shows {
			if s.font == "Courier-Bold" && s.text != bucketHeader {
				bold = append(bold, s.text)
			}
		}
		for _, block := range strings.Split(p.content, "q "+colourCell+" rg\n")[1:] {
			grounds += strings.Count(block[:strings.Index(block, "f Q")], " re\n")
		}
	}
	if !slices.Equal(bold, want) {
		t.Errorf("bold values:\n%q\nwant\n%q", bold, want)
	}
	if grounds != len(want) {
		t.Errorf("%d red grounds, want %d", grounds, len(want))
	}
	// The row of bucket 10 (00:50 local) shows its minimum and mean; its maximum is in bold.
	row := "2026-03-02 00:50" + "     36" + "   37.5" + strings.Repeat(" ", 7) + "     5"
	found := false
	for _, p := range pages {
		found = found || slices.Contains(p.texts(), row)
	}
	if !found {
		t.Errorf("no row %q", row)
	}
}

// Each sensor with readings has its chart: the band of its range (when it has one), the
// readings' envelope and mean, and a red stretch per run of out-of-range columns.
func TestLogPDFChartsEachSensor(t *testing.T) {
	pages := knownPDF(t)
	var all strings.Builder
	for _, p := range pages {
		all.WriteString(p.content)
	}
	doc := all.String()
	count := func(op string) int { return strings.Count(doc, op) }
	// Two sensors: one envelope and one mean each; the walk-in alone has a range, so one band,
	// and its envelope is filled red twice more (above the maximum, below the minimum).
	if count(colourEnvelope+" rg") != 2 || count(colourMean+" RG") != 2 || count(colourBand+" rg") != 1 || count(colourOutOfBand+" rg") != 2 {
		t.Errorf("chart fills: envelope %d, mean %d, band %d, out of band %d", count(colourEnvelope+" rg"), count(colourMean+" RG"),
			count(colourBand+" rg"), count(colourOutOfBand+" rg"))
	}
	// 27 out-of-range buckets, 10 buckets (over 5 pixel columns) apart: 27 stretches.
	block := doc[strings.Index(doc, colourStretch+" rg\n"):]
	if n := strings.Count(block[:strings.Index(block, "f\n")], " re\n"); n != 27 {
		t.Errorf("%d out-of-range stretches, want 27", n)
	}
	// The axes: degrees and local times.
	texts := pages[0].texts()
	for _, label := range []string{"°F", "Mar 2", "12:00", "Mar 3", "max 41", "min 33", "Local time (America/Chicago)"} {
		if !slices.Contains(texts, label) {
			t.Errorf("chart label %q missing", label)
		}
	}
}

// A quarter at 5 minutes (26,496 buckets) is drawn with at most a point per pixel column on each
// edge of its envelope, and one spike among them keeps its column's maximum.
func TestChartDownsamplesKeepingExcursions(t *testing.T) {
	log := quarterLog()
	log.PeriodStart = log.Sensors[0].Buckets[0].At
	log.PeriodEnd = log.PeriodStart.Add(92 * 24 * time.Hour)
	s := log.Sensors[0]
	s.Buckets = slices.Clone(s.Buckets)
	s.Buckets[5000].Max = "47.5"
	l, ranged := limitsOf(s)
	const n = 476 // pixel columns of the plot
	d := gather(s.Buckets, 5*time.Minute, log.PeriodStart, log.PeriodEnd, 22, 168, n, l, ranged)
	if len(d.columns) > n {
		t.Fatalf("%d columns for %d pixel columns", len(d.columns), n)
	}
	spike := int(float64(5000) / float64(len(s.Buckets)) * n)
	if c := d.columns[spike]; c.hi != 47.5 || !c.out || c.lo != 37.1 {
		t.Errorf("column %d: %+v", spike, c)
	}
	if runs := d.stretches(); len(runs) != 1 || runs[0] != [2]int{spike, spike + 1} {
		t.Errorf("stretches %v", runs)
	}
	flagged := 0
	for _, f := range d.flags {
		if f != 0 {
			flagged++
		}
	}
	if flagged != 1 || d.flags[5000] != outMax {
		t.Errorf("%d flagged buckets, bucket 5000: %b", flagged, d.flags[5000])
	}
	path := envelope(&ops{k: 72 / 25.4, pageH: 297}, d.columns, func(v float64) float64 { return v })
	if points := bytes.Count(path, []byte(" l\n")) + bytes.Count(path, []byte(" m\n")); points > 2*n {
		t.Errorf("envelope of %d points for %d pixel columns", points, n)
	}
}

// Missing buckets break the line: a sensor offline for a day is two runs, not a line across.
func TestChartBreaksAtMissingBuckets(t *testing.T) {
	log := knownLog()
	s := log.Sensors[1]
	s.Buckets = append(slices.Clone(s.Buckets[:288]), s.Buckets[576:]...)
	d := gather(s.Buckets, 5*time.Minute, log.PeriodStart, log.PeriodEnd, 22, 168, 476, limits{}, false)
	gaps := 0
	for _, c := range d.columns {
		if c.gap {
			gaps++
		}
	}
	if gaps != 1 || d.flags != nil {
		t.Errorf("%d gaps, flags %v", gaps, d.flags != nil)
	}
}

// poppler reads the document and draws its first page (where it is installed).
func TestLogPDFRendersWithPoppler(t *testing.T) {
	bin, err := exec.LookPath("pdftoppm")
	if err != nil {
		t.Skip("pdftoppm is not installed")
	}
	chicago, _ := time.LoadLocation("America/Chicago")
	b, err := logPDF("Harbor Foods & Co", knownLog(), chicago)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "log.pdf")
	if err := os.WriteFile(in, b, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-r", "50", "-f", "1", "-l", "1", "-png", in, filepath.Join(dir, "page")).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Fatalf("pdftoppm: %v %s", err, out)
	}
	png, err := os.ReadFile(filepath.Join(dir, "page-1.png"))
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("page 1: %v, %d bytes", err, len(png))
	}
}
