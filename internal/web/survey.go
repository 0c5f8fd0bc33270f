package web

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/internal/apierr"
)

type surveyView struct {
	S         api.PublicSurvey
	Questions []surveyQuestion
	HasErrors bool
}

// Errors are the questions needing attention, in their order, for the summary above the form.
func (v surveyView) Errors() []fieldError {
	var out []fieldError
	for _, q := range v.Questions {
		if q.Error != "" {
			out = append(out, fieldError{Field: q.Anchor, Message: q.Prompt + ": " + q.Error})
		}
	}
	return out
}

type surveyQuestion struct {
	ID, Name, Prompt, Type string
	Required               bool
	Choices                []choice
	// Low and High label the ends of a rating or NPS scale.
	Low, High string
	Text      string
	Error     string
	// Anchor is the id of the question's first control, where the summary's link goes.
	Anchor string
}

type choice struct {
	ID, Value, Label string
	Checked          bool
}

// fieldName is a question's form field: its key (a-z, digits, underscore) behind a prefix, so no
// other field of the form can collide with an answer.
func fieldName(key string) string { return "a_" + key }

func newSurveyView(m msg, s api.PublicSurvey, form map[string][]string, errs map[string]string) surveyView {
	v := surveyView{S: s, HasErrors: len(errs) > 0}
	for i, q := range s.Questions {
		sq := surveyQuestion{
			ID: "q" + strconv.Itoa(i), Name: fieldName(q.Key), Prompt: q.Prompt, Type: string(q.Type),
			Required: q.Required, Error: errs[q.Key],
		}
		sent := form[sq.Name]
		add := func(value, label string) {
			sq.Choices = append(sq.Choices, choice{ID: sq.ID + "-" + strconv.Itoa(len(sq.Choices)), Value: value, Label: label, Checked: slices.Contains(sent, value)})
		}
		switch q.Type {
		case api.QuestionTypeRating:
			top := 5
			if q.ScaleMax != nil {
				top = *q.ScaleMax
			}
			for n := 1; n <= top; n++ {
				add(strconv.Itoa(n), strconv.Itoa(n))
			}
			sq.Low, sq.High = m.t("survey.rating_low"), m.t("survey.rating_high", "max", top)
		case api.QuestionTypeNps:
			for n := 0; n <= 10; n++ {
				add(strconv.Itoa(n), strconv.Itoa(n))
			}
			sq.Low, sq.High = m.t("survey.nps_low"), m.t("survey.nps_high")
		case api.QuestionTypeYesNo:
			add("yes", m.t("survey.yes"))
			add("no", m.t("survey.no"))
		case api.QuestionTypeSingleChoice, api.QuestionTypeMultiChoice:
			if q.Options != nil {
				for _, o := range *q.Options {
					add(o, o)
				}
			}
		case api.QuestionTypeText:
			if len(sent) > 0 {
				sq.Text = sent[0]
			}
		}
		sq.Anchor = sq.ID
		if q.Type != api.QuestionTypeText && len(sq.Choices) > 0 {
			sq.Anchor = sq.Choices[0].ID
		}
		v.Questions = append(v.Questions, sq)
	}
	return v
}

func (p *Pages) surveyPage(c echo.Context) error {
	s, used, err := p.d.Surveys.PublicSurvey(c.Request().Context(), c.Param("token"))
	if err != nil {
		return p.fail(c, err)
	}
	if used {
		return p.surveyUsed(c, s)
	}
	return p.renderSurvey(c, http.StatusOK, newSurveyView(p.msgs(c), s, nil, nil))
}

func (p *Pages) surveyUsed(c echo.Context, s api.PublicSurvey) error {
	b := s.Brand
	return p.errorPageAs(c, http.StatusConflict, Page{BrandName: b.Name, BrandPrimary: b.Primary, BrandAccent: b.Accent}, errUsed)
}

func (p *Pages) renderSurvey(c echo.Context, status int, v surveyView) error {
	b := v.S.Brand
	pg := Page{Title: v.S.Title, BrandName: b.Name, BrandPrimary: b.Primary, BrandAccent: b.Accent}
	if v.HasErrors {
		pg.Scripts = []string{"forms.js"}
	}
	return p.render(c, status, "survey", pg, v)
}

