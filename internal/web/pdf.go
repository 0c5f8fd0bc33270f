package web

import (
	"bytes"

	"github.com/go-pdf/fpdf"
)

// The PDFs carry the same numbers as the pages (they are drawn from the same view), on A4 in
// the core fonts (text translated to their code page, so accented names print), uncompressed so
// their text stays searchable.

type doc struct {
	pdf *fpdf.Fpdf
	tr  func(string) string
}

func newDoc(title string) *doc {
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetCompression(false)
	pdf.SetCreator("Sous", true)
	pdf.SetTitle(title, true)
	pdf.SetAutoPageBreak(true, 15)
	pdf.AddPage()
	return &doc{pdf: pdf, tr: pdf.UnicodeTranslatorFromDescriptor("")}
}

func (d *doc) title(eyebrow, s string) {
	d.pdf.SetFont("Helvetica", "", 9)
	d.pdf.CellFormat(0, 5, d.tr(eyebrow), "", 1, "L", false, 0, "")
	d.pdf.SetFont("Helvetica", "B", 16)
	d.pdf.MultiCell(0, 8, d.tr(s), "", "L", false)
	d.pdf.Ln(2)
}

func (d *doc) fact(label, value string) {
	d.pdf.SetFont("Helvetica", "", 10)
	d.pdf.CellFormat(45, 6, d.tr(label), "", 0, "L", false, 0, "")
	d.pdf.SetFont("Helvetica", "B", 10)
	d.pdf.MultiCell(0, 6, d.tr(value), "", "L", false)
}

func (d *doc) heading(s string) {
	d.pdf.Ln(3)
	d.pdf.SetFont("Helvetica", "B", 12)
	d.pdf.CellFormat(0, 7, d.tr(s), "B", 1, "L", false, 0, "")
	d.pdf.Ln(1)
}

// row writes cells of the widths; the first is wrapped if long, the others right-aligned when
// right is set.
func (d *doc) row(widths []float64, cells []string, bold, right bool) {
	style := ""
	if bold {
		style = "B"
	}
	d.pdf.SetFont("Helvetica", style, 9)
	for i, w := range widths {
		align := "L"
		if right && i > 0 {
			align = "R"
		}
		text := d.tr(cells[i])
		// Keep a long description on one line by shortening it; the page shows it whole.
		for d.pdf.GetStringWidth(text) > w-2 && len(text) > 4 {
			text = text[:len(text)-4] + "..."
		}
		d.pdf.CellFormat(w, 6, text, "B", 0, align, false, 0, "")
	}
	d.pdf.Ln(-1)
}

func (d *doc) text(s string) {
	d.pdf.SetFont("Helvetica", "", 9)
	d.pdf.MultiCell(0, 5, d.tr(s), "", "L", false)
}

func (d *doc) bytes() ([]byte, error) {
	var buf bytes.Buffer
	if err := d.pdf.Output(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func invoicePDF(v invoiceView) ([]byte, error) {
	t := v.m.t
	d := newDoc(v.Title)
	d.title(v.I.Brand.Name+" · "+v.I.EventName, v.Title)
	d.fact(t("invoice.billed_to"), v.I.ClientName)
	d.fact(t("invoice.issued"), v.Issued)
	d.fact(t("invoice.event"), v.EventStarts)
	d.fact(t("invoice.status"), v.Status)
	d.heading(t("invoice.lines"))
	w := []float64{140, 40}
	d.row(w, []string{t("invoice.col_description"), t("invoice.col_amount")}, true, true)
	for _, l := range v.Lines {
		d.row(w, []string{l.Description, l.Amount}, false, true)
	}
	d.row(w, []string{t("invoice.total"), v.Total}, true, true)
	d.row(w, []string{t("invoice.paid"), v.Paid}, false, true)
	d.row(w, []string{t("invoice.balance"), v.Balance}, true, true)
	d.heading(t("invoice.payments"))
	if len(v.Payments) == 0 {
		d.text(t("invoice.no_payments"))
	}
	pw := []float64{80, 60, 40}
	for _, p := range v.Payments {
		d.row(pw, []string{p.Date, p.Method, p.Amount}, false, true)
	}
	return d.bytes()
}

func inspectionPDF(v inspectionView) ([]byte, error) {
	t := v.m.t
	d := newDoc(t("inspection.report"))
	eyebrow := t("inspection.report")
	if v.Org != "" {
		eyebrow = v.Org + " · " + eyebrow
	}
	d.title(eyebrow, v.Title)
	if v.Org != "" {
		d.fact(t("inspection.organization"), v.Org)
	}
	d.fact(t("inspection.site"), v.In.SiteName)
	d.fact(t("inspection.date"), v.Date)
	d.fact(t("inspection.result"), v.Result)
	if v.Score != "" {
		d.fact(t("inspection.score"), v.Score)
	}
	d.heading(t("inspection.findings"))
	if len(v.Findings) == 0 {
		d.text(t("inspection.no_findings"))
	}
	for _, f := range v.Findings {
		crit := ""
		if f.Critical {
			crit = t("inspection.critical_prefix") + " "
		}
		line := crit + f.Section + " - " + f.Prompt
		if f.Note != "" {
			line += " (" + f.Note + ")"
		}
		d.text(line + "\n" + f.Action)
		d.pdf.Ln(1)
	}
	w := []float64{145, 35}
	for _, s := range v.Sections {
		d.heading(s.Title)
		for _, it := range s.Items {
			p := it.Prompt
			if it.Critical {
				p += " (" + t("inspection.critical_tag") + ")"
			}
			d.row(w, []string{p, it.OutcomeLabel}, false, false)
		}
	}
	return d.bytes()
}
