package kitchen_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

type menuItem struct {
	Week             int       `json:"week,omitempty"`
	Weekday          int       `json:"weekday,omitempty"`
	DayPart          string    `json:"dayPart"`
	RecipeID         uuid.UUID `json:"recipeId"`
	RecipeName       string    `json:"recipeName,omitempty"`
	PortionsPerCover string    `json:"portionsPerCover"`
}

type effective struct {
	MenuID *uuid.UUID `json:"menuId"`
	Source string     `json:"source"`
	Week   *int       `json:"week"`
	Items  []menuItem `json:"items"`
}

type run struct {
	ID            uuid.UUID `json:"id"`
	DayPart       *string   `json:"dayPart"`
	RecipeID      uuid.UUID `json:"recipeId"`
	RecipeName    string    `json:"recipeName"`
	RecipeVersion int       `json:"recipeVersion"`
	Station       *string   `json:"station"`
	Status        string    `json:"status"`
	Source        string    `json:"source"`
	Portions      *string   `json:"portions"`
	Quantity      string    `json:"quantity"`
	Unit          string    `json:"unit"`
	Batches       int       `json:"batches"`
	Explain       struct {
		Covers           *int    `json:"covers"`
		PortionsPerCover *string `json:"portionsPerCover"`
		ForecastPortions *string `json:"forecastPortions"`
		Portions         string  `json:"portions"`
		ScaleFactor      string  `json:"scaleFactor"`
		Batches          int     `json:"batches"`
		BatchQuantity    string  `json:"batchQuantity"`
		RaisedToMin      bool    `json:"raisedToMinBatch"`
	} `json:"explain"`
}

type generated struct {
	Created, Updated, Unchanged, Removed int
	Runs                                 []run
}

func (k *kitchen) menu(items ...menuItem) uuid.UUID {
	k.t.Helper()
	var m struct {
		ID uuid.UUID `json:"id"`
	}
	k.call(http.MethodPost, "menus").JSON(map[string]any{"siteId": k.site, "name": "Spring", "startsOn": "2026-03-02", "cycleWeeks": 2, "items": items}).
		Do().Expect(http.StatusCreated).Decode(&m)
	return m.ID
}

func (k *kitchen) forecast(date, part string, covers int, items ...map[string]any) *apitest.Response {
	body := map[string]any{"siteId": k.site, "date": date, "dayPart": part, "covers": covers}
	if items != nil {
		body["items"] = items
	}
	return k.call(http.MethodPost, "forecasts").JSON(body).Do()
}

func (k *kitchen) generate(date string) generated {
	k.t.Helper()
	var g generated
	k.call(http.MethodPost, "production-runs/generate").JSON(map[string]any{"siteId": k.site, "date": date}).Do().Expect(http.StatusOK).Decode(&g)
	return g
}

