package httpapi_test

import (
	"bytes"
	"mime/multipart"
	"net/http"

	"github.com/google/uuid"
)

func taskFixture(w *walker) walkCall {
	id := w.task()
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

func taskPhotoFixture(w *walker) walkCall {
	id := w.task()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	part, _ := mw.CreateFormFile("file", "walk.png")
	_, _ = part.Write(onePixelPNG)
	_ = mw.Close()
	var out struct {
		MediaID string `json:"mediaId"`
	}
	w.ownerCall(http.MethodPost, "tasks/"+id+"/photos").Raw(mw.FormDataContentType(), buf.Bytes()).Do().Expect(http.StatusCreated).Decode(&out)
	return walkCall{path: map[string]string{"id": id, "mediaId": out.MediaID}, ids: []string{id, out.MediaID}}
}

func routineFixture(w *walker) walkCall {
	id := w.routine()
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

func guideFixture(w *walker) walkCall {
	id := w.guide()
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

func (w *walker) taskBody() map[string]any {
	return map[string]any{"siteId": w.siteA, "title": "Descale the combi oven", "kind": "maintenance", "dueAt": "2026-03-02 14:00:00-06:00",
		"assignee": map[string]any{"positionId": w.position()}, "linkedDocIds": []string{w.guide()}}
}

// task makes a manual task at site A and returns its id.
func (w *walker) task() string { return w.create("tasks", w.taskBody()) }

func (w *walker) position() string {
	return w.create("positions", map[string]any{"siteId": w.siteA, "name": "Opening cook"})
}

func (w *walker) guide() string {
	return w.create("guides", map[string]any{"title": "Cooler log", "body": "Probe the centre shelf.", "siteIds": []uuid.UUID{w.siteA}})
}

func (w *walker) routineBody() map[string]any {
	tag, _ := w.tag()
	return map[string]any{"siteId": w.siteA, "name": "Cooler temperatures", "rrule": "FREQ=DAILY;BYHOUR=6,10,14,18;BYMINUTE=0",
		"items": []map[string]any{{"title": "Log walk-in cooler temperature", "kind": "temperature_log", "requiresScan": true, "targetTagId": tag,
			"requiresTemp": true, "tempRange": map[string]any{"minF": "33", "maxF": "41"}, "linkedDocIds": []string{w.guide()},
			"assignee": map[string]any{"positionId": w.position()}}}}
}

func (w *walker) routine() string { return w.create("routines", w.routineBody()) }

// trayTicket admits a patient at site A and generates the lunch tickets of date, with a menu
// serving a new recipe at Monday lunch; it returns the patient's ticket and the recipe.
func (w *walker) trayTicket(date string) (ticketID, recipeID string) {
	w.env.T.Helper()
	w.dayParts()
	recipeID = w.recipe()
	w.create("menus", map[string]any{"siteId": w.siteA, "name": "Walk patient menu", "startsOn": "2026-03-02", "cycleWeeks": 1,
		"items": []map[string]any{{"week": 1, "weekday": 1, "dayPart": "lunch", "recipeId": recipeID, "portionsPerCover": "1"}}})
	// Site A may have several menus from other fixtures: the one in force decides.
	var eff struct {
		Items []struct {
			RecipeID string `json:"recipeId"`
		} `json:"items"`
	}
	w.ownerCall(http.MethodGet, "menus/effective?siteId="+w.siteA.String()+"&date=2026-03-02&dayPart=lunch").Do().Expect(http.StatusOK).Decode(&eff)
	if len(eff.Items) > 0 {
		recipeID = eff.Items[0].RecipeID
	}
	patient, _ := w.patient()
	w.ownerCall(http.MethodPost, "tray-tickets/generate").JSON(map[string]any{"siteId": w.siteA, "date": date, "dayPart": "lunch"}).Do().Expect(http.StatusOK)
	var tickets []struct {
		ID        string `json:"id"`
		PatientID string `json:"patientId"`
	}
	w.ownerCall(http.MethodGet, "tray-tickets?siteId="+w.siteA.String()+"&date="+date+"&dayPart=lunch").Do().Expect(http.StatusOK).Decode(&tickets)
	for _, t := range tickets {
		if t.PatientID == patient {
			return t.ID, recipeID
		}
	}
	w.env.T.Fatalf("fixture: no tray ticket for patient %s", patient)
	return "", ""
}
