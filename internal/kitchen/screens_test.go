package kitchen_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"
)

type deviceState struct {
	Production []map[string]any `json:"production"`
	Handoffs   []map[string]any `json:"handoffs"`
	Cast       *struct {
		Type   string         `json:"type"`
		Recipe map[string]any `json:"recipe"`
	} `json:"cast"`
	Menu *struct {
		DayPart *struct{ Name string } `json:"dayPart"`
		Items   []map[string]any       `json:"items"`
	} `json:"menu"`
}

func (k *kitchen) state(token string) deviceState {
	k.t.Helper()
	var s deviceState
	k.env.Call(http.MethodGet, "device/state").DeviceToken(token).Do().Expect(http.StatusOK).Decode(&s)
	return s
}

func TestWallboardShowsProductionAndHandoffs(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	p := k.pie()
	boardID, board := k.env.PairDevice(k.owner.AccessToken, k.org, k.site, "wallboard_boh")
	_, expo := k.env.PairDevice(k.owner.AccessToken, k.org, k.site, "wallboard_boh")
	_ = boardID
	if s := k.state(board); len(s.Production) != 0 || len(s.Handoffs) != 0 {
		t.Fatalf("empty kitchen %+v", s)
	}
	runs := make([]run, 4)
	for i := range runs {
		k.call(http.MethodPost, "production-runs").JSON(map[string]any{"siteId": k.site, "date": "2026-03-02", "recipeId": p.pie.ID, "portions": "40"}).
			Do().Expect(http.StatusCreated).Decode(&runs[i])
	}
	move := func(r run, s string) {
		k.call(http.MethodPost, "production-runs/"+r.ID.String()+"/status").JSON(map[string]string{"status": s}).Do().Expect(http.StatusOK)
	}
	move(runs[1], "prepped")
	move(runs[2], "holding")
	move(runs[3], "done")
	s := k.state(board)
	if len(s.Production) != 2 {
		t.Fatalf("production %+v", s.Production)
	}
	for _, p := range s.Production {
		if p["recipe"] != "Chicken pot pie" || p["station"] != "hot line" || p["portions"] != "40" {
			t.Fatalf("timer %+v", p)
		}
		if p["status"] == "holding" && p["holdDeadline"] != "2026-03-02T13:00:00Z" {
			t.Fatalf("hold deadline %+v", p)
		}
	}
	// The expo board shows only its station: a handoff brings the run there.
	var dev struct {
		ID uuid.UUID `json:"id"`
	}
	var devices []struct {
		ID uuid.UUID `json:"id"`
	}
	k.call(http.MethodGet, "devices").Do().Expect(http.StatusOK).Decode(&devices)
	for _, d := range devices {
		if d.ID != boardID {
			dev.ID = d.ID
		}
	}
	k.call(http.MethodPut, "devices/"+dev.ID.String()).JSON(map[string]any{"name": "Expo", "config": map[string]any{"stations": []string{"expo"}}}).
		Do().Expect(http.StatusOK)
	if s := k.state(expo); len(s.Production) != 0 {
		t.Fatalf("expo before handoff %+v", s.Production)
	}
	k.call(http.MethodPost, "production-runs/"+runs[2].ID.String()+"/handoff").JSON(map[string]any{"station": "expo", "note": "Tray 4"}).Do().Expect(http.StatusOK)
	s = k.state(expo)
	if len(s.Production) != 1 || len(s.Handoffs) != 1 || s.Handoffs[0]["from"] != "hot line" || s.Handoffs[0]["note"] != "Tray 4" {
		t.Fatalf("expo after handoff %+v", s)
	}
}

func TestMenuBoardAndRecipeCast(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	p := k.pie()
	_, board := k.env.PairDevice(k.owner.AccessToken, k.org, k.site, "menu_board")
	// At 03:00 on Monday the next day part is breakfast.
	if s := k.state(board); s.Menu == nil || s.Menu.DayPart.Name != "breakfast" || len(s.Menu.Items) != 0 {
		t.Fatalf("no menu %+v", s.Menu)
	}
	price := 1295
	k.call(http.MethodPost, "menus").JSON(map[string]any{"siteId": k.site, "name": "Spring", "startsOn": "2026-03-02", "cycleWeeks": 1,
		"items": []map[string]any{{"week": 1, "weekday": 1, "dayPart": "breakfast", "recipeId": p.pie.ID, "portionsPerCover": "1", "priceCents": price}}}).
		Do().Expect(http.StatusCreated)
	s := k.state(board)
	if len(s.Menu.Items) != 1 || s.Menu.Items[0]["name"] != "Chicken pot pie" || s.Menu.Items[0]["priceCents"] != float64(price) {
		t.Fatalf("menu %+v", s.Menu.Items)
	}
	// Casting a recipe puts its card on the screen.
	deviceID, wall := k.env.PairDevice(k.owner.AccessToken, k.org, k.site, "wallboard_boh")
	k.call(http.MethodPost, "devices/"+deviceID.String()+"/cast").JSON(map[string]any{"type": "recipe", "recipeId": p.veloute.ID}).Do().Expect(http.StatusOK)
	c := k.state(wall).Cast
	if c == nil || c.Type != "recipe" || c.Recipe["name"] != "Velouté" || len(c.Recipe["ingredients"].([]any)) != 2 {
		t.Fatalf("cast %+v", c)
	}
	k.call(http.MethodPost, "recipes/"+p.veloute.ID.String()+"/archive").Do().Expect(http.StatusOK)
	k.call(http.MethodPost, "devices/"+deviceID.String()+"/cast").JSON(map[string]any{"type": "recipe", "recipeId": p.veloute.ID}).Do().ExpectError(http.StatusNotFound, "Recipe not found")
}
