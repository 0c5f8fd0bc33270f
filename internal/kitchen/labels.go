package kitchen

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/go-pdf/fpdf"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/attachment"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/nutrition"
	"github.com/sous-app/sous/internal/pg"
)

// Label is what one label shows.
type Label struct {
	Template   string // prep, use_by, allergen
	Name       string
	PreparedAt time.Time // in the site's zone
	UseBy      *time.Time
	Contains   []string
	MayContain []string
	Initials   string
	Count      int
}

const labelTime = "Mon 2 Jan 15:04"

func (l Label) lines() (title string, body []string) {
	switch l.Template {
	case "prep":
		title = "PREP"
	case "use_by":
		title = "USE BY"
	default:
		title = "ALLERGENS"
	}
	body = append(body, "Prepared: "+l.PreparedAt.Format(labelTime))
	if l.UseBy != nil {
		body = append(body, "Use by: "+l.UseBy.Format(labelTime))
	}
	body = append(body, "By: "+l.Initials)
	return title, body
}

func humanList(list []string) string {
	out := make([]string, len(list))
	for i, a := range list {
		out[i] = strings.ReplaceAll(a, "_", " ")
	}
	return strings.Join(out, ", ")
}

// labelSizes are the label sizes in millimetres (a4_sheet: 2×7 labels of 99×38 mm on A4).
var labelSizes = map[string][2]float64{"2x1": {50.8, 25.4}, "4x2": {101.6, 50.8}, "a4_sheet": {99, 38}}

// RenderPDF writes the labels as a PDF, uncompressed so its text stays searchable: contains in
// bold, a "may contain" line.
func RenderPDF(labels []Label, size string, now time.Time) ([]byte, error) {
	dim := labelSizes[size]
	var pdf *fpdf.Fpdf
	sheet := size == "a4_sheet"
	if sheet {
		pdf = fpdf.New("P", "mm", "A4", "")
	} else {
		pdf = fpdf.NewCustom(&fpdf.InitType{UnitStr: "mm", Size: fpdf.SizeType{Wd: dim[0], Ht: dim[1]}})
	}
	pdf.SetCompression(false)
	pdf.SetCreationDate(now)
	pdf.SetModificationDate(now)
	tr := pdf.UnicodeTranslatorFromDescriptor("")
	pdf.SetMargins(2, 2, 2)
	pdf.SetAutoPageBreak(false, 0)
	scale := dim[1] / 25.4
	n := 0
	for _, l := range labels {
		for c := 0; c < l.Count; c++ {
			x, y := 2.0, 2.0
			if sheet {
				slot := n % 14
				if slot == 0 {
					pdf.AddPage()
				}
				x, y = 6+float64(slot%2)*dim[0], 12+float64(slot/2)*dim[1]
			} else {
				pdf.AddPage()
			}
			n++
			title, body := l.lines()
			line := 3.2 * scale
			pdf.SetXY(x, y)
			pdf.SetFont("Helvetica", "B", 7*scale)
			pdf.CellFormat(dim[0]-4, line, tr(title+": "+l.Name), "", 1, "L", false, 0, "")
			pdf.SetFont("Helvetica", "", 6*scale)
			for _, b := range body {
				pdf.SetX(x)
				pdf.CellFormat(dim[0]-4, line, tr(b), "", 1, "L", false, 0, "")
			}
			if len(l.Contains) > 0 {
				pdf.SetX(x)
				pdf.SetFont("Helvetica", "B", 6*scale)
				pdf.CellFormat(dim[0]-4, line, "Contains: "+humanList(l.Contains), "", 1, "L", false, 0, "")
			}
			if len(l.MayContain) > 0 {
				pdf.SetX(x)
				pdf.SetFont("Helvetica", "", 6*scale)
				pdf.CellFormat(dim[0]-4, line, "May contain: "+humanList(l.MayContain), "", 1, "L", false, 0, "")
			}
		}
	}
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// zplEscape keeps a field's text printable: ^ and ~ are ZPL's command prefixes.
func zplEscape(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '^' || r == '~' || r > unicode.MaxASCII {
			return ' '
		}
		return r
	}, s)
}

// RenderZPL writes the labels as ZPL II, one ^XA…^XZ per label (203 dpi); contains is printed
// in a larger font, the printer having no bold.
func RenderZPL(labels []Label, size string) string {
	dim := labelSizes[size]
	dots := func(mm float64) int { return int(mm / 25.4 * 203) }
	var b strings.Builder
	for _, l := range labels {
		title, body := l.lines()
		for c := 0; c < l.Count; c++ {
			fmt.Fprintf(&b, "^XA^CI28^PW%d^LL%d\n", dots(dim[0]), dots(dim[1]))
			y := 15
			fmt.Fprintf(&b, "^FO15,%d^A0N,28,28^FD%s: %s^FS\n", y, zplEscape(title), zplEscape(l.Name))
			y += 32
			for _, s := range body {
				fmt.Fprintf(&b, "^FO15,%d^A0N,22,22^FD%s^FS\n", y, zplEscape(s))
				y += 25
			}
			if len(l.Contains) > 0 {
				fmt.Fprintf(&b, "^FO15,%d^A0N,26,26^FDContains: %s^FS\n", y, zplEscape(humanList(l.Contains)))
				y += 29
			}
			if len(l.MayContain) > 0 {
				fmt.Fprintf(&b, "^FO15,%d^A0N,22,22^FDMay contain: %s^FS\n", y, zplEscape(humanList(l.MayContain)))
			}
			b.WriteString("^XZ\n")
		}
	}
	return b.String()
}