func TestMenusResolveOverrideOverCycle(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	p := k.pie()
	soup := k.recipe(recipeBody("Soup", amount{"10", "l"}, amount{"250", "ml"}))
	menuID := k.menu(
		menuItem{Week: 1, Weekday: 1, DayPart: "Lunch", RecipeID: p.pie.ID, PortionsPerCover: "0.4"},
		menuItem{Week: 2, Weekday: 1, DayPart: "lunch", RecipeID: soup.ID, PortionsPerCover: "0.5"},
	)
	var e effective
	// Monday 2 March is week 1; Monday 9 March week 2; Monday 16 March week 1 again.
	for date, want := range map[string]string{"2026-03-02": "Chicken pot pie", "2026-03-09": "Soup", "2026-03-16": "Chicken pot pie"} {
		e = effective{}
		k.call(http.MethodGet, "menus/effective?siteId="+k.site.String()+"&date="+date+"&dayPart=lunch").Do().Expect(http.StatusOK).Decode(&e)
		if e.Source != "cycle" || len(e.Items) != 1 || e.Items[0].RecipeName != want || e.Items[0].DayPart != "lunch" {
			t.Fatalf("%s: %+v, want %s", date, e, want)
		}
	}
	// An override replaces the date's items.
	k.call(http.MethodPut, "menus/"+menuID.String()+"/dates/2026-03-16").JSON(map[string]any{"items": []menuItem{{DayPart: "dinner", RecipeID: soup.ID, PortionsPerCover: "1"}}}).
		Do().Expect(http.StatusOK)
	e = effective{}
	k.call(http.MethodGet, "menus/effective?siteId="+k.site.String()+"&date=2026-03-16").Do().Expect(http.StatusOK).Decode(&e)
	if e.Source != "override" || len(e.Items) != 1 || e.Items[0].DayPart != "dinner" {
		t.Fatalf("override %+v", e)
	}
	// A later menu takes over from its start; before any menu, none.
	k.call(http.MethodPost, "menus").JSON(map[string]any{"siteId": k.site, "name": "Summer", "startsOn": "2026-06-01", "cycleWeeks": 1,
		"items": []menuItem{{Week: 1, Weekday: 1, DayPart: "lunch", RecipeID: soup.ID, PortionsPerCover: "1"}}}).Do().Expect(http.StatusCreated)
	e = effective{}
	k.call(http.MethodGet, "menus/effective?siteId="+k.site.String()+"&date=2026-06-01").Do().Expect(http.StatusOK).Decode(&e)
	if len(e.Items) != 1 || e.Items[0].RecipeName != "Soup" || e.MenuID == nil || *e.MenuID == menuID {
		t.Fatalf("summer %+v", e)
	}
	e = effective{}
	k.call(http.MethodGet, "menus/effective?siteId="+k.site.String()+"&date=2026-01-01").Do().Expect(http.StatusOK).Decode(&e)
	if e.Source != "none" || len(e.Items) != 0 {
		t.Fatalf("before %+v", e)
	}
	// Unknown day part, week beyond the cycle: 400.
	k.call(http.MethodPost, "menus").JSON(map[string]any{"siteId": k.site, "name": "X", "startsOn": "2026-03-02", "cycleWeeks": 1,
		"items": []menuItem{{Week: 1, Weekday: 1, DayPart: "brunch", RecipeID: soup.ID, PortionsPerCover: "1"}}}).Do().ExpectError(http.StatusBadRequest, "")
	k.call(http.MethodPost, "menus").JSON(map[string]any{"siteId": k.site, "name": "X", "startsOn": "2026-03-02", "cycleWeeks": 1,
		"items": []menuItem{{Week: 2, Weekday: 1, DayPart: "lunch", RecipeID: soup.ID, PortionsPerCover: "1"}}}).Do().ExpectError(http.StatusBadRequest, "")
	var menus []struct {
		ID        uuid.UUID `json:"id"`
		Overrides []any     `json:"overrides"`
	}
	k.call(http.MethodGet, "menus?siteId="+k.site.String()).Do().Expect(http.StatusOK).Decode(&menus)
	if len(menus) != 2 {
		t.Fatalf("menus %+v", menus)
	}
}

func TestForecasts(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	p := k.pie()
	var f struct {
		ID     uuid.UUID `json:"id"`
		Covers int       `json:"covers"`
	}
	k.forecast("2026-03-02", "lunch", 120).Expect(http.StatusOK).Decode(&f)
	first := f.ID
	k.forecast("2026-03-02", "Lunch", 150, map[string]any{"recipeId": p.pie.ID, "portions": "40"}).Expect(http.StatusOK).Decode(&f)
	if f.ID != first || f.Covers != 150 {
		t.Fatalf("upsert %+v", f)
	}
	// Breakfast (06:00 Chicago) starts at 12:00 UTC: at 11:59 still open, at 12:00 started.
	k.env.Clock.Set(time.Date(2026, 3, 2, 11, 59, 0, 0, time.UTC))
	k.owner = k.env.SignIn(k.owner.User.Email)
	k.forecast("2026-03-02", "breakfast", 10).Expect(http.StatusOK)
	k.env.Clock.Set(time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC))
	k.forecast("2026-03-02", "breakfast", 12).ExpectCode(http.StatusConflict, "conflict")
	n := k.count("forecasts")
	k.forecast("2026-03-03", "brunch", 10).ExpectError(http.StatusBadRequest, "")
	k.forecast("2026-03-03", "lunch", -1).ExpectError(http.StatusBadRequest, "")
	k.forecast("2026-03-03", "lunch", 1, map[string]any{"recipeId": uuid.New(), "portions": "1"}).ExpectError(http.StatusBadRequest, "")
	if k.count("forecasts") != n {
		t.Fatal("a refused forecast was written")
	}
	var list []struct {
		DayPart string `json:"dayPart"`
	}
	k.call(http.MethodGet, "forecasts?siteId="+k.site.String()+"&from=2026-03-02&to=2026-03-02&dayPart=lunch").Do().Expect(http.StatusOK).Decode(&list)
	if len(list) != 1 || list[0].DayPart != "lunch" {
		t.Fatalf("list %+v", list)
	}
}

