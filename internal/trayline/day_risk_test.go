package trayline_test

import (
	"net/http"
	"sync"
	"testing"

	"github.com/google/uuid"
)

// riskAlert is what these tests read of a nutrition_risk alert.
type riskAlert struct {
	ID         uuid.UUID  `json:"id"`
	Message    string     `json:"message"`
	Status     string     `json:"status"`
	ResolvedBy *uuid.UUID `json:"resolvedBy"`
}

// risks lists the patient's nutrition_risk alerts of a status through the API.
func (h *hospital) risks(status string) []riskAlert {
	h.t.Helper()
	var out []riskAlert
	h.call(http.MethodGet, "alerts?kind=nutrition_risk&status="+status).Do().Expect(http.StatusOK).Decode(&out)
	return out
}

func (h *hospital) renalLimit(potassiumMax string) {
	h.t.Helper()
	h.call(http.MethodPut, "clinical/diets/renal/rules").JSON(map[string]any{"limits": map[string]any{"nutrients": map[string]any{
		"potassiumMg": map[string]string{"max": potassiumMax, "per": "day"}}}}).Do().Expect(http.StatusOK)
}

func (h *hospital) selectRecipes(ticket uuid.UUID, recipes ...uuid.UUID) int {
	h.t.Helper()
	return h.call(http.MethodPut, "tray-tickets/"+ticket.String()+"/selections").JSON(map[string]any{"recipeIds": recipes}).Do().Status
}

// The day's alert follows the plan: it closes by itself when selections bring the day back
// within the limit or the limit rises above it, opens again (a new alert) when the limit falls
// below the day, and a member's resolving it holds until the day is within again.
func TestDayRiskResolvesWhenThePlanIsFixed(t *testing.T) {
	t.Parallel()
	h, _, r := renalDay(t)
	h.generate("lunch") // potato 500 + pudding 1,200 (kept as a conflict): the day 2,900 > 2,000
	if open := h.risks("open"); len(open) != 1 {
		t.Fatalf("open %+v", open)
	}
	lunch := h.nutrientTickets("lunch")[0]
	// The potato alone: 1,200 + 500 = 1,700 mg, within. The alert closes by itself.
	if c := h.selectRecipes(lunch.ID, r["potato"]); c != http.StatusOK {
		t.Fatalf("select potato: %d", c)
	}
	if open := h.risks("open"); len(open) != 0 {
		t.Fatalf("still open %+v", open)
	}
	if done := h.risks("resolved"); len(done) != 1 || done[0].ResolvedBy != nil {
		t.Fatalf("resolved %+v", done)
	}
	// Generating again keeps the selection: nothing opens.
	h.generate("lunch")
	if open := h.risks("open"); len(open) != 0 {
		t.Fatalf("regenerated %+v", open)
	}
	// The limit falls below the planned 1,700 mg: a new breach, a new alert.
	h.renalLimit("1500")
	open := h.risks("open")
	if len(open) != 1 || open[0].Message != "Patient in 5N 501-A: planned potassium 1700 mg is over the renal diet's 1500 mg a day on 2026-03-02; dietitian review due" {
		t.Fatalf("after lowering %+v", open)
	}
	// It rises again: the alert closes.
	h.renalLimit("2000")
	if open := h.risks("open"); len(open) != 0 || len(h.risks("resolved")) != 2 {
		t.Fatalf("after raising %+v", open)
	}
	// A member resolves the next one: while the day stays over, nothing opens again; once it is
	// within and breaks again, a new alert does.
	h.renalLimit("1500")
	open = h.risks("open")
	if len(open) != 1 {
		t.Fatalf("third %+v", open)
	}
	h.call(http.MethodPost, "alerts/"+open[0].ID.String()+"/resolve").Do().Expect(http.StatusOK)
	h.generate("lunch")
	h.renalLimit("1600")
	if open := h.risks("open"); len(open) != 0 {
		t.Fatalf("reopened while the breach went on %+v", open)
	}
	h.renalLimit("2000")
	h.renalLimit("1500")
	if open := h.risks("open"); len(open) != 1 || len(h.risks("resolved")) != 3 {
		t.Fatalf("after the day broke again %+v", open)
	}
	// The patient's ticket cancelled (NPO) takes the lunch out of the day: 1,200 mg, within.
	h.call(http.MethodPut, "clinical/diets/renal/rules").JSON(map[string]any{"npo": true, "limits": map[string]any{"nutrients": map[string]any{
		"potassiumMg": map[string]string{"max": "1500", "per": "day"}}}}).Do().Expect(http.StatusOK)
	h.generate("lunch")
	if open := h.risks("open"); len(open) != 0 {
		t.Fatalf("after the tray was cancelled %+v", open)
	}
}

