package records_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
)

type run struct {
	ID      uuid.UUID `json:"id"`
	Status  string    `json:"status"`
	SiteID  uuid.UUID `json:"siteId"`
	Answers []struct {
		StepKey string `json:"stepKey"`
	} `json:"answers"`
}

func TestWalkthroughRunSubmit(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	rcv := k.receiver("walkthrough.submitted")
	staff := k.env.Member(k.org, "inspector", k.site)
	var wt struct {
		ID uuid.UUID `json:"id"`
	}
	k.create("walkthroughs", map[string]any{"name": "Opening", "kind": "opening", "siteIds": []uuid.UUID{k.site}, "steps": []map[string]any{
		{"key": "lights", "prompt": "Hood lights on", "answerKind": "check"},
		{"key": "walkin", "prompt": "Walk-in temperature", "answerKind": "temperature"},
		{"key": "notes", "prompt": "Anything to report", "answerKind": "text", "required": false},
	}}, &wt)
	// Staff cannot define walkthroughs, but can run them.
	k.call(http.MethodPost, "walkthroughs", staff.AccessToken).JSON(map[string]any{"name": "x", "kind": "other", "steps": []map[string]any{{"key": "a", "prompt": "a", "answerKind": "check"}}}).
		Do().ExpectError(http.StatusForbidden, "")
	var r run
	k.call(http.MethodPost, "walkthroughs/"+wt.ID.String()+"/runs", staff.AccessToken).JSON(map[string]any{"siteId": k.site}).Do().Expect(http.StatusCreated).Decode(&r)
	base := "walkthrough-runs/" + r.ID.String()
	k.call(http.MethodPut, base+"/responses", staff.AccessToken).JSON(map[string]any{"answers": []map[string]any{{"stepKey": "walkin", "checked": true}}}).
		Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	k.call(http.MethodPut, base+"/responses", staff.AccessToken).JSON(map[string]any{"answers": []map[string]any{{"stepKey": "lights", "checked": true}}}).
		Do().Expect(http.StatusOK).Decode(&r)
	// A required step unanswered: 400 naming it, nothing submitted, no event.
	e := k.call(http.MethodPost, base+"/submit", staff.AccessToken).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	if len(e.Details) != 1 || e.Details[0].Field != "steps.walkin" || !strings.Contains(e.Error, "walkin") {
		t.Fatalf("refusal %+v", e)
	}
	k.call(http.MethodPut, base+"/responses", staff.AccessToken).JSON(map[string]any{"answers": []map[string]any{{"stepKey": "walkin", "value": "38"}}}).
		Do().Expect(http.StatusOK)
	k.call(http.MethodPost, base+"/submit", staff.AccessToken).Do().Expect(http.StatusOK).Decode(&r)
	if r.Status != "submitted" || len(r.Answers) != 2 {
		t.Fatalf("submitted %+v", r)
	}
	k.call(http.MethodPost, base+"/submit", staff.AccessToken).Do().ExpectCode(http.StatusConflict, "conflict")
	k.call(http.MethodPut, base+"/responses", staff.AccessToken).JSON(map[string]any{"answers": []map[string]any{}}).Do().ExpectCode(http.StatusConflict, "conflict")
	d := rcv.deliveries("walkthrough.submitted")
	if len(d) != 1 || d[0]["runId"] != r.ID.String() || d[0]["walkthroughId"] != wt.ID.String() || d[0]["siteId"] != k.site.String() {
		t.Fatalf("walkthrough.submitted %+v", d)
	}
	// Another site's member sees neither.
	pastry := k.env.Site(k.owner.AccessToken, k.org, "Pastry")
	other := k.env.Member(k.org, "inspector", pastry)
	k.call(http.MethodGet, base, other.AccessToken).Do().ExpectError(http.StatusNotFound, "Walkthrough run not found")
	k.call(http.MethodPost, "walkthroughs/"+wt.ID.String()+"/runs", other.AccessToken).JSON(map[string]any{"siteId": pastry}).Do().ExpectError(http.StatusNotFound, "Walkthrough not found")
	k.call(http.MethodPost, "walkthroughs/"+wt.ID.String()+"/runs", k.owner.AccessToken).JSON(map[string]any{"siteId": pastry}).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
}

func TestWalkthroughStepGuides(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	pastry := k.env.Site(k.owner.AccessToken, k.org, "Pastry")
	var everywhere, pastryOnly struct {
		ID uuid.UUID `json:"id"`
	}
	k.create("guides", map[string]any{"title": "Hood lights", "body": "Switch by the door."}, &everywhere)
	k.create("guides", map[string]any{"title": "Proofer", "body": "Dial to 85.", "siteIds": []uuid.UUID{pastry}}, &pastryOnly)
	body := func(guide uuid.UUID) map[string]any {
		return map[string]any{"name": "Opening", "kind": "opening", "siteIds": []uuid.UUID{k.site},
			"steps": []map[string]any{{"key": "lights", "prompt": "Hood lights on", "answerKind": "check", "guideId": guide}}}
	}
	k.call(http.MethodPost, "walkthroughs", k.owner.AccessToken).JSON(body(everywhere.ID)).Do().Expect(http.StatusCreated)
	k.call(http.MethodPost, "walkthroughs", k.owner.AccessToken).JSON(body(pastryOnly.ID)).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	k.call(http.MethodPost, "walkthroughs", k.owner.AccessToken).JSON(body(uuid.New())).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
}
