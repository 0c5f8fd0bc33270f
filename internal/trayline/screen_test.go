package trayline_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/sous-app/sous/internal/trayline"
)

type deviceState struct {
	Trays []struct {
		TicketID  string   `json:"ticketId"`
		Status    string   `json:"status"`
		Room      string   `json:"room"`
		Bed       string   `json:"bed"`
		Conflict  bool     `json:"conflict"`
		Allergens []string `json:"allergens"`
		Items     []struct {
			Name  string `json:"name"`
			Check string `json:"check"`
		} `json:"items"`
		PatientName *string `json:"patientName"`
	} `json:"trays"`
	Alerts []struct {
		Kind string `json:"kind"`
	} `json:"alerts"`
}

// The tray-line screen shows the queue of the day part (names never), every ticket change hints
// it; a tray not delivered 45 minutes after the meal's start opens tray_late on the wallboards,
// and delivering it closes the alert.
func TestTrayLineScreenAndLateTrays(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	h.lunch()
	h.adt("A01", "1", "5001", "4W", "412", "A", al1Sesame, odsReg)
	h.adt("A01", "2", "5002", "3E", "301", "B", odsReg)
	screenID, screen := h.env.PairDevice(h.owner.AccessToken, h.org, h.site, "tray_line")
	_, board := h.env.PairDevice(h.owner.AccessToken, h.org, h.site, "wallboard_boh")
	select {
	case <-h.env.Hub.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("realtime hub not listening")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(h.env.URL, "http")+"/v1/board/ws?token="+screen, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	hinted := func(what string) {
		t.Helper()
		if _, _, err := conn.Read(ctx); err != nil {
			t.Fatalf("%s: no hint: %v", what, err)
		}
	}
	state := func(token string) deviceState {
		t.Helper()
		var s deviceState
		h.env.Call(http.MethodGet, "device/state").DeviceToken(token).Do().Expect(http.StatusOK).Decode(&s)
		return s
	}
	h.env.Clock.Advance(7*time.Hour + 30*time.Minute) // 10:30 local: lunch is next
	h.owner = h.env.SignIn(h.owner.User.Email)
	if s := state(screen); len(s.Trays) != 0 {
		t.Fatalf("trays before generation %+v", s.Trays)
	}
	h.generate("lunch")
	hinted("generate")
	s := state(screen)
	if len(s.Trays) != 2 || s.Trays[0].Room != "301" || s.Trays[1].Room != "412" || s.Trays[0].PatientName != nil {
		t.Fatalf("trays %+v", s.Trays)
	}
	if s.Trays[1].Items[0].Check != "substituted" || strings.Join(s.Trays[1].Allergens, ",") != "sesame" {
		t.Fatalf("sesame tray %+v", s.Trays[1])
	}
	first := h.byMRN("5002")
	h.status(h.owner, first.ID, "assembled").Expect(http.StatusOK)
	hinted("status")
	if s := state(screen); s.Trays[0].Status != "assembled" {
		t.Fatalf("after assembly %+v", s.Trays[0])
	}
	// A transfer hints the screen too.
	h.adt("A02", "3", "5001", "4W", "415", "A")
	hinted("transfer")

	// Lunch starts at 11:00 local; the clock is at 10:30.
	sweep := func() {
		t.Helper()
		if err := trayline.SweepLate(ctx, h.env.Pool, h.env.Clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	h.env.Clock.Advance(time.Hour + 14*time.Minute) // 11:44 local
	h.owner = h.env.SignIn(h.owner.User.Email)
	sweep()
	if n := h.count(`SELECT count(*) FROM alerts WHERE org_id = $1 AND kind = 'tray_late'`, h.org); n != 0 {
		t.Fatalf("%d late alerts at 44 minutes", n)
	}
	h.env.Clock.Advance(time.Minute)
	sweep()
	sweep() // once, however many sweeps
	if n := h.count(`SELECT count(*) FROM alerts WHERE org_id = $1 AND kind = 'tray_late' AND resolved_at IS NULL`, h.org); n != 2 {
		t.Fatalf("%d late alerts at 45 minutes", n)
	}
	kinds := 0
	for _, a := range state(board).Alerts {
		if a.Kind == "tray_late" {
			kinds++
		}
	}
	if kinds != 2 {
		t.Fatalf("wallboard alerts %+v", state(board).Alerts)
	}
	second := h.env.Member(h.org, "inspector")
	h.status(second, first.ID, "checked").Expect(http.StatusOK)
	h.status(second, first.ID, "delivered").Expect(http.StatusOK)
	if n := h.count(`SELECT count(*) FROM alerts WHERE org_id = $1 AND kind = 'tray_late' AND resolved_at IS NULL`, h.org); n != 1 {
		t.Fatalf("%d late alerts open after delivery", n)
	}

	// A screen configured for some units shows only their trays: 3E's (delivered, still listed) and
	// not 4W's.
	h.env.Call(http.MethodPut, "orgs/"+h.org.String()+"/devices/"+screenID.String()).Token(h.owner.AccessToken).
		JSON(map[string]any{"config": map[string]any{"units": []string{"3E"}}}).Do().Expect(http.StatusOK)
	if s := state(screen); len(s.Trays) != 1 || s.Trays[0].Room != "301" {
		t.Fatalf("trays of unit 3E %+v", s.Trays)
	}
	// The late tray's patient is discharged: generating again cancels the queued ticket, and its
	// tray_late closes.
	h.adt("A03", "4", "5001", "4W", "415", "A")
	h.generate("lunch")
	if n := h.count(`SELECT count(*) FROM alerts WHERE org_id = $1 AND kind = 'tray_late' AND resolved_at IS NULL`, h.org); n != 0 {
		t.Fatalf("%d late alerts open after the late ticket was cancelled", n)
	}
	if n := h.count(`SELECT count(*) FROM tray_tickets WHERE org_id = $1 AND status = 'cancelled'`, h.org); n != 1 {
		t.Fatalf("%d cancelled tickets", n)
	}
}
