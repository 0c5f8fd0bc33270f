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
	Sections           []inspSection
	Findings           []inspFinding
	PDF                string
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

var outcomeLabels = map[string]string{"pass": "Pass", "fail": "Fail", "not_scored": "Not scored", "unanswered": "Not answered"}

var actionLabels = map[string]string{"open": "Corrective action open", "done": "Corrected", "missed": "Corrective action missed", "cancelled": "Corrective action cancelled", "none": "No corrective action"}

func newInspectionView(in api.SharedInspection) inspectionView {
	v := inspectionView{In: in, Title: in.TemplateName + " — " + in.SiteName, Date: longDate(in.Date.Time)}
	switch in.Status {
	case api.InspectionStatusCompleted:
		if in.Result != nil {
			v.Result = strings.ToUpper(string(*in.Result))
		}
	case api.InspectionStatusInProgress:
		v.Result = "In progress"
	default:
		v.Result = "Scheduled"
	}
	if in.Score != nil && in.MaxScore != nil {
		v.Score = *in.Score + " of " + *in.MaxScore
		if in.Percent != nil {
			v.Score += " (" + *in.Percent + "%)"
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
			label := outcomeLabels[o]
			if label == "" {
				label = o
			}
			sec.Items = append(sec.Items, inspItem{Prompt: it.Prompt, Outcome: o, OutcomeLabel: label, Note: note, Critical: it.Critical})
		}
		v.Sections = append(v.Sections, sec)
	}
	for _, f := range in.Findings {
		note := ""
		if f.Note != nil {
			note = *f.Note
		}
		a := actionLabels[f.CorrectiveAction]
		if a == "" {
			a = f.CorrectiveAction
		}
		v.Findings = append(v.Findings, inspFinding{Section: f.Section, Prompt: f.Prompt, Note: note, Action: a, Critical: f.Critical})
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
	v := newInspectionView(api.SharedInspection(ok))
	if pdf {
		b, err := inspectionPDF(v)
		if err != nil {
			return p.fail(c, err)
		}
		return p.sendPDF(c, "inspection-"+v.In.Date.Format("2006-01-02")+".pdf", b)
	}
	v.PDF = c.Request().URL.Path + ".pdf"
	return p.render(c, http.StatusOK, "inspection", Page{Title: "Inspection report", Print: true}, v)
}