func TestGenerateIsIdempotentAndExplains(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	p := k.pie()
	soup := k.recipe(recipeBody("Soup", amount{"10", "l"}, amount{"250", "ml"}))
	menuID := k.menu(
		menuItem{Week: 1, Weekday: 2, DayPart: "lunch", RecipeID: p.pie.ID, PortionsPerCover: "0.4"},
		menuItem{Week: 1, Weekday: 2, DayPart: "lunch", RecipeID: soup.ID, PortionsPerCover: "0.5"},
		menuItem{Week: 1, Weekday: 2, DayPart: "dinner", RecipeID: p.pie.ID, PortionsPerCover: "0.25"},
	)
	k.forecast("2026-03-03", "lunch", 120, map[string]any{"recipeId": soup.ID, "portions": "30"}).Expect(http.StatusOK)
	k.forecast("2026-03-03", "dinner", 200).Expect(http.StatusOK)
	g := k.generate("2026-03-03")
	if g.Created != 3 || len(g.Runs) != 3 {
		t.Fatalf("generated %+v", g)
	}
	byKey := map[string]run{}
	for _, r := range g.Runs {
		byKey[*r.DayPart+"/"+r.RecipeName] = r
	}
	// Lunch pie: 120 × 0.4 = 48 portions × 300 g = 14.4 kg of a 12 kg yield: factor 1.2, one batch.
	lp := byKey["lunch/Chicken pot pie"]
	if lp.Quantity != "14.4" || lp.Unit != "kg" || lp.Batches != 1 || lp.Explain.ScaleFactor != "1.2" || *lp.Explain.Covers != 120 ||
		*lp.Explain.PortionsPerCover != "0.4" || lp.Explain.Portions != "48" || *lp.Station != "hot line" || lp.RecipeVersion != 1 {
		t.Fatalf("lunch pie %+v", lp)
	}
	// The forecast's 30 portions of soup win over covers × 0.5.
	if s := byKey["lunch/Soup"]; s.Explain.ForecastPortions == nil || *s.Explain.ForecastPortions != "30" || s.Quantity != "7.5" {
		t.Fatalf("soup %+v", s)
	}
	// Dinner pie: 50 portions = 15 kg; max batch 20: one batch.
	if d := byKey["dinner/Chicken pot pie"]; d.Quantity != "15" || d.Batches != 1 {
		t.Fatalf("dinner %+v", d)
	}
	// Again: nothing changes.
	if g2 := k.generate("2026-03-03"); g2.Created != 0 || g2.Unchanged != 3 || g2.Updated != 0 || g2.Removed != 0 {
		t.Fatalf("again %+v", g2)
	}
	// More covers at dinner: 400 × 0.25 = 100 portions = 30 kg, two batches of 15 kg; lunch pie started.
	k.call(http.MethodPost, "production-runs/"+lp.ID.String()+"/status").JSON(map[string]string{"status": "prepped"}).Do().Expect(http.StatusOK)
	k.forecast("2026-03-03", "dinner", 400).Expect(http.StatusOK)
	k.forecast("2026-03-03", "lunch", 500, map[string]any{"recipeId": soup.ID, "portions": "30"}).Expect(http.StatusOK)
	g3 := k.generate("2026-03-03")
	// Dinner is replanned; the soup's explain names the new covers (its portions stay 30).
	if g3.Updated != 2 || g3.Unchanged != 1 || g3.Created != 0 {
		t.Fatalf("third %+v", g3)
	}
	for _, r := range g3.Runs {
		if *r.DayPart == "dinner" && (r.Quantity != "30" || r.Batches != 2 || r.Explain.BatchQuantity != "15") {
			t.Fatalf("dinner replanned %+v", r)
		}
		if r.ID == lp.ID && (r.Quantity != "14.4" || r.Status != "prepped") {
			t.Fatalf("a started run was touched: %+v", r)
		}
	}
	// The soup leaves the menu: its planned run goes; the started pie stays even if it left too.
	k.call(http.MethodPut, "menus/"+menuID.String()+"/dates/2026-03-03").JSON(map[string]any{"items": []menuItem{{DayPart: "dinner", RecipeID: p.pie.ID, PortionsPerCover: "0.25"}}}).
		Do().Expect(http.StatusOK)
	g4 := k.generate("2026-03-03")
	if g4.Removed != 1 || len(g4.Runs) != 2 {
		t.Fatalf("fourth %+v", g4)
	}
	var runs []run
	k.call(http.MethodGet, "production-runs?siteId="+k.site.String()+"&date=2026-03-03&status=prepped").Do().Expect(http.StatusOK).Decode(&runs)
	if len(runs) != 1 || runs[0].ID != lp.ID {
		t.Fatalf("prepped %+v", runs)
	}
}

