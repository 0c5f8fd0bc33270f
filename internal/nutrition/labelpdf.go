package nutrition

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"
)

// IncompleteLabelError refuses to print a label that would state something not known: a
// nutrient or the serving weight unknown (Missing), or a major allergen's status unknown.
type IncompleteLabelError struct {
	Missing          []Missing
	AllergensUnknown []string
}

func (e *IncompleteLabelError) Error() string {
	var parts []string
	if len(e.Missing) > 0 {
		var ms []string
		for _, m := range e.Missing {
			ms = append(ms, fmt.Sprintf("%s (%s)", m.Ingredient, m.Reason))
		}
		parts = append(parts, "nutrients unknown for "+strings.Join(ms, ", "))
	}
	if len(e.AllergensUnknown) > 0 {
		parts = append(parts, "allergen status unknown for "+strings.Join(e.AllergensUnknown, ", "))
	}
	return "the label cannot be printed: " + strings.Join(parts, "; ")
}

// Panel geometry, in millimetres: a 2.5-inch-wide panel, FDA's bars (7, 3 and 0.25 points).
const (
	panelWidth = 63.5
	panelPad   = 2.0
	barThick   = 2.5
	barMedium  = 1.1
	barHair    = 0.1
	footnote   = "* The % Daily Value (DV) tells you how much a nutrient in a serving of food contributes to a daily diet. 2,000 calories a day is used for general nutrition advice."
)

// pdfEpoch is the date every label PDF carries, so one label always makes the same bytes.
var pdfEpoch = time.Unix(0, 0).UTC()

// RenderLabelPDF writes the standard vertical Nutrition Facts panel (21 CFR 101.9(d)) of a
// complete label, with the Contains statement below it, as a one-page PDF sized to the panel
// (uncompressed, so its text stays searchable). A label that is not complete, or leaves a
// major allergen's status unknown, is refused with an *IncompleteLabelError: a printed panel
// is read as fact, and "unknown" has no place on it.
func RenderLabelPDF(w io.Writer, l Label) error {
	return RenderLabelsPDF(w, []Label{l})
}

// RenderLabelsPDF writes several panels as one PDF, a page each, in order (a labels batch):
// every label must be complete, as RenderLabelPDF requires; the first that is not is refused
// with its *IncompleteLabelError and nothing is written.
func RenderLabelsPDF(w io.Writer, labels []Label) error {
	if len(labels) == 0 {
		return &IncompleteLabelError{}
	}
	for _, l := range labels {
		if !l.Complete || len(l.AllergensUnknown) > 0 {
			return &IncompleteLabelError{Missing: l.Missing, AllergensUnknown: l.AllergensUnknown}
		}
	}
	pdf := fpdf.NewCustom(&fpdf.InitType{UnitStr: "mm", Size: fpdf.SizeType{Wd: panelWidth + 2*panelPad + 2, Ht: 150}})
	pdf.SetCompression(false)
	pdf.SetCatalogSort(true) // fonts in a fixed order: one label, one byte sequence
	pdf.SetCreationDate(pdfEpoch)
	pdf.SetModificationDate(pdfEpoch)
	pdf.SetTitle("Nutrition Facts: "+labels[0].Name, true)
	pdf.SetCreator("Sous", true)
	pdf.SetMargins(0, 0, 0)
	pdf.SetAutoPageBreak(false, 0)
	tr := pdf.UnicodeTranslatorFromDescriptor("")
	for _, l := range labels {
		pdf.AddPage()
		drawPanel(pdf, tr, l)
	}
	return pdf.Output(w)
}

