package surveys_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

type kitchen struct {
	env   *apitest.Env
	owner apitest.Session
	org   uuid.UUID
	site  uuid.UUID
}

func newKitchen(t *testing.T) *kitchen {
	env := apitest.New(t)
	owner, org := env.NewOwner("Harborview Kitchens")
	return &kitchen{env: env, owner: owner, org: org, site: env.Site(owner.AccessToken, org, "Main Kitchen")}
}

func (k *kitchen) call(method, path string) *apitest.Request {
	return k.env.Call(method, "orgs/"+k.org.String()+"/"+path).Token(k.owner.AccessToken)
}

func questions() []map[string]any {
	return []map[string]any{
		{"key": "food", "type": "rating", "prompt": "How was the food?", "required": true},
		{"key": "recommend", "type": "nps", "prompt": "Would you recommend us?", "required": false},
		{"key": "meal", "type": "single_choice", "prompt": "Best meal?", "required": false, "options": []string{"Breakfast", "Lunch", "Dinner"}},
		{"key": "extras", "type": "multi_choice", "prompt": "Which extras?", "required": false, "options": []string{"Soup", "Salad", "Dessert"}},
		{"key": "warm", "type": "yes_no", "prompt": "Was it warm?", "required": false},
		{"key": "comments", "type": "text", "prompt": "Anything else?", "required": false},
	}
}

func (k *kitchen) survey(status string) string {
	k.env.T.Helper()
	var s struct {
		ID string `json:"id"`
	}
	k.call(http.MethodPost, "surveys").JSON(map[string]any{"name": "Patient meal feedback", "siteId": k.site, "status": status,
		"thankYouMessage": "Thank you!", "questions": questions()}).Do().Expect(http.StatusCreated).Decode(&s)
	return s.ID
}

func (k *kitchen) sharedLink(id string) string {
	k.env.T.Helper()
	var l struct {
		URL   string `json:"url"`
		Token string `json:"token"`
	}
	k.call(http.MethodPost, "surveys/"+id+"/share").Do().Expect(http.StatusOK).Decode(&l)
	if l.URL != "https://app.sous.example/survey/"+l.Token {
		k.env.T.Fatalf("url %s", l.URL)
	}
	return l.Token
}

func (k *kitchen) submit(token string, answers map[string]any) *apitest.Response {
	return k.env.Call(http.MethodPost, "survey/"+token+"/submit").FromIP(k.env.NewIP()).JSON(map[string]any{"answers": answers}).Do()
}

func (k *kitchen) responses(id string) int {
	var n int
	if err := k.env.Pool.QueryRow(k.env.T.Context(), `SELECT count(*) FROM survey_responses WHERE survey_id = $1`, id).Scan(&n); err != nil {
		k.env.T.Fatal(err)
	}
	return n
}

func TestSubmissionsAreValidatedServerSide(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	id := k.survey("open")
	token := k.sharedLink(id)
	var public struct {
		Title     string `json:"title"`
		SiteName  string `json:"siteName"`
		Questions []struct {
			Key      string `json:"key"`
			ScaleMax *int   `json:"scaleMax"`
		} `json:"questions"`
	}
	k.env.Call(http.MethodGet, "survey/"+token).Do().Expect(http.StatusOK).Decode(&public)
	if public.Title != "Patient meal feedback" || public.SiteName != "Main Kitchen" || len(public.Questions) != 6 || *public.Questions[0].ScaleMax != 5 {
		t.Fatalf("public survey %+v", public)
	}

	e := k.submit(token, map[string]any{
		"recommend": 11, "meal": "Brunch", "extras": []string{"Soup", "Soup"}, "warm": "yes",
		"comments": strings.Repeat("é", 2001), "colour": "blue",
	}).ExpectCode(http.StatusBadRequest, "validation_failed")
	fields := map[string]bool{}
	for _, d := range e.Details {
		fields[d.Field] = true
	}
	for _, f := range []string{"answers.food", "answers.recommend", "answers.meal", "answers.extras", "answers.warm", "answers.comments", "answers.colour"} {
		if !fields[f] {
			t.Errorf("no detail for %s in %+v", f, e.Details)
		}
	}
	k.submit(token, map[string]any{"food": 2.5}).ExpectCode(http.StatusBadRequest, "validation_failed")
	k.submit(token, map[string]any{"food": 0}).ExpectCode(http.StatusBadRequest, "validation_failed")
	if k.responses(id) != 0 {
		t.Fatal("an invalid submission was recorded")
	}
	var receipt struct {
		ThankYouMessage string `json:"thankYouMessage"`
	}
	k.submit(token, map[string]any{"food": 5, "recommend": 10, "meal": "Dinner", "extras": []string{"Soup", "Dessert"}, "warm": true,
		"comments": strings.Repeat("é", 2000)}).Expect(http.StatusOK).Decode(&receipt)
	if receipt.ThankYouMessage != "Thank you!" {
		t.Fatalf("receipt %+v", receipt)
	}
	// The shared link is multi-use.
	k.submit(token, map[string]any{"food": 3}).Expect(http.StatusOK)
	if k.responses(id) != 2 {
		t.Fatal("submissions not recorded")
	}
	// Questions are fixed once a response exists; other fields are not.
	body := map[string]any{"name": "Renamed", "siteId": k.site, "status": "open", "thankYouMessage": "Thanks", "questions": questions()[:2]}
	k.call(http.MethodPut, "surveys/"+id).JSON(body).Do().ExpectCode(http.StatusConflict, "survey_has_responses")
	body["questions"] = questions()
	var s struct {
		Name          string `json:"name"`
		ResponseCount int    `json:"responseCount"`
	}
	k.call(http.MethodPut, "surveys/"+id).JSON(body).Do().Expect(http.StatusOK).Decode(&s)
	if s.Name != "Renamed" || s.ResponseCount != 2 {
		t.Fatalf("survey %+v", s)
	}
}