func TestAdHocRunAndCard(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	p := k.pie()
	var r run
	// 2 portions = 600 g: below the 3 kg minimum batch, raised to it.
	k.call(http.MethodPost, "production-runs").JSON(map[string]any{"siteId": k.site, "date": "2026-03-02", "recipeId": p.pie.ID, "portions": "2"}).
		Do().Expect(http.StatusCreated).Decode(&r)
	if r.Source != "ad_hoc" || r.Quantity != "3" || !r.Explain.RaisedToMin || r.Status != "planned" {
		t.Fatalf("ad hoc %+v", r)
	}
	var card struct {
		Quantity, BatchQuantity, ScaleFactor string
		Batches                              int
		RaisedToMinBatch                     bool
		Note                                 *string
		Lines                                []struct {
			Name, Quantity, BatchQuantity, Unit, Display string
			AsPurchased                                  *string
		}
		SubRecipes []struct {
			Name, Quantity, Unit, ScaleFactor string
			Lines                             []struct{ Name, Quantity, Unit, Display string }
		}
		Contains, MayContain []string
		Allergens            map[string]string
		CriticalLimits       map[string]string
		UseBy                *time.Time
	}
	k.call(http.MethodGet, "production-runs/"+r.ID.String()+"/card").Do().Expect(http.StatusOK).Decode(&card)
	// Factor 3/12 = 0.25: chicken 1.25 kg EP (1.5625 kg as purchased), velouté 1 l (its own
	// section at factor 0.25: butter 50 g, flour 0.125 lb).
	if card.ScaleFactor != "0.25" || !card.RaisedToMinBatch || card.Note == nil || !strings.Contains(*card.Note, "minimum batch") ||
		card.Lines[0].Quantity != "1.25" || *card.Lines[0].AsPurchased != "1.5625" || card.Lines[0].Display != "1.25 kg" ||
		card.Lines[1].Quantity != "1" || card.Lines[1].Unit != "l" {
		t.Fatalf("card %+v", card)
	}
	if len(card.SubRecipes) != 1 || card.SubRecipes[0].ScaleFactor != "0.25" || card.SubRecipes[0].Lines[0].Quantity != "50" ||
		card.SubRecipes[0].Lines[1].Quantity != "0.125" || card.SubRecipes[0].Lines[1].Display != "2 oz" && card.SubRecipes[0].Lines[1].Display != "0.125 lb" {
		t.Fatalf("sections %+v", card.SubRecipes)
	}
	if strings.Join(card.Contains, ",") != "gluten,milk,wheat" || strings.Join(card.MayContain, ",") != "egg,mustard" || card.CriticalLimits["cookMinTempF"] != "165" || card.UseBy != nil {
		t.Fatalf("card allergens %+v", card)
	}
	// 100 portions = 30 kg: two batches of 15 kg; the card shows one batch for the cook.
	k.call(http.MethodPost, "production-runs").JSON(map[string]any{"siteId": k.site, "date": "2026-03-02", "recipeId": p.pie.ID, "quantity": "30", "unit": "kg"}).
		Do().Expect(http.StatusCreated).Decode(&r)
	card.Lines = nil
	k.call(http.MethodGet, "production-runs/"+r.ID.String()+"/card").Do().Expect(http.StatusOK).Decode(&card)
	if card.Batches != 2 || card.BatchQuantity != "15" || card.Lines[0].Quantity != "12.5" || card.Lines[0].BatchQuantity != "6.25" || card.Lines[0].Display != "6.25 kg" {
		t.Fatalf("batched card %+v", card)
	}
	// Editing the recipe does not rewrite the run: it keeps version 1.
	k.call(http.MethodPut, "recipes/"+p.pie.ID.String()).JSON(recipeBody("Pie v2", amount{"6", "kg"}, amount{"300", "g"}, itemLine(p.chicken, "1", "kg"))).Do().Expect(http.StatusOK)
	card.Lines = nil
	k.call(http.MethodGet, "production-runs/"+r.ID.String()+"/card").Do().Expect(http.StatusOK).Decode(&card)
	if len(card.Lines) != 2 || card.Quantity != "30" {
		t.Fatalf("pinned card %+v", card)
	}
	// Both portions and a quantity, neither, an unknown recipe: 400.
	k.call(http.MethodPost, "production-runs").JSON(map[string]any{"siteId": k.site, "date": "2026-03-02", "recipeId": p.pie.ID, "portions": "2", "quantity": "1", "unit": "kg"}).Do().ExpectError(http.StatusBadRequest, "")
	k.call(http.MethodPost, "production-runs").JSON(map[string]any{"siteId": k.site, "date": "2026-03-02", "recipeId": p.pie.ID}).Do().ExpectError(http.StatusBadRequest, "")
	k.call(http.MethodPost, "production-runs").JSON(map[string]any{"siteId": k.site, "date": "2026-03-02", "recipeId": uuid.New(), "portions": "1"}).Do().ExpectError(http.StatusBadRequest, "")
	k.call(http.MethodPost, "production-runs").JSON(map[string]any{"siteId": k.site, "date": "2026-03-02", "recipeId": p.pie.ID, "quantity": "1", "unit": "l"}).Do().ExpectError(http.StatusBadRequest, "")
}

