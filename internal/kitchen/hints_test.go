package kitchen_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// Every kitchen write that changes what a screen shows hints the site's screens on their sockets.
func TestKitchenWritesHintTheScreens(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	p := k.pie()
	_, token := k.env.PairDevice(k.owner.AccessToken, k.org, k.site, "wallboard_boh")
	select {
	case <-k.env.Hub.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("realtime hub not listening")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(k.env.URL, "http")+"/v1/board/ws?token="+token, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	hinted := func(what string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, _, err := conn.Read(ctx); err != nil {
			t.Fatalf("%s: no hint: %v", what, err)
		}
	}
	var r run
	k.call(http.MethodPost, "production-runs").JSON(map[string]any{"siteId": k.site, "date": "2026-03-02", "recipeId": p.pie.ID, "portions": "40"}).
		Do().Expect(http.StatusCreated).Decode(&r)
	hinted("ad-hoc run")
	k.call(http.MethodPost, "production-runs/"+r.ID.String()+"/status").JSON(map[string]string{"status": "in_progress"}).Do().Expect(http.StatusOK)
	hinted("status")
	k.call(http.MethodPost, "production-runs/"+r.ID.String()+"/events").JSON(map[string]any{"type": "temp_check", "tempF": "170"}).Do().Expect(http.StatusOK)
	hinted("event")
	k.call(http.MethodPost, "production-runs/"+r.ID.String()+"/handoff").JSON(map[string]any{"station": "expo"}).Do().Expect(http.StatusOK)
	hinted("handoff")
	k.menu(menuItem{Week: 1, Weekday: 1, DayPart: "lunch", RecipeID: p.pie.ID, PortionsPerCover: "1"})
	hinted("menu")
	k.generate("2026-03-02")
	hinted("generate")
	k.call(http.MethodPut, "recipes/"+p.veloute.ID.String()).JSON(recipeBody("Velouté", amount{"4", "l"}, amount{"100", "ml"}, itemLine(p.butter, "200", "g"))).Do().Expect(http.StatusOK)
	hinted("recipe")
}
