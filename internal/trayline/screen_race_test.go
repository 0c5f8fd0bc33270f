package trayline_test

import (
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/trayline"
)

// Screens polling while tickets change: a poll that starts after a change committed shows it,
// whatever the cache held (linearizable per poll), with one Screens shared by every poller as
// in a server process; and the queue spliced from the unchanged tickets' kept bytes is byte for
// byte the queue encoded afresh.
func TestTrayQueueConcurrentPollsSeeEveryCommittedChange(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	h.lunch()
	if _, err := h.env.Pool.Exec(t.Context(), `
		INSERT INTO patients (id, org_id, site_id, mrn, mrn_source, encounter_id, unit, room, bed, admitted_at, allergies, diet_orders, created_at, updated_at)
		SELECT gen_random_uuid(), $1, $2, 'C' || i, 'pid3_mr', gen_random_uuid(), 'U1', lpad(i::text, 4, '0'), 'A', now(), '[]'::json,
		       '[{"codes":[{"diets":["regular"]}]}]'::json, now(), now()
		FROM generate_series(1, 30) AS i`, h.org, h.site); err != nil {
		t.Fatal(err)
	}
	h.generate("lunch")
	date := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	screens := trayline.NewScreens(h.env.Pool)
	assembled := func(raw []byte) int {
		var trays []struct {
			Status string `json:"status"`
		}
		if err := json.Unmarshal(raw, &trays); err != nil {
			t.Error(err)
		}
		n := 0
		for _, tr := range trays {
			if tr.Status == "assembled" {
				n++
			}
		}
		return n
	}
	var committed atomic.Int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				want := committed.Load()
				q, err := screens.Queue(t.Context(), h.org, h.site, date, "lunch", nil)
				if err != nil {
					t.Error(err)
					return
				}
				if got := assembled(q.JSON); int64(got) < want {
					t.Errorf("a poll after %d assemblies committed shows %d", want, got)
					return
				}
			}
		}()
	}
	// One ticket assembled at a time, each its own transaction (the trigger bumps the revision).
	for i := 1; i <= 30; i++ {
		if _, err := h.env.Pool.Exec(t.Context(), `
			UPDATE tray_tickets SET status = 'assembled'
			WHERE id = (SELECT id FROM tray_tickets WHERE site_id = $1 AND status = 'queued' ORDER BY room LIMIT 1)`, h.site); err != nil {
			t.Fatal(err)
		}
		committed.Store(int64(i))
	}
	close(done)
	wg.Wait()
	q, err := screens.Queue(t.Context(), h.org, h.site, date, "lunch", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := assembled(q.JSON); n != 30 {
		t.Fatalf("%d assembled at the end", n)
	}
	// The queue spliced from the kept tickets' bytes is the queue encoded afresh.
	fresh, err := trayline.NewScreens(h.env.Pool).Queue(t.Context(), h.org, h.site, date, "lunch", nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(fresh.JSON) != string(q.JSON) || fresh.Sum != q.Sum {
		t.Fatalf("spliced queue differs from a fresh one:\n%s\n%s", q.JSON, fresh.JSON)
	}
}