// Changes to the same patient's day run one after another: of parallel selections that each
// fit the day as it stood but together break it, those on one ticket are taken and the others
// refused (nutrient_limit), so the planned day never goes over unseen; parallel changes that all
// leave the day over open exactly one alert.
func TestParallelDayChanges(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	r := map[string]uuid.UUID{
		"pudding": h.foodRecipe("Banana pudding", map[string]string{"potassiumMg": "1200"}, map[string]any{"iddsiLevel": 7}),
		"potato":  h.foodRecipe("Baked potato", map[string]string{"potassiumMg": "500"}, map[string]any{"iddsiLevel": 7}),
		"rice":    h.foodRecipe("Plain rice", map[string]string{"potassiumMg": "30"}, map[string]any{"iddsiLevel": 7}),
	}
	h.dayMenu([]uuid.UUID{r["rice"], r["pudding"]}, []uuid.UUID{r["potato"], r["pudding"], r["rice"]})
	h.renalLimit("2000")
	patient := h.patient("R1", "renal")
	h.generate("breakfast")
	h.generate("lunch")
	breakfast, lunch := h.nutrientTickets("breakfast")[0], h.nutrientTickets("lunch")[0]
	// Breakfast rice (30 mg), lunch potato (500 mg): the day 530 mg, and the alert closed.
	if h.selectRecipes(breakfast.ID, r["rice"]) != http.StatusOK || h.selectRecipes(lunch.ID, r["potato"]) != http.StatusOK {
		t.Fatal("setting up the day")
	}
	if open := h.risks("open"); len(open) != 0 {
		t.Fatalf("open %+v", open)
	}
	// Pudding at breakfast (1,700 mg) or at lunch (1,230 mg) fits; both (2,400 mg) do not.
	const n = 8
	codes := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ticket := breakfast.ID
			if i%2 == 1 {
				ticket = lunch.ID
			}
			codes[i] = h.call(http.MethodPut, "tray-tickets/"+ticket.String()+"/selections").JSON(map[string]any{"recipeIds": []uuid.UUID{r["pudding"]}}).
				Do().Status
		}()
	}
	wg.Wait()
	took := map[bool]int{}
	for i, c := range codes {
		switch c {
		case http.StatusOK:
			took[i%2 == 1]++
		case http.StatusBadRequest:
		default:
			t.Fatalf("selection %d: %d", i, c)
		}
	}
	if len(took) != 1 || (took[false] != n/2 && took[true] != n/2) {
		t.Fatalf("taken %v of %v", took, codes)
	}
	day := h.nutrientTickets("lunch")[0].DaySoFar["potassiumMg"].Value
	if day != "1700" && day != "1230" {
		t.Fatalf("the day %s", day)
	}
	if open := h.risks("open"); len(open) != 0 {
		t.Fatalf("open %+v", open)
	}
	// Parallel changes that all put the day over its limit (the limit lowered below it by n
	// requests at once) open one alert.
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.call(http.MethodPut, "clinical/diets/renal/rules").JSON(map[string]any{"limits": map[string]any{"nutrients": map[string]any{
				"potassiumMg": map[string]string{"max": []string{"1000", "1100"}[i%2], "per": "day"}}}}).Do().Expect(http.StatusOK)
		}()
	}
	wg.Wait()
	q := `SELECT count(*) FROM alerts WHERE org_id = $1 AND kind = 'nutrition_risk' AND subject_id = $2 AND cause = 'nutrient_limit' AND resolved_at IS NULL`
	if c := h.count(q, h.org, patient); c != 1 {
		t.Fatalf("%d open alerts", c)
	}
	if c := h.count(`SELECT count(*) FROM nutrient_day_breaches WHERE org_id = $1`, h.org); c != 1 {
		t.Fatalf("%d breaches", c)
	}
}

// Everything that plans or judges a patient's day takes the day's lock before it reads the day:
// while another transaction holds that lock the request waits on it (a session of the server is
// seen waiting on an advisory lock), and it answers once the lock is let go.
// TestParallelDayChanges shows what the lock is for; this shows each path takes it, which
// parallel requests alone cannot prove on a machine that happens to run them one at a time.
func TestDayChangesWaitForThePatientsDay(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	ctx := t.Context()
	rice := h.foodRecipe("Plain rice", map[string]string{"potassiumMg": "30"}, map[string]any{"iddsiLevel": 7})
	h.dayMenu([]uuid.UUID{rice}, []uuid.UUID{rice})
	h.renalLimit("2000")
	patient := h.patient("R1", "renal")
	h.generate("breakfast")
	breakfast := h.nutrientTickets("breakfast")[0]
	// The key internal/trayline/risk.go (lockDays) takes for the patient's day.
	key := "trayday:" + h.org.String() + ":" + patient.String() + ":2026-03-02"

	for _, c := range []struct {
		name string
		do   func() int
	}{
		{"a selection", func() int { return h.selectRecipes(breakfast.ID, rice) }},
		{"a generation", func() int {
			return h.call(http.MethodPost, "tray-tickets/generate").JSON(map[string]any{"siteId": h.site, "date": "2026-03-02", "dayPart": "lunch"}).Do().Status
		}},
		{"a diet's new limit", func() int {
			return h.call(http.MethodPut, "clinical/diets/renal/rules").JSON(map[string]any{"limits": map[string]any{"nutrients": map[string]any{
				"potassiumMg": map[string]string{"max": "1900", "per": "day"}}}}).Do().Status
		}},
	} {
		tx, err := h.env.Pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", key); err != nil {
			t.Fatal(err)
		}
		done := make(chan int, 1)
		go func() { done <- c.do() }()
		// Until a session of the server waits on an advisory lock, the request must not answer.
		for waiting := 0; waiting == 0; {
			select {
			case code := <-done:
				_ = tx.Rollback(ctx)
				t.Fatalf("%s answered %d while the patient's day was locked", c.name, code)
			default:
			}
			if err := h.env.Pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
				WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'`).Scan(&waiting); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		if code := <-done; code != http.StatusOK {
			t.Fatalf("%s answered %d once the day was let go", c.name, code)
		}
	}
}