func TestStatusMovesForwardOnlyAndOnce(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	p := k.pie()
	var r run
	k.call(http.MethodPost, "production-runs").JSON(map[string]any{"siteId": k.site, "date": "2026-03-02", "recipeId": p.pie.ID, "portions": "40"}).
		Do().Expect(http.StatusCreated).Decode(&r)
	// N parallel moves to in_progress: exactly one wins, the rest find it there (409).
	const n = 8
	var wg sync.WaitGroup
	codes := make(chan int, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes <- k.call(http.MethodPost, "production-runs/"+r.ID.String()+"/status").JSON(map[string]string{"status": "in_progress"}).Do().Status
		}()
	}
	wg.Wait()
	close(codes)
	won := 0
	for c := range codes {
		switch c {
		case http.StatusOK:
			won++
		case http.StatusConflict:
		default:
			t.Fatalf("status %d", c)
		}
	}
	if won != 1 {
		t.Fatalf("%d winners", won)
	}
	var events []struct {
		Type string         `json:"type"`
		Data map[string]any `json:"data"`
	}
	k.call(http.MethodGet, "production-runs/"+r.ID.String()+"/events").Do().Expect(http.StatusOK).Decode(&events)
	if len(events) != 1 || events[0].Type != "status" || events[0].Data["to"] != "in_progress" {
		t.Fatalf("events %+v", events)
	}
	k.call(http.MethodPost, "production-runs/"+r.ID.String()+"/status").JSON(map[string]string{"status": "prepped"}).Do().ExpectCode(http.StatusConflict, "conflict")
	// Skipping holding is allowed; done is final and records the theoretical usage.
	k.call(http.MethodPost, "production-runs/"+r.ID.String()+"/status").JSON(map[string]string{"status": "done"}).Do().Expect(http.StatusOK)
	k.call(http.MethodPost, "production-runs/"+r.ID.String()+"/status").JSON(map[string]string{"status": "done"}).Do().ExpectCode(http.StatusConflict, "conflict")
	// 40 portions = 12 kg = the yield: chicken 6.25 kg as purchased, butter 0.2 kg, flour 0.5 lb.
	rows, err := k.env.Pool.Query(k.t.Context(), `SELECT item_id, quantity_base::text, cost_cents FROM production_usage WHERE run_id = $1`, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[uuid.UUID]string{}
	var total int64
	for rows.Next() {
		var id uuid.UUID
		var q string
		var c *int64
		if err := rows.Scan(&id, &q, &c); err != nil {
			t.Fatal(err)
		}
		got[id] = strings.TrimRight(strings.TrimRight(q, "0"), ".")
		if c != nil {
			total += *c
		}
	}
	if got[p.chicken] != "6.25" || got[p.butter] != "0.2" || got[p.flour] != "0.5" || total != 7710 {
		t.Fatalf("usage %v total %d", got, total)
	}
}