// drawPanel draws one label's panel on the current page.
func drawPanel(pdf *fpdf.Fpdf, tr func(string) string, l Label) {
	x0, y0 := 1+panelPad, 1+panelPad
	inner := panelWidth - 2*panelPad
	pdf.SetXY(x0, y0)

	text := func(style string, size float64, h float64, left, right string, indent float64) {
		pdf.SetFont("Helvetica", style, size)
		y := pdf.GetY()
		pdf.SetXY(x0+indent, y)
		pdf.CellFormat(inner-indent, h, tr(left), "", 0, "L", false, 0, "")
		if right != "" {
			pdf.SetXY(x0, y)
			pdf.CellFormat(inner, h, tr(right), "", 0, "R", false, 0, "")
		}
		pdf.SetXY(x0, y+h)
	}
	bar := func(thick float64, indent float64) {
		y := pdf.GetY()
		pdf.Rect(x0+indent, y, inner-indent, thick, "F")
		pdf.SetXY(x0, y+thick+0.3)
	}
	// rich writes a bold name then regular text ("Total Fat" "8g") and a %DV at the right.
	rich := func(boldPart, plain, dv string, indent float64, boldName bool) {
		y := pdf.GetY()
		pdf.SetXY(x0+indent, y)
		style := ""
		if boldName {
			style = "B"
		}
		pdf.SetFont("Helvetica", style, 8)
		pdf.Write(4.2, tr(boldPart))
		pdf.SetFont("Helvetica", "", 8)
		pdf.Write(4.2, tr(" "+plain))
		if dv != "" {
			pdf.SetXY(x0, y)
			pdf.SetFont("Helvetica", "B", 8)
			pdf.CellFormat(inner, 4.2, dv, "", 0, "R", false, 0, "")
		}
		pdf.SetXY(x0, y+4.2)
	}

	text("B", 24, 9, "Nutrition Facts", "", 0)
	bar(barHair, 0)
	if l.ServingsPerContainer != "" {
		text("", 9, 4.5, servingsText(l.ServingsPerContainer), "", 0)
	}
	text("B", 9.5, 5, "Serving size", l.ServingSize, 0)
	bar(barThick, 0)
	text("B", 7, 3.5, "Amount per serving", "", 0)
	text("B", 16, 7, "Calories", l.Calories.Text, 0)
	bar(barMedium, 0)
	text("B", 6.5, 3.5, "", "% Daily Value*", 0)
	for _, ll := range l.Lines {
		if ll.Nutrient == VitaminDMcg {
			bar(barThick, 0)
		} else {
			indent := 0.0
			if ll.Nutrient == AddedSugarsG {
				indent = 8
			}
			bar(barHair, indent)
		}
		dv := ""
		if ll.DailyValuePercent != nil {
			dv = strconv.Itoa(*ll.DailyValuePercent) + "%"
		}
		switch ll.Nutrient {
		case FatG, CholesterolMg, SodiumMg, CarbohydrateG, ProteinG:
			rich(ll.Name, ll.Text, dv, 0, true)
		case SaturatedFatG, TransFatG, FiberG, SugarsG:
			rich(ll.Name, ll.Text, dv, 4, false)
		case AddedSugarsG:
			rich("Includes "+ll.Text, "Added Sugars", dv, 8, false)
		default: // vitamins and minerals: plain, their %DV not bold
			y := pdf.GetY()
			text("", 8, 4.2, ll.Name+" "+ll.Text, "", 0)
			if dv != "" {
				pdf.SetXY(x0, y)
				text("", 8, 4.2, "", dv, 0)
			}
		}
	}
	bar(barMedium, 0)
	pdf.SetFont("Helvetica", "", 6)
	pdf.SetX(x0)
	pdf.MultiCell(inner, 2.6, tr(footnote), "", "L", false)
	bottom := pdf.GetY() + panelPad
	pdf.SetLineWidth(0.3)
	pdf.Rect(1, 1, panelWidth, bottom-1, "D")
	if c := l.ContainsText(); c != "" {
		pdf.SetXY(x0-panelPad, bottom+1.5)
		pdf.SetFont("Helvetica", "B", 8)
		pdf.MultiCell(panelWidth, 3.6, tr(c), "", "L", false)
	}
}

// servingsText is the servings line: "1 serving per container", "about 8 servings per container".
func servingsText(n string) string {
	if strings.TrimSpace(n) == "1" {
		return "1 serving per container"
	}
	return strings.TrimSpace(n) + " servings per container"
}