// initials of a name: "Ana María López" → "AML".
func initials(name string) string {
	var out []rune
	for _, w := range strings.Fields(name) {
		for _, r := range w {
			out = append(out, unicode.ToUpper(r))
			break
		}
	}
	return string(out)
}

func (h *Handlers) CreateLabels(ctx context.Context, req api.CreateLabelsRequestObject) (api.CreateLabelsResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	size := "2x1"
	if b.Size != nil {
		size = string(*b.Size)
	}
	now := h.clock.Now()
	panels := b.Template == api.LabelsRequestTemplateNutrition
	if panels && b.Format != api.Pdf {
		return nil, apierr.InvalidField("format", "nutrition labels print as pdf only (the Nutrition Facts panel's type and bars)")
	}
	var labels []Label
	var facts []nutrition.Label
	var disposition string // the sheet's file name, dated in the site's zone
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		site, err := loadSite(ctx, q, a, b.SiteId)
		if err != nil {
			return err
		}
		local := now.In(site.Zone)
		disposition = attachment.Disposition(string(b.Template)+" labels", local, local, "pdf")
		who := "API"
		if u := a.UserID(); u != uuid.Nil {
			if user, err := q.GetUser(ctx, u); err == nil {
				who = initials(user.Name)
			}
		}
		for i, it := range b.Items {
			field := fmt.Sprintf("items.%d", i)
			var t Tree
			prepared := now
			switch {
			case (it.RunId == nil) == (it.RecipeId == nil):
				return apierr.InvalidField(field, "names exactly one of runId and recipeId")
			case it.RunId != nil:
				r, err := q.GetRun(ctx, db.GetRunParams{OrgID: a.OrgID, ID: *it.RunId})
				if pg.IsNoRows(err) || (err == nil && r.SiteID != site.ID) {
					return apierr.InvalidField(field+".runId", "is no production run of the site")
				}
				if err != nil {
					return err
				}
				if t, err = loadTree(ctx, q, a.OrgID, r.RecipeID, int(r.RecipeVersion), pinsOf(r)); err != nil {
					return err
				}
				events, err := q.ListRunEvents(ctx, db.ListRunEventsParams{OrgID: a.OrgID, RunID: r.ID})
				if err != nil {
					return err
				}
				for _, e := range events {
					if e.Type == "status" {
						prepared = e.At
						break
					}
				}
			default:
				if t, err = loadTree(ctx, q, a.OrgID, *it.RecipeId, 0, nil); err == errRecipeNotFound {
					return apierr.InvalidField(field+".recipeId", "is no recipe of the organization")
				} else if err != nil {
					return err
				}
			}
			if panels {
				l, err := panel(ctx, q, a.OrgID, t)
				if err != nil {
					return err
				}
				if !l.Complete || len(l.AllergensUnknown) > 0 {
					ie := &nutrition.IncompleteLabelError{Missing: l.Missing, AllergensUnknown: l.AllergensUnknown}
					return apierr.Conflict(field + ": " + ie.Error()).WithCode(apierr.CodeLabelIncomplete)
				}
				for c := 0; c < it.Count; c++ {
					facts = append(facts, l)
				}
				continue
			}
			body := t.Recipes[t.Root].Body
			l := Label{Template: string(b.Template), Name: body.Name, PreparedAt: prepared.In(site.Zone), Initials: who, Count: it.Count,
				Contains: Contains(t.RollUpAllergens(t.Root)), MayContain: t.MayContain(t.Root)}
			if body.ShelfLifeHours != nil {
				u := prepared.Add(time.Duration(*body.ShelfLifeHours) * time.Hour).In(site.Zone)
				l.UseBy = &u
			}
			labels = append(labels, l)
		}
		return audit.RecordSite(ctx, q, a.OrgID, site.ID, uuid.Nil, now)
	})
	if err != nil {
		return nil, err
	}
	if panels {
		var buf bytes.Buffer
		if err := nutrition.RenderLabelsPDF(&buf, facts); err != nil {
			return nil, labelError(err)
		}
		return api.CreateLabels200ApplicationpdfResponse{Body: &buf, ContentLength: int64(buf.Len()),
			Headers: api.CreateLabels200ResponseHeaders{ContentDisposition: &disposition}}, nil
	}
	if b.Format == api.Zpl {
		return api.CreateLabels200TextResponse{Body: RenderZPL(labels, size)}, nil
	}
	doc, err := RenderPDF(labels, size, now)
	if err != nil {
		return nil, err
	}
	return api.CreateLabels200ApplicationpdfResponse{Body: bytes.NewReader(doc), ContentLength: int64(len(doc)),
		Headers: api.CreateLabels200ResponseHeaders{ContentDisposition: &disposition}}, nil
}
