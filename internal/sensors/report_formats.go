package sensors

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/go-pdf/fpdf"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/internal/csvout"
)

var logCSVHeader = []string{"type", "location", "sensor", "sensor_id", "at", "min_f", "mean_f", "max_f", "readings",
	"ended_at", "duration_minutes", "peak_f", "limit_min_f", "limit_max_f", "task_status", "completed_by", "completed_at", "note", "task_temperature_f"}

// logCSV writes the log as one row per reading bucket and per excursion (its corrective task on
// the same row), times in the site's time zone with their offset.
// It writes to out as it goes (csvout buffers a few kilobytes), so the body is never whole in memory.
func writeLogCSV(out io.Writer, log api.TemperatureLog, loc *time.Location) error {
	w := csvout.NewWriter(out)
	header := make([]csvout.Cell, len(logCSVHeader))
	for i, h := range logCSVHeader {
		header[i] = csvout.Text(h)
	}
	if err := w.Row(header...); err != nil {
		return err
	}
	at := func(t *time.Time) csvout.Cell {
		if t == nil {
			return csvout.Text("")
		}
		return csvout.Text(t.In(loc).Format(time.RFC3339))
	}
	opt := func(s *string) csvout.Cell {
		if s == nil {
			return csvout.Text("")
		}
		return csvout.Number(*s)
	}
	empty := csvout.Text("")
	for _, s := range log.Sensors {
		where := csvout.Text(place(s))
		name, id := csvout.Text(s.Name), csvout.Text(s.SensorId.String())
		for _, b := range s.Buckets {
			if err := w.Row(csvout.Text("reading"), where, name, id, at(&b.At), csvout.Number(b.Min), csvout.Number(b.Mean), csvout.Number(b.Max),
				csvout.Number(strconv.Itoa(b.Count)), empty, empty, empty, opt(s.MinTempF), opt(s.MaxTempF), empty, empty, empty, empty, empty); err != nil {
				return err
			}
		}
		for _, e := range s.Excursions {
			status, by, done, note, temp := empty, empty, empty, empty, empty
			if t := e.Task; t != nil {
				status, done = csvout.Text(string(t.Status)), at(t.CompletedAt)
				if t.CompletedBy != nil {
					by = csvout.Text(t.CompletedBy.Name)
				}
				if t.Note != nil {
					note = csvout.Text(*t.Note)
				}
				if t.Temperature != nil {
					temp = csvout.Number(t.Temperature.Fahrenheit)
				}
			}
			if err := w.Row(csvout.Text("excursion"), where, name, id, at(&e.StartedAt), empty, empty, empty, empty, at(e.EndedAt),
				csvout.Number(strconv.Itoa(e.DurationMinutes)), csvout.Number(e.Peak), opt(e.MinTempF), opt(e.MaxTempF), status, by, done, note, temp); err != nil {
				return err
			}
		}
	}
	return w.Flush()
}

// place is where a sensor is: its storage location, else its equipment, else "".
func place(s api.TemperatureLogSensor) string {
	switch {
	case s.Location != nil:
		return *s.Location
	case s.Equipment != nil:
		return *s.Equipment
	}
	return ""
}

func rangeText(lo, hi *string) string {
	switch {
	case lo != nil && hi != nil:
		return *lo + "–" + *hi + " °F"
	case hi != nil:
		return "at most " + *hi + " °F"
	case lo != nil:
		return "at least " + *lo + " °F"
	}
	return "no range"
}