func TestQuestionsAreChecked(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	for name, q := range map[string][]map[string]any{
		"duplicate key":       {{"key": "a", "type": "text", "prompt": "A", "required": false}, {"key": "a", "type": "text", "prompt": "B", "required": false}},
		"choice, no options":  {{"key": "a", "type": "single_choice", "prompt": "A", "required": false}},
		"options on a rating": {{"key": "a", "type": "rating", "prompt": "A", "required": false, "options": []string{"x", "y"}}},
		"scaleMax on nps":     {{"key": "a", "type": "nps", "prompt": "A", "required": false, "scaleMax": 5}},
	} {
		res := k.call(http.MethodPost, "surveys").JSON(map[string]any{"name": name, "status": "open", "thankYouMessage": "", "questions": q}).Do()
		if res.Status != http.StatusBadRequest {
			t.Errorf("%s: %d", name, res.Status)
		}
	}
}

// Of N simultaneous submissions through one single-use invitation, one is recorded.
func TestSingleUseInvitationsTakeOneSubmission(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	id := k.survey("open")
	var invs []struct {
		Token     string  `json:"token"`
		URL       string  `json:"url"`
		Name      *string `json:"name"`
		SingleUse bool    `json:"singleUse"`
	}
	k.call(http.MethodPost, "surveys/"+id+"/invitations").JSON(map[string]any{
		"recipients": []map[string]any{{"name": "Room 412", "email": "patient412@example.org", "reference": "MRN 1"}, {"name": "Room 414"}},
		"singleUse":  true, "expiresAt": "2026-03-09T09:00:00Z",
	}).Do().Expect(http.StatusCreated).Decode(&invs)
	if len(invs) != 2 || !invs[0].SingleUse || *invs[0].Name != "Room 412" || invs[0].URL != "https://app.sous.example/survey/"+invs[0].Token {
		t.Fatalf("invitations %+v", invs)
	}
	const n = 10
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = k.submit(invs[0].Token, map[string]any{"food": 4}).Status
		}()
	}
	wg.Wait()
	won, lost := 0, 0
	for _, s := range statuses {
		switch s {
		case http.StatusOK:
			won++
		case http.StatusConflict:
			lost++
		}
	}
	if won != 1 || lost != n-1 {
		t.Fatalf("statuses %v", statuses)
	}
	k.submit(invs[0].Token, map[string]any{"food": 4}).ExpectCode(http.StatusConflict, "survey_already_answered")
	k.submit(invs[1].Token, map[string]any{"food": 4}).Expect(http.StatusOK)
	// Anonymous links by count; an expired invitation opens nothing.
	k.call(http.MethodPost, "surveys/"+id+"/invitations").JSON(map[string]any{"count": 3, "singleUse": false}).Do().Expect(http.StatusCreated).Decode(&invs)
	if len(invs) != 3 || invs[0].SingleUse {
		t.Fatalf("count invitations %+v", invs)
	}
	k.call(http.MethodPost, "surveys/"+id+"/invitations").JSON(map[string]any{"count": 3, "recipients": []any{map[string]any{}}, "singleUse": false}).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	var short []struct {
		Token string `json:"token"`
	}
	k.call(http.MethodPost, "surveys/"+id+"/invitations").JSON(map[string]any{"count": 1, "singleUse": false, "expiresAt": "2026-03-02T10:00:00Z"}).Do().Expect(http.StatusCreated).Decode(&short)
	k.env.Call(http.MethodGet, "survey/"+short[0].Token).Do().Expect(http.StatusOK)
	k.env.Clock.Advance(time.Hour)
	k.env.Call(http.MethodGet, "survey/"+short[0].Token).Do().ExpectCode(http.StatusNotFound, "link_not_found")
}