func TestEventsAlertsAndHandoff(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	p := k.pie()
	var r run
	k.call(http.MethodPost, "production-runs").JSON(map[string]any{"siteId": k.site, "date": "2026-03-02", "recipeId": p.pie.ID, "portions": "40"}).
		Do().Expect(http.StatusCreated).Decode(&r)
	path := "production-runs/" + r.ID.String()
	status := func(s string) {
		k.call(http.MethodPost, path+"/status").JSON(map[string]string{"status": s}).Do().Expect(http.StatusOK)
	}
	temp := func(f string) {
		k.call(http.MethodPost, path+"/events").JSON(map[string]any{"type": "temp_check", "tempF": f, "probe": "P-1"}).Do().Expect(http.StatusOK)
	}
	alerts := func() []struct{ Kind, Message string } {
		var out []struct{ Kind, Message string }
		k.call(http.MethodGet, "alerts").Do().Expect(http.StatusOK).Decode(&out)
		return out
	}
	status("in_progress")
	temp("170")
	if len(alerts()) != 0 {
		t.Fatal("an alert for a good temperature")
	}
	status("holding")
	temp("128")
	a := alerts()
	if len(a) != 1 || a[0].Kind != "temperature_excursion" || !strings.Contains(a[0].Message, "hot-hold minimum of 135") {
		t.Fatalf("alerts %+v", a)
	}
	k.call(http.MethodPost, path+"/events").JSON(map[string]any{"type": "portioned", "portions": "38"}).Do().Expect(http.StatusOK)
	k.call(http.MethodPost, path+"/events").JSON(map[string]any{"type": "note", "text": "Topped up gravy"}).Do().Expect(http.StatusOK)
	k.call(http.MethodPost, path+"/events").JSON(map[string]any{"type": "temp_check"}).Do().ExpectError(http.StatusBadRequest, "tempF")
	k.call(http.MethodPost, path+"/events").JSON(map[string]any{"type": "waste", "quantity": "1.5", "reason": "overproduction"}).Do().Expect(http.StatusOK)
	k.call(http.MethodPost, path+"/events").JSON(map[string]any{"type": "waste", "quantity": "0.25", "reason": "pan dropped at the pass"}).Do().Expect(http.StatusOK)
	// Each is a waste log of the run's output, in the run's unit, valued at the run's cost in
	// proportion (40 portions = 12 kg cost 7,710 cents), and moves no stock.
	var logs []struct {
		RunID      *uuid.UUID `json:"runId"`
		RecipeName *string    `json:"recipeName"`
		ItemID     *uuid.UUID `json:"itemId"`
		LocationID *uuid.UUID `json:"locationId"`
		Quantity   string     `json:"quantity"`
		Unit       string     `json:"unit"`
		Reason     string     `json:"reason"`
		Note       *string    `json:"note"`
		ValueCents int64      `json:"valueCents"`
		TxnIDs     []string   `json:"txnIds"`
	}
	k.call(http.MethodGet, "waste-logs?siteId="+k.site.String()+"&runId="+r.ID.String()).Do().Expect(http.StatusOK).Decode(&logs)
	if len(logs) != 2 {
		t.Fatalf("waste logs %+v", logs)
	}
	dropped, over := logs[0], logs[1] // newest first
	for _, l := range logs {
		if l.RunID == nil || *l.RunID != r.ID || l.RecipeName == nil || *l.RecipeName != r.RecipeName || l.ItemID != nil ||
			l.LocationID != nil || l.Unit != "kg" || len(l.TxnIDs) != 0 {
			t.Fatalf("run waste log %+v", l)
		}
	}
	// 7,710 × 1.5 / 12 = 963.75 → 964; 7,710 × 0.25 / 12 = 160.625 → 161.
	if over.Quantity != "1.5" || over.Reason != "overproduction" || over.ValueCents != 964 {
		t.Fatalf("overproduction log %+v", over)
	}
	if dropped.Quantity != "0.25" || dropped.Reason != "other" || dropped.Note == nil || *dropped.Note != "pan dropped at the pass" || dropped.ValueCents != 161 {
		t.Fatalf("dropped log %+v", dropped)
	}

	// Handoff to expo.
	var h run
	k.call(http.MethodPost, path+"/handoff").JSON(map[string]any{"station": "expo", "note": "Tray 4"}).Do().Expect(http.StatusOK).Decode(&h)
	if h.Station == nil || *h.Station != "expo" {
		t.Fatalf("handoff %+v", h)
	}

	// Cooling after service: resolve the hot-hold alert, finish, and cool too slowly.
	if _, err := k.env.Pool.Exec(k.t.Context(), `UPDATE alerts SET resolved_at = now() WHERE org_id = $1`, k.org); err != nil {
		t.Fatal(err)
	}
	status("done")
	temp("135")
	k.env.Clock.Advance(150 * time.Minute)
	k.owner = k.env.SignIn(k.owner.User.Email)
	temp("80")
	a = alerts()
	if len(a) != 1 || !strings.Contains(a[0].Message, "stage 1") {
		t.Fatalf("cooling alerts %+v", a)
	}
	// Each opening announced alert.created to webhook subscribers.
	var created int
	if err := k.env.Pool.QueryRow(t.Context(), `SELECT count(*) FROM events WHERE org_id = $1 AND name = 'alert.created' AND data->>'kind' = 'temperature_excursion'`, k.org).Scan(&created); err != nil || created != 2 {
		t.Fatalf("alert.created events: %d %v", created, err)
	}
	var events []struct{ Type string }
	k.call(http.MethodGet, path+"/events").Do().Expect(http.StatusOK).Decode(&events)
	if len(events) != 12 {
		t.Fatalf("%d events: %+v", len(events), events)
	}
	k.call(http.MethodPost, path+"/handoff").JSON(map[string]any{"station": "expo"}).Do().ExpectCode(http.StatusConflict, "conflict")
}

