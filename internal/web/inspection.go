package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/internal/apierr"
)

type inspectionView struct {
	In                 api.SharedInspection
	Title, Date, Score string
	Result             string
	// Org is the organization behind the report (its display name), when the domain gives it.
	Org      string
	Sections []inspSection
	Findings []inspFinding
	PDF      string
	m        msg
}

type inspSection struct {
	Title string
	Items []inspItem
}

type inspItem struct {
	Prompt, Outcome, OutcomeLabel, Note string
	Critical                            bool
}

type inspFinding struct {
	Section, Prompt, Note, Action string
	Critical                      bool
}

var outcomeLabels = map[string]string{"pass": "inspection.outcome_pass", "fail": "inspection.outcome_fail", "not_scored": "inspection.outcome_not_scored", "unanswered": "inspection.outcome_unanswered"}

var actionLabels = map[string]string{"open": "inspection.action_open", "done": "inspection.action_done", "missed": "inspection.action_missed", "cancelled": "inspection.action_cancelled", "none": "inspection.action_none"}

// label is a message for an enum value the page knows, else the value itself.
func (m msg) label(keys map[string]string, value string) string {
	if key, ok := keys[value]; ok {
		return m.t(key)
	}
	return value
}

func newInspectionView(m msg, in api.SharedInspection) inspectionView {
	v := inspectionView{In: in, Title: m.t("inspection.title", "template", in.TemplateName, "site", in.SiteName), Date: longDateIn(m.lang, in.Date.Time), m: m}
	if in.Brand != nil {
		v.Org = in.Brand.Name
	}
	switch in.Status {
	case api.InspectionStatusCompleted:
		if in.Result != nil {
			v.Result = m.label(map[string]string{"pass": "inspection.result_pass", "fail": "inspection.result_fail"}, string(*in.Result))
		}
	case api.InspectionStatusInProgress:
		v.Result = m.t("inspection.in_progress")
	default:
		v.Result = m.t("inspection.scheduled")
	}
	if in.Score != nil && in.MaxScore != nil {
		if in.Percent != nil {
			v.Score = m.t("inspection.score_value_percent", "score", *in.Score, "max", *in.MaxScore, "percent", *in.Percent)
		} else {
			v.Score = m.t("inspection.score_value", "score", *in.Score, "max", *in.MaxScore)
		}
	}
	for _, s := range in.Sections {
		sec := inspSection{Title: s.Title}
		for _, it := range s.Items {
			note := ""
			if it.Note != nil {
				note = *it.Note
			}
			o := string(it.Outcome)
			sec.Items = append(sec.Items, inspItem{Prompt: it.Prompt, Outcome: o, OutcomeLabel: m.label(outcomeLabels, o), Note: note, Critical: it.Critical})
		}
		v.Sections = append(v.Sections, sec)
	}
	for _, f := range in.Findings {
		note := ""
		if f.Note != nil {
			note = *f.Note
		}
		v.Findings = append(v.Findings, inspFinding{Section: f.Section, Prompt: f.Prompt, Note: note, Action: m.label(actionLabels, f.CorrectiveAction), Critical: f.Critical})
	}
	return v
}

// inspectionPage answers /share/insp/{token} and its PDF, /share/insp/{token}.pdf.
func (p *Pages) inspectionPage(c echo.Context) error {
	token, pdf := strings.CutSuffix(c.Param("token"), ".pdf")
	res, err := p.d.Inspections.GetSharedInspection(c.Request().Context(), api.GetSharedInspectionRequestObject{Token: token})
	if err != nil {
		return p.fail(c, err)
	}
	ok, isOK := res.(api.GetSharedInspection200JSONResponse)
	if !isOK {
		return p.fail(c, apierr.Internal(errUnexpected))
	}
	v := newInspectionView(p.msgs(c), api.SharedInspection(ok))
	if pdf {
		b, err := inspectionPDF(v)
		if err != nil {
			return p.fail(c, err)
		}
		return p.sendPDF(c, "inspection-"+v.In.Date.Format("2006-01-02")+".pdf", b)
	}
	v.PDF = pdfLink(c)
	pg := Page{Title: v.m.t("inspection.report"), Print: true}
	if b := v.In.Brand; b != nil {
		pg.BrandName, pg.BrandPrimary, pg.BrandAccent = b.Name, b.Primary, b.Accent
	}
	return p.render(c, http.StatusOK, "inspection", pg, v)
}
