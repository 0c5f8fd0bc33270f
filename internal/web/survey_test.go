package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

func surveyQuestions() []map[string]any {
	return []map[string]any{
		{"key": "food", "type": "rating", "prompt": "How was the food?", "required": true},
		{"key": "recommend", "type": "nps", "prompt": "Would you recommend us?", "required": true},
		{"key": "meal", "type": "single_choice", "prompt": "Best meal?", "required": false, "options": []string{"Breakfast", "Lunch", "Dinner"}},
		{"key": "extras", "type": "multi_choice", "prompt": "Which extras?", "required": false, "options": []string{"Soup", "Salad", "Dessert"}},
		{"key": "warm", "type": "yes_no", "prompt": "Was it warm?", "required": false},
		{"key": "comments", "type": "text", "prompt": "Anything else?", "required": false},
	}
}

func (o *org) survey(status string, extra map[string]any) string {
	body := map[string]any{"name": "Patient meal feedback", "siteId": o.site, "status": status,
		"thankYouMessage": "Thank you — the kitchen reads every answer.", "questions": surveyQuestions()}
	for k, v := range extra {
		body[k] = v
	}
	return o.create("surveys", body)
}

func (o *org) responses(survey string) int {
	var n int
	if err := o.env.Pool.QueryRow(o.env.T.Context(), `SELECT count(*) FROM survey_responses WHERE survey_id = $1`, survey).Scan(&n); err != nil {
		o.env.T.Fatal(err)
	}
	return n
}

func TestSurveyPageShowsEveryQuestionType(t *testing.T) {
	t.Parallel()
	o := newOrg(t, "Harborview Kitchens")
	token := o.share("surveys/" + o.survey("open", nil) + "/share")
	p := get(t, o.env, "/survey/"+token, "").expect(t, http.StatusOK)
	p.noIDs(t, o)
	p.contains(t, "Harborview Kitchens", "Patient meal feedback", "Main Kitchen",
		`type="radio" id="q0-4" name="a_food" value="5"`,        // rating 1..5
		`type="radio" id="q1-10" name="a_recommend" value="10"`, // NPS 0..10
		`type="radio" id="q2-2" name="a_meal" value="Dinner"`,
		`type="checkbox" id="q3-1" name="a_extras" value="Salad"`,
		`name="a_warm" value="yes"`, `name="a_warm" value="no"`,
		`<textarea id="q5" name="a_comments" maxlength="2000"`,
		`<legend>How was the food? <span class="req"`, `<label for="q5">`, "novalidate")
}

