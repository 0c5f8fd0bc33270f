package httpapi_test

import (
	"bytes"
	"mime/multipart"
	"net/http"

	"github.com/google/uuid"
)

func policyFixture(w *walker, published bool) walkCall {
	id := w.policy(published)
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

// policy makes a policy for site A with a draft version 1, published when asked.
func (w *walker) policy(published bool) string {
	id := w.create("policies", map[string]any{"title": "Handwashing", "siteIds": []uuid.UUID{w.siteA}})
	w.ownerCall(http.MethodPost, "policies/"+id+"/versions").JSON(map[string]any{"body": "# Handwashing"}).Do().Expect(http.StatusCreated)
	if published {
		w.ownerCall(http.MethodPost, "policies/"+id+"/versions/1/publish").Do().Expect(http.StatusOK)
	}
	return id
}

func walkTemplate() map[string]any {
	return map[string]any{"name": "Walk inspection", "sections": []map[string]any{{"title": "Cold holding", "items": []map[string]any{
		{"key": "labels", "prompt": "Containers labelled", "kind": "pass_fail"}}}}}
}

func (w *walker) template() string { return w.create("inspection-templates", walkTemplate()) }

func templateFixture(w *walker) walkCall {
	return walkCall{path: map[string]string{"id": w.template()}}
}

// inspection schedules an inspection at site A.
func (w *walker) inspection() string {
	return w.create("inspections", map[string]any{"templateId": w.template(), "siteId": w.siteA, "scheduledFor": "2026-03-02T14:00:00Z"})
}

func inspectionFixture(w *walker) walkCall {
	id := w.inspection()
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

func (w *walker) engagement() string {
	return w.create("engagements", map[string]any{"name": "Walk audit", "siteIds": []uuid.UUID{w.siteA}, "auditor": "Walk LLC",
		"period": map[string]any{"from": "2026-01-01", "to": "2026-03-31"}})
}

func engagementFixture(w *walker) walkCall {
	id := w.engagement()
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

func (w *walker) equipment() string {
	return w.create("equipment", map[string]any{"siteId": w.siteA, "name": "Walk-in cooler", "kind": "walk_in_cooler"})
}

func equipmentFixture(w *walker) walkCall {
	id := w.equipment()
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

func (w *walker) workOrder() string {
	return w.create("work-orders", map[string]any{"equipmentId": w.equipment(), "title": "Door gasket torn"})
}

func workOrderFixture(w *walker) walkCall {
	id := w.workOrder()
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

func workOrderPhotoFixture(w *walker) walkCall {
	id := w.workOrder()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	part, _ := mw.CreateFormFile("file", "walk.png")
	_, _ = part.Write(onePixelPNG)
	_ = mw.Close()
	var out struct {
		MediaID string `json:"mediaId"`
	}
	w.ownerCall(http.MethodPost, "work-orders/"+id+"/photos").Raw(mw.FormDataContentType(), buf.Bytes()).Do().Expect(http.StatusCreated).Decode(&out)
	return walkCall{path: map[string]string{"id": id, "mediaId": out.MediaID}, ids: []string{id, out.MediaID}}
}

func (w *walker) walkthrough() string {
	return w.create("walkthroughs", map[string]any{"name": "Opening", "kind": "opening", "siteIds": []uuid.UUID{w.siteA},
		"steps": []map[string]any{{"key": "lights", "prompt": "Hood lights on", "answerKind": "check"}}})
}

func walkthroughFixture(w *walker) walkCall {
	id := w.walkthrough()
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

func walkthroughRunFixture(w *walker) walkCall {
	id := w.create("walkthroughs/"+w.walkthrough()+"/runs", map[string]any{"siteId": w.siteA})
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

func (w *walker) certification() string {
	return w.create("certifications", map[string]any{"userId": w.owner.User.ID, "siteId": w.siteA, "kind": "food_handler",
		"issuedOn": "2025-01-01", "expiresOn": "2028-01-01"})
}

func certificationFixture(w *walker) walkCall {
	id := w.certification()
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

func (w *walker) report() string {
	return w.create("reports", map[string]any{"scope": "site", "siteId": w.siteA, "kind": "operations", "period": map[string]any{"from": "2026-03-01", "to": "2026-03-31"}})
}

func reportFixture(w *walker) walkCall {
	id := w.report()
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}
