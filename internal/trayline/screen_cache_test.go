package trayline_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// A screen's queue is kept between polls, per replica; every kind of ticket change shows on
// the next poll through either replica (the one that made the change and the other, whose
// copy was warm), and an unchanged queue answers 304 to its ETag.
func TestTrayLineScreenFollowsEveryChangeOnEveryReplica(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	f := h.lunch()
	h.adt("A01", "1", "6001", "4W", "412", "A", odsReg)
	h.adt("A01", "2", "6002", "3E", "301", "B", odsReg)
	_, screen := h.env.PairDevice(h.owner.AccessToken, h.org, h.site, "tray_line")
	h.env.Clock.Advance(7*time.Hour + 30*time.Minute) // 10:30 local: lunch is next
	h.owner = h.env.SignIn(h.owner.User.Email)
	replica := h.env.Replica()
	replicas := map[string]*apitest.Env{"primary": h.env, "replica": replica}

	// poll reads the state through both replicas, checks that they agree (same ETag), and that
	// the ETag answers 304 while nothing changes.
	etag := ""
	poll := func(step string) deviceState {
		t.Helper()
		var states [2]deviceState
		var tags [2]string
		for i, name := range []string{"replica", "primary"} {
			env := replicas[name]
			res := env.Call(http.MethodGet, "device/state").DeviceToken(screen).Header("If-None-Match", etag).Do()
			if res.Status != http.StatusOK {
				t.Fatalf("%s, %s: %d to the ETag of the state before the change", step, name, res.Status)
			}
			res.Decode(&states[i])
			tags[i] = res.Header.Get("ETag")
			env.Call(http.MethodGet, "device/state").DeviceToken(screen).Header("If-None-Match", tags[i]).Do().Expect(http.StatusNotModified)
		}
		if tags[0] != tags[1] {
			t.Fatalf("%s: replicas disagree: %s %s", step, tags[0], tags[1])
		}
		etag = tags[0]
		return states[0]
	}
	tray := func(s deviceState, room string) (int, bool) {
		for i, tr := range s.Trays {
			if tr.Room == room {
				return i, true
			}
		}
		return 0, false
	}
	if s := poll("before generation"); len(s.Trays) != 0 {
		t.Fatalf("trays %+v", s.Trays)
	}

	// Generation.
	h.generate("lunch")
	s := poll("generation")
	if len(s.Trays) != 2 || s.Trays[0].Room != "301" || s.Trays[1].Room != "412" {
		t.Fatalf("after generation %+v", s.Trays)
	}
	first := h.byMRN("6002")

	// Selections.
	h.call(http.MethodPut, "tray-tickets/"+first.ID.String()+"/selections").JSON(map[string]any{"recipeIds": []uuid.UUID{f.chicken}}).
		Do().Expect(http.StatusOK)
	if s := poll("selections"); len(s.Trays[0].Items) != 1 || s.Trays[0].Items[0].Name != "Roast chicken" {
		t.Fatalf("after selections %+v", s.Trays[0])
	}

	// Status, made through the other replica this time.
	replica.Call(http.MethodPost, "orgs/"+h.org.String()+"/tray-tickets/"+first.ID.String()+"/status").Token(h.owner.AccessToken).
		JSON(map[string]string{"status": "assembled"}).Do().Expect(http.StatusOK)
	if s := poll("status"); s.Trays[0].Status != "assembled" {
		t.Fatalf("after status %+v", s.Trays[0])
	}

	// A transfer (the census hook, in the ingest's transaction).
	h.adt("A02", "3", "6001", "4W", "415", "A")
	s = poll("transfer")
	if _, ok := tray(s, "415"); !ok || len(s.Trays) != 2 {
		t.Fatalf("after transfer %+v", s.Trays)
	}

	// A diet change: the queued ticket's items are re-checked and conflict.
	h.adt("A08", "4", "6001", "4W", "415", "A", odsDys6)
	s = poll("diet change")
	if i, ok := tray(s, "415"); !ok || !s.Trays[i].Conflict {
		t.Fatalf("after diet change %+v", s.Trays)
	}

	// A discharge and the next generation cancel the queued ticket: it leaves the screen.
	h.adt("A03", "5", "6001", "4W", "415", "A")
	h.generate("lunch")
	if s := poll("cancellation"); len(s.Trays) != 1 || s.Trays[0].Room != "301" {
		t.Fatalf("after cancellation %+v", s.Trays)
	}

	// Changes no screen shows (the late sweep marking tickets) keep the screens' copies.
	var before int64
	if err := h.env.Pool.QueryRow(t.Context(), `SELECT revision FROM tray_revisions WHERE site_id = $1`, h.site).Scan(&before); err != nil {
		t.Fatal(err)
	}
	if _, err := h.env.Pool.Exec(t.Context(), `UPDATE tray_tickets SET late_at = now(), notes = 'x' WHERE site_id = $1`, h.site); err != nil {
		t.Fatal(err)
	}
	if n := h.count(`SELECT count(*) FROM tray_revisions WHERE site_id = $1 AND revision = $2`, h.site, before); n != 1 {
		t.Fatal("the revision moved on a change no screen shows")
	}
	// Any statement that changes what a screen shows moves it, whoever writes it.
	if _, err := h.env.Pool.Exec(t.Context(), `UPDATE tray_tickets SET room = '302' WHERE site_id = $1 AND room = '301'`, h.site); err != nil {
		t.Fatal(err)
	}
	if s := poll("a direct write"); s.Trays[0].Room != "302" {
		t.Fatalf("after a direct write %+v", s.Trays)
	}
}
