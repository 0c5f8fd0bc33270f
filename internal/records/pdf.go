package records

import (
	"bytes"
	"fmt"

	"github.com/go-pdf/fpdf"

	"github.com/sous-app/sous/gen/api"
)

// renderPDF renders a report as a PDF document (A4, core fonts; text translated to the fonts'
// code page, so names with accents print).
func renderPDF(r api.Report) ([]byte, error) {
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetCreator("Sous", true)
	pdf.SetTitle("Operations report", true)
	pdf.SetCreationDate(r.CreatedAt)
	pdf.SetModificationDate(r.CreatedAt)
	tr := pdf.UnicodeTranslatorFromDescriptor("")
	pdf.AddPage()
	c := r.Content

	heading := func(s string) {
		pdf.Ln(4)
		pdf.SetFont("Helvetica", "B", 13)
		pdf.CellFormat(0, 8, tr(s), "B", 1, "L", false, 0, "")
		pdf.SetFont("Helvetica", "", 10)
		pdf.Ln(1)
	}
	line := func(label, value string) {
		pdf.SetFont("Helvetica", "", 10)
		pdf.CellFormat(70, 6, tr(label), "", 0, "L", false, 0, "")
		pdf.SetFont("Helvetica", "B", 10)
		pdf.CellFormat(0, 6, tr(value), "", 1, "L", false, 0, "")
	}
	row := func(widths []float64, cells []string, bold bool) {
		style := ""
		if bold {
			style = "B"
		}
		pdf.SetFont("Helvetica", style, 9)
		for i, w := range widths {
			pdf.CellFormat(w, 6, tr(cells[i]), "1", 0, "L", false, 0, "")
		}
		pdf.Ln(-1)
	}

	pdf.SetFont("Helvetica", "B", 18)
	pdf.CellFormat(0, 10, tr("Operations report"), "", 1, "L", false, 0, "")
	pdf.SetFont("Helvetica", "", 10)
	names := ""
	for i, s := range c.Sites {
		if i > 0 {
			names += ", "
		}
		names += s.Name
	}
	scope := "Site"
	if r.Scope == "account" {
		scope = "Account"
	}
	pdf.MultiCell(0, 6, tr(fmt.Sprintf("%s: %s", scope, names)), "", "L", false)
	pdf.CellFormat(0, 6, tr(fmt.Sprintf("Period %s to %s · generated %s UTC", r.Period.From.Format("2006-01-02"), r.Period.To.Format("2006-01-02"),
		r.CreatedAt.UTC().Format("2006-01-02 15:04"))), "", 1, "L", false, 0, "")

	heading("Tasks")
	line("Due in the period", fmt.Sprint(c.Tasks.Due))
	line("Done in time", fmt.Sprint(c.Tasks.Done))
	line("Done late", fmt.Sprint(c.Tasks.Late))
	line("Missed", fmt.Sprint(c.Tasks.Missed))
	line("Still open", fmt.Sprint(c.Tasks.Open))
	line("Temperature excursions", fmt.Sprint(c.TemperatureExcursions))

	heading("Inspections")
	avg := "-"
	if c.Inspections.AveragePercent != nil {
		avg = *c.Inspections.AveragePercent + "%"
	}
	line("Completed", fmt.Sprint(c.Inspections.Completed))
	line("Passed / failed", fmt.Sprintf("%d / %d", c.Inspections.Passed, c.Inspections.Failed))
	line("Average score", avg)
	if len(c.Inspections.Items) > 0 {
		pdf.Ln(2)
		w := []float64{35, 80, 25, 20, 20}
		row(w, []string{"Completed", "Template", "Score", "Result", "Findings"}, true)
		for _, it := range c.Inspections.Items {
			p, res := "-", "-"
			if it.Percent != nil {
				p = *it.Percent + "%"
			}
			if it.Result != nil {
				res = string(*it.Result)
			}
			row(w, []string{it.CompletedAt.UTC().Format("2006-01-02"), it.TemplateName, p, res, fmt.Sprint(it.Findings)}, false)
		}
	}

	heading("Open findings")
	if len(c.OpenFindings) == 0 {
		pdf.CellFormat(0, 6, tr("None."), "", 1, "L", false, 0, "")
	} else {
		w := []float64{120, 25, 35}
		row(w, []string{"Finding", "Critical", "Corrective task"}, true)
		for _, f := range c.OpenFindings {
			crit, st := "no", "none"
			if f.Critical {
				crit = "yes"
			}
			if f.TaskStatus != nil {
				st = *f.TaskStatus
			}
			row(w, []string{f.Prompt, crit, st}, false)
		}
	}

	heading("Certifications expiring")
	if len(c.CertificationsExpiring) == 0 {
		pdf.CellFormat(0, 6, tr("None within 30 days of the period's end."), "", 1, "L", false, 0, "")
	} else {
		w := []float64{80, 50, 50}
		row(w, []string{"Holder", "Kind", "Expires on"}, true)
		for _, ce := range c.CertificationsExpiring {
			row(w, []string{ce.UserName, string(ce.Kind), ce.ExpiresOn.Format("2006-01-02")}, false)
		}
	}

	heading("Waste")
	switch {
	case c.Waste == nil:
		pdf.CellFormat(0, 6, tr("Not recorded in this report."), "", 1, "L", false, 0, "")
	case c.Waste.Logs == 0:
		pdf.CellFormat(0, 6, tr("None logged in the period."), "", 1, "L", false, 0, "")
	default:
		w := []float64{80, 40, 50}
		row(w, []string{"Reason", "Logs", "Value"}, true)
		for _, r := range c.Waste.ByReason {
			row(w, []string{string(r.Reason), fmt.Sprint(r.Logs), dollars(r.ValueCents)}, false)
		}
		row(w, []string{"Total", fmt.Sprint(c.Waste.Logs), dollars(c.Waste.ValueCents)}, true)
	}

	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// dollars writes cents as dollars for the printed report ($1,234.50 is 123450).
func dollars(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	whole := fmt.Sprint(cents / 100)
	for i := len(whole) - 3; i > 0; i -= 3 {
		whole = whole[:i] + "," + whole[i:]
	}
	return fmt.Sprintf("%s$%s.%02d", sign, whole, cents%100)
}