func TestRolesAndSiteScope(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	p := k.pie()
	var r run
	k.call(http.MethodPost, "production-runs").JSON(map[string]any{"siteId": k.site, "date": "2026-03-02", "recipeId": p.pie.ID, "portions": "40"}).
		Do().Expect(http.StatusCreated).Decode(&r)
	staff := k.env.Member(k.org, "inspector")
	viewer := k.env.Member(k.org, "viewer")
	other := k.env.Site(k.owner.AccessToken, k.org, "Pastry")
	elsewhere := k.env.Member(k.org, "manager", other)
	// Staff operate the kitchen but do not plan it.
	k.as(staff, http.MethodPost, "production-runs/"+r.ID.String()+"/status").JSON(map[string]string{"status": "prepped"}).Do().Expect(http.StatusOK)
	k.as(staff, http.MethodPost, "production-runs/"+r.ID.String()+"/events").JSON(map[string]any{"type": "note", "text": "ok"}).Do().Expect(http.StatusOK)
	k.as(staff, http.MethodPost, "recipes").JSON(recipeBody("X", amount{"1", "kg"}, amount{"1", "g"})).Do().ExpectError(http.StatusForbidden, "")
	k.as(staff, http.MethodPost, "production-runs/generate").JSON(map[string]any{"siteId": k.site, "date": "2026-03-03"}).Do().ExpectError(http.StatusForbidden, "")
	// Viewers read.
	k.as(viewer, http.MethodGet, "production-runs/"+r.ID.String()+"/card").Do().Expect(http.StatusOK)
	k.as(viewer, http.MethodPost, "production-runs/"+r.ID.String()+"/status").JSON(map[string]string{"status": "done"}).Do().ExpectError(http.StatusForbidden, "")
	// A manager of another site does not find this site's run, and cannot plan here.
	k.as(elsewhere, http.MethodGet, "production-runs/"+r.ID.String()).Do().ExpectError(http.StatusNotFound, "Production run not found")
	k.as(elsewhere, http.MethodPost, "production-runs/"+r.ID.String()+"/status").JSON(map[string]string{"status": "done"}).Do().ExpectError(http.StatusNotFound, "")
	k.as(elsewhere, http.MethodPost, "production-runs").JSON(map[string]any{"siteId": k.site, "date": "2026-03-02", "recipeId": p.pie.ID, "portions": "1"}).
		Do().ExpectError(http.StatusNotFound, "Site not found")
	var list []run
	k.as(elsewhere, http.MethodGet, "production-runs").Do().Expect(http.StatusOK).Decode(&list)
	if len(list) != 0 {
		t.Fatalf("another site's runs: %+v", list)
	}
	// Audit rows name the site of each write.
	var n int
	if err := k.env.Pool.QueryRow(t.Context(), `SELECT count(*) FROM audit_log WHERE org_id = $1 AND site_id = $2 AND action = 'setProductionRunStatus'`, k.org, k.site).Scan(&n); err != nil || n != 1 {
		t.Fatalf("audit rows %d %v", n, err)
	}
}