// submitSurvey is the form's POST: the answers, typed per question, go to the same submission
// as POST /v1/survey/{token}/submit. Its 400 comes back as the form with each message beside its
// question and every answer kept; a used link and a closed survey have their pages.
func (p *Pages) submitSurvey(c echo.Context) error {
	ctx := c.Request().Context()
	token := c.Param("token")
	form, err := c.FormParams()
	if err != nil {
		return p.errorPage(c, http.StatusBadRequest, errBadInput)
	}
	for _, vs := range form {
		if hostile(vs...) {
			return p.errorPage(c, http.StatusBadRequest, errBadInput)
		}
	}
	s, used, err := p.d.Surveys.PublicSurvey(ctx, token)
	if err != nil {
		return p.fail(c, err)
	}
	if used {
		return p.surveyUsed(c, s)
	}
	answers := map[string]any{}
	for _, q := range s.Questions {
		if v, ok := answerOf(q, form[fieldName(q.Key)]); ok {
			answers[q.Key] = v
		}
	}
	res, err := p.d.Surveys.SubmitPublicSurvey(ctx, api.SubmitPublicSurveyRequestObject{Token: token, Body: &api.SubmitPublicSurveyJSONRequestBody{Answers: answers}})
	if err != nil {
		e, ok := apierr.As(err)
		switch {
		case ok && e.Kind == apierr.KindInvalid:
			errs := map[string]string{}
			for _, d := range e.Details {
				key := strings.TrimPrefix(d.Field, "answers.")
				k, kv := answerMessage(d.Message)
				errs[key] = p.msgs(c).t(k, kv...)
			}
			return p.renderSurvey(c, http.StatusBadRequest, newSurveyView(p.msgs(c), s, form, errs))
		case ok && e.Kind == apierr.KindConflict:
			return p.surveyUsed(c, s)
		}
		return p.fail(c, err)
	}
	receipt, ok := res.(api.SubmitPublicSurvey200JSONResponse)
	if !ok {
		return p.fail(c, apierr.Internal(errUnexpected))
	}
	b := s.Brand
	return p.render(c, http.StatusOK, "thanks", Page{Title: p.tr(c, "survey.thanks_title"), BrandName: b.Name, BrandPrimary: b.Primary, BrandAccent: b.Accent},
		struct{ Title, Message string }{s.Title, receipt.Body.ThankYouMessage})
}

// answerOf types a question's form values as the submission's JSON would carry them; a value
// of the wrong shape is passed on as text, for the submission's own check to name.
func answerOf(q api.PublicQuestion, values []string) (any, bool) {
	var nonEmpty []string
	for _, v := range values {
		if strings.TrimSpace(v) != "" || q.Type == api.QuestionTypeText {
			nonEmpty = append(nonEmpty, v)
		}
	}
	if len(nonEmpty) == 0 {
		return nil, false
	}
	first := nonEmpty[0]
	switch q.Type {
	case api.QuestionTypeRating, api.QuestionTypeNps:
		if n, err := strconv.Atoi(strings.TrimSpace(first)); err == nil {
			return float64(n), true
		}
	case api.QuestionTypeYesNo:
		switch first {
		case "yes":
			return true, true
		case "no":
			return false, true
		}
	case api.QuestionTypeMultiChoice:
		out := make([]any, len(nonEmpty))
		for i, v := range nonEmpty {
			out[i] = v
		}
		return out, true
	case api.QuestionTypeText:
		if strings.TrimSpace(first) == "" {
			return nil, false
		}
	}
	return first, true
}

// answerMessage names the catalog's sentence for the submission's field message, with its
// arguments.
func answerMessage(m string) (string, []any) {
	switch {
	case m == "is required":
		return "survey.error_required", nil
	case m == "must be true or false":
		return "survey.error_yes_no", nil
	case m == "must be an array of options", m == "must be distinct options of the question", m == "must be one of the options":
		return "survey.error_options", nil
	}
	var n, lo int
	if _, err := fmt.Sscanf(m, "must be a whole number from %d to %d", &lo, &n); err == nil {
		return "survey.error_range", []any{"min", lo, "max", n}
	}
	if _, err := fmt.Sscanf(m, "must be at most %d characters", &n); err == nil {
		return "survey.error_too_long", []any{"max", n}
	}
	return "survey.error_check", nil
}