func TestSurveyErrorsComeBackInlineWithTheAnswersKept(t *testing.T) {
	t.Parallel()
	o := newOrg(t, "Harborview Kitchens")
	survey := o.survey("open", nil)
	token := o.share("surveys/" + survey + "/share")
	path := "/survey/" + token
	// The required rating left empty; an NPS out of range (a hand-made form).
	form := url.Values{"a_recommend": {"11"}, "a_meal": {"Lunch"}, "a_extras": {"Soup", "Dessert"}, "a_warm": {"no"}, "a_comments": {"Rice was <cold>"}}
	p := post(t, o.env, path, "", form).expect(t, http.StatusBadRequest)
	p.contains(t, `<p class="error" id="q0-error">Please answer this question.</p>`,
		`<p class="error" id="q1-error">The answer must be a whole number from 0 to 10.</p>`,
		`value="Lunch" checked`, `value="Soup" checked`, `value="Dessert" checked`, `name="a_warm" value="no" checked`,
		">Rice was &lt;cold&gt;</textarea>")
	if strings.Contains(p.body, `value="Salad" checked`) {
		t.Fatal("an unticked option came back ticked")
	}
	// A text over 2,000 characters is refused beside its question.
	long := url.Values{"a_food": {"4"}, "a_recommend": {"9"}, "a_comments": {strings.Repeat("é", 2001)}}
	post(t, o.env, path, "", long).expect(t, http.StatusBadRequest).contains(t, `id="q5-error">The answer must be at most 2000 characters.`)
	// Hostile bytes are a 400 page.
	post(t, o.env, path, "", url.Values{"a_food": {"4"}, "a_comments": {"a\x00b"}}).expect(t, http.StatusBadRequest)
	if n := o.responses(survey); n != 0 {
		t.Fatalf("%d responses after refused forms", n)
	}

	form.Set("a_food", "4")
	form.Set("a_recommend", "9")
	p = post(t, o.env, path, "", form).expect(t, http.StatusOK)
	p.contains(t, "Thank you — the kitchen reads every answer.")
	if n := o.responses(survey); n != 1 {
		t.Fatalf("%d responses", n)
	}
	var answers string
	if err := o.env.Pool.QueryRow(t.Context(), `SELECT answers::text FROM survey_responses WHERE survey_id = $1`, survey).Scan(&answers); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"food": 4`, `"recommend": 9`, `"warm": false`, `"extras": ["Soup", "Dessert"]`, `"meal": "Lunch"`} {
		if !strings.Contains(answers, want) {
			t.Fatalf("answers %s lack %s", answers, want)
		}
	}
}

func TestSingleUseSurveyLinkTakesOneSubmissionThenSaysSo(t *testing.T) {
	t.Parallel()
	o := newOrg(t, "Harborview Kitchens")
	survey := o.survey("open", nil)
	var invs []struct {
		Token string `json:"token"`
	}
	o.call(http.MethodPost, "surveys/"+survey+"/invitations").JSON(map[string]any{"count": 1, "singleUse": true}).Do().Expect(http.StatusCreated).Decode(&invs)
	path := "/survey/" + invs[0].Token
	get(t, o.env, path, "").expect(t, http.StatusOK)
	form := url.Values{"a_food": {"5"}, "a_recommend": {"10"}}
	var wg sync.WaitGroup
	statuses := make([]int, 6)
	for i := range statuses {
		wg.Add(1)
		go func() { defer wg.Done(); statuses[i] = post(t, o.env, path, "", form).status }()
	}
	wg.Wait()
	ok, used := 0, 0
	for _, s := range statuses {
		switch s {
		case http.StatusOK:
			ok++
		case http.StatusConflict:
			used++
		}
	}
	if ok != 1 || used != len(statuses)-1 || o.responses(survey) != 1 {
		t.Fatalf("statuses %v, %d responses", statuses, o.responses(survey))
	}
	get(t, o.env, path, "").expect(t, http.StatusConflict).contains(t, "This survey link has already been used")
}

func TestClosedSurveyHasItsPage(t *testing.T) {
	t.Parallel()
	o := newOrg(t, "Harborview Kitchens")
	token := o.share("surveys/" + o.survey("open", map[string]any{"closesAt": apitest.Epoch.Add(time.Hour).Format(time.RFC3339)}) + "/share")
	get(t, o.env, "/survey/"+token, "").expect(t, http.StatusOK)
	o.env.Clock.Advance(time.Hour)
	get(t, o.env, "/survey/"+token, "").expect(t, http.StatusGone).contains(t, "This survey is closed")
	post(t, o.env, "/survey/"+token, "", url.Values{"a_food": {"4"}}).expect(t, http.StatusGone)
}

// Unknown, malformed, rotated and other-kind tokens are one page, the same for every kind of link.
func TestInvalidLinksAreOnePage(t *testing.T) {
	t.Parallel()
	o := newOrg(t, "Harborview Kitchens")
	survey := o.survey("open", nil)
	rotated := o.share("surveys/" + survey + "/share")
	current := o.share("surveys/" + survey + "/share")
	_, quote := o.quote(o.event(), "2026-03-20")
	unknown := strings.Repeat("A", 43)
	var first string
	for _, path := range []string{
		"/survey/" + rotated, "/survey/" + unknown, "/survey/short", "/survey/" + quote,
		"/share/q/" + unknown, "/share/q/" + current, "/share/q/%3Cscript%3E",
		"/share/i/" + unknown, "/share/i/" + unknown + ".pdf", "/share/i/" + quote,
		"/share/insp/" + unknown, "/share/insp/" + current + ".pdf",
	} {
		p := get(t, o.env, path, "").expect(t, http.StatusNotFound)
		p.contains(t, "This link is not valid")
		if first == "" {
			first = p.body
		} else if p.body != first {
			t.Fatalf("%s answers another page:\n%s\n---\n%s", path, p.body, first)
		}
	}
	post(t, o.env, "/survey/"+rotated, "", url.Values{"a_food": {"4"}}).expect(t, http.StatusNotFound)
	post(t, o.env, "/share/q/"+unknown, "", url.Values{"name": {"M"}, "agree": {"yes"}}).expect(t, http.StatusNotFound)
	if o.responses(survey) != 0 {
		t.Fatal("a rotated link took a response")
	}
}