func TestClosedSurveysAnswer410AndDraftsOpenNothing(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	draft := k.survey("draft")
	token := k.sharedLink(draft)
	k.env.Call(http.MethodGet, "survey/"+token).Do().ExpectCode(http.StatusNotFound, "link_not_found")
	k.submit(token, map[string]any{"food": 4}).ExpectCode(http.StatusNotFound, "link_not_found")

	body := map[string]any{"name": "Lunch", "siteId": k.site, "status": "open", "thankYouMessage": "Thanks", "questions": questions(),
		"closesAt": apitest.Epoch.Add(time.Hour).Format(time.RFC3339)}
	k.call(http.MethodPut, "surveys/"+draft).JSON(body).Do().Expect(http.StatusOK)
	k.env.Call(http.MethodGet, "survey/"+token).Do().Expect(http.StatusOK)
	k.env.Clock.Advance(time.Hour)
	k.env.Call(http.MethodGet, "survey/"+token).Do().ExpectCode(http.StatusGone, "survey_closed")
	k.submit(token, map[string]any{"food": 4}).ExpectCode(http.StatusGone, "survey_closed")

	k.owner = k.env.SignIn(k.owner.User.Email)
	closed := k.survey("closed")
	ct := k.sharedLink(closed)
	k.env.Call(http.MethodGet, "survey/"+ct).Do().ExpectCode(http.StatusGone, "survey_closed")
	// Sharing again rotates the link.
	ct2 := k.sharedLink(closed)
	k.env.Call(http.MethodGet, "survey/"+ct).Do().ExpectCode(http.StatusNotFound, "link_not_found")
	k.env.Call(http.MethodGet, "survey/"+ct2).Do().ExpectCode(http.StatusGone, "survey_closed")
}

func TestResults(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	id := k.survey("open")
	token := k.sharedLink(id)
	answers := []map[string]any{
		{"food": 5, "recommend": 10, "meal": "Dinner", "extras": []string{"Soup", "Dessert"}, "warm": true, "comments": "Lovely soup"},
		{"food": 4, "recommend": 9, "meal": "Dinner", "warm": false},
		{"food": 4, "recommend": 7, "meal": "Lunch", "comments": "Too salty"},
		{"food": 2, "recommend": 3, "extras": []string{"Soup"}, "comments": "Cold"},
	}
	for i, a := range answers {
		k.submit(token, a).Expect(http.StatusOK)
		k.env.Clock.Advance(time.Minute * time.Duration(i+1))
	}
	type result struct {
		ResponseCount int `json:"responseCount"`
		Questions     []struct {
			Key          string         `json:"key"`
			Answered     int            `json:"answered"`
			Counts       map[string]int `json:"counts"`
			Mean         *string        `json:"mean"`
			Distribution map[string]int `json:"distribution"`
			Nps          *struct {
				Score, Promoters, Passives, Detractors int
			} `json:"nps"`
			Texts []struct {
				Text string `json:"text"`
			} `json:"texts"`
		} `json:"questions"`
	}
	var r result
	k.call(http.MethodGet, "surveys/"+id+"/results").Do().Expect(http.StatusOK).Decode(&r)
	q := r.Questions
	if r.ResponseCount != 4 || *q[0].Mean != "3.75" || q[0].Distribution["4"] != 2 || q[0].Distribution["1"] != 0 {
		t.Fatalf("rating %+v", q[0])
	}
	// Promoters 2 (10, 9), passives 1 (7), detractors 1 (3): NPS (2 − 1) / 4 = 25 points.
	if n := q[1].Nps; n == nil || n.Score != 25 || n.Promoters != 2 || n.Passives != 1 || n.Detractors != 1 {
		t.Fatalf("nps %+v", q[1].Nps)
	}
	if q[2].Counts["Dinner"] != 2 || q[2].Counts["Lunch"] != 1 || q[2].Counts["Breakfast"] != 0 || q[3].Counts["Soup"] != 2 || q[4].Counts["yes"] != 1 || q[4].Counts["no"] != 1 {
		t.Fatalf("counts %+v %+v %+v", q[2], q[3], q[4])
	}
	if len(q[5].Texts) != 3 || q[5].Texts[0].Text != "Cold" {
		t.Fatalf("texts %+v", q[5].Texts)
	}
	// Texts page, newest first.
	res := k.call(http.MethodGet, "surveys/"+id+"/results?limit=2").Do().Expect(http.StatusOK).Decode(&r)
	next := res.Header.Get("Link")
	if len(r.Questions[5].Texts) != 2 || next == "" {
		t.Fatalf("first page %+v, Link %q", r.Questions[5].Texts, next)
	}
	nextURL := next[strings.Index(next, "/v1/"):strings.Index(next, ">")]
	res = k.env.Call(http.MethodGet, nextURL).Token(k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&r)
	if len(r.Questions[5].Texts) != 1 || r.Questions[5].Texts[0].Text != "Lovely soup" || res.Header.Get("Link") != "" || r.ResponseCount != 4 {
		t.Fatalf("second page %+v", r.Questions[5].Texts)
	}
	// A period.
	from := apitest.Epoch.Add(90 * time.Second).UTC().Format(time.RFC3339)
	k.call(http.MethodGet, fmt.Sprintf("surveys/%s/results?from=%s", id, from)).Do().Expect(http.StatusOK).Decode(&r)
	if r.ResponseCount != 2 {
		t.Fatalf("from %s: %d responses", from, r.ResponseCount)
	}
}