// logPDF renders the log as a printable document (A4, core fonts; text translated to the
// fonts' code page): per sensor, a chart of its readings against its range, its excursions with
// their corrective action, then its readings, out-of-range values marked. Every page carries the
// organization and the site in its heading and "Page N of M" at its foot; a sensor's tables that
// run onto another page start it with the sensor's name, "(continued)", and their heading row.
func logPDF(org string, log api.TemperatureLog, loc *time.Location) ([]byte, error) {
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetCreator("Sous", true)
	pdf.SetTitle("Temperature log", true)
	pdf.SetAuthor(org, true)
	pdf.SetCreationDate(log.GeneratedAt)
	pdf.SetModificationDate(log.GeneratedAt)
	pdf.SetAutoPageBreak(true, 15)
	tr := pdf.UnicodeTranslatorFromDescriptor("")
	left, _, right, _ := pdf.GetMargins()
	pageW, pageH := pdf.GetPageSize()
	_, bottom := pdf.GetAutoPageBreak()
	width := logIntervals[log.Interval]
	local := func(t time.Time) string { return t.In(loc).Format("2006-01-02 15:04") }
	row := func(widths []float64, cells []string, bold bool) {
		style := ""
		if bold {
			style = "B"
		}
		pdf.SetFont("Helvetica", style, 8)
		for i, w := range widths {
			pdf.CellFormat(w, 5, tr(cells[i]), "1", 0, "L", false, 0, "")
		}
		pdf.Ln(-1)
	}
	text := func(size float64, style, s string) {
		pdf.SetFont("Helvetica", style, size)
		pdf.MultiCell(0, 5, tr(s), "", "L", false)
	}
	period := fmt.Sprintf("%s to %s", localDate(log.From), localDate(log.To))

	// continued, when set, heads a page that a sensor's tables run onto.
	var continued func()
	pdf.SetHeaderFunc(func() {
		pdf.SetFont("Helvetica", "B", 8)
		pdf.CellFormat((pageW-left-right)/2, 4, tr(org), "", 0, "L", false, 0, "")
		pdf.SetFont("Helvetica", "", 8)
		pdf.CellFormat(0, 4, tr("Temperature log · "+log.Site.Name+" · "+period), "", 1, "R", false, 0, "")
		pdf.SetDrawColor(150, 150, 150)
		pdf.Line(left, pdf.GetY()+0.5, pageW-right, pdf.GetY()+0.5)
		pdf.SetDrawColor(0, 0, 0)
		pdf.SetY(pdf.GetY() + 2.5)
		if continued != nil {
			continued()
		}
	})

	pdf.AddPage()
	pdf.SetFont("Helvetica", "B", 18)
	pdf.CellFormat(0, 10, tr("Temperature log"), "", 1, "L", false, 0, "")
	text(10, "", "Organization: "+org)
	text(10, "", fmt.Sprintf("Site: %s (%s)", log.Site.Name, log.Site.Timezone))
	text(10, "", fmt.Sprintf("Period %s · readings per %s (min / mean / max °F) · generated %s UTC",
		period, log.Interval, log.GeneratedAt.Format("2006-01-02 15:04")))
	text(8, "I", "Values outside a sensor's range are in bold on a red ground in its table; its chart shades the time they span.")
	if len(log.Sensors) == 0 {
		pdf.Ln(4)
		text(10, "", "The site has no temperature sensors.")
	}
	for _, s := range log.Sensors {
		title := s.Name
		if p := place(s); p != "" {
			title = p + " · " + s.Name
		}
		// The title, the range, the chart and a few rows start a sensor together.
		need := 4 + 7 + 5 + 20.0
		if len(s.Buckets) > 0 {
			need += chartBlockMM
		}
		continued = nil
		if pdf.GetY()+need > pageH-bottom {
			pdf.AddPage()
		} else {
			pdf.Ln(4)
		}
		heading := func(suffix string) {
			pdf.SetFont("Helvetica", "B", 12)
			pdf.CellFormat(0, 7, tr(title+suffix), "B", 1, "L", false, 0, "")
		}
		heading("")
		text(9, "", "Range: "+rangeText(s.MinTempF, s.MaxTempF))
		var flags []uint8
		if len(s.Buckets) > 0 {
			pdf.Ln(1)
			flags = chart(pdf, tr, s, log, width, loc)
		}
		if len(s.Excursions) == 0 {
			text(9, "", "No excursions in the period.")
		} else {
			w := []float64{32, 32, 18, 16, 30, 62}
			head := []string{"Out of range from", "Back in range", "Minutes", "Peak °F", "Limits", "Corrective task"}
			continued = func() { heading(" (continued)"); row(w, head, true) }
			row(w, head, true)
			for _, e := range s.Excursions {
				ended := "ongoing"
				if e.EndedAt != nil {
					ended = local(*e.EndedAt)
				}
				task := "none"
				if e.Task != nil {
					task = string(e.Task.Status)
					if e.Task.CompletedBy != nil && e.Task.CompletedAt != nil {
						task += " by " + e.Task.CompletedBy.Name + " " + local(*e.Task.CompletedAt)
					}
				}
				row(w, []string{local(e.StartedAt), ended, strconv.Itoa(e.DurationMinutes), e.Peak, rangeText(e.MinTempF, e.MaxTempF), task}, false)
				if t := e.Task; t != nil && (t.Note != nil || t.Temperature != nil) {
					action := "Action:"
					if t.Temperature != nil {
						action += fmt.Sprintf(" reading %s °F.", t.Temperature.Fahrenheit)
					}
					if t.Note != nil {
						action += " " + *t.Note
					}
					text(8, "I", action)
				}
			}
		}
		// The readings' table repeats its heading row at the top of every column itself.
		continued = func() { heading(" (continued)"); pdf.Ln(1) }
		pdf.Ln(2)
		if len(s.Buckets) == 0 {
			text(9, "", "No readings in the period.")
			continue
		}
		bucketColumns(pdf, s.Buckets, flags, loc)
	}
	continued = nil
	// Each page's foot, once the pages are counted: written into the finished pages rather than
	// through fpdf's page-count alias, which copies every page's content to replace it (a quarter
	// at 5 minutes is 700 pages).
	pdf.SetAutoPageBreak(false, 0)
	foot := tr(org + " · " + log.Site.Name + " · generated " + log.GeneratedAt.Format("2006-01-02 15:04") + " UTC")
	for n, pages := 1, pdf.PageCount(); n <= pages; n++ {
		pdf.SetPage(n)
		pdf.SetY(pageH - 11)
		pdf.SetFont("Helvetica", "", 7.5)
		pdf.CellFormat((pageW-left-right)*0.7, 4, foot, "", 0, "L", false, 0, "")
		pdf.CellFormat(0, 4, fmt.Sprintf("Page %d of %d", n, pages), "", 0, "R", false, 0, "")
	}
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
