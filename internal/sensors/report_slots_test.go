package sensors_test

import (
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
	"github.com/sous-app/sous/internal/sensors"
)

// heavyKitchen is a kitchen with 7 probes: a month of its log at 15 minutes is 7 × 2,976 =
// 20,832 buckets, a heavy log.
func heavyKitchen(t *testing.T, env *apitest.Env, name string) *kitchen {
	k := newKitchen(t, env, name)
	for i := range 7 {
		k.sensor("probe-"+strconv.Itoa(i), nil)
	}
	return k
}

// An organization makes at most 2 heavy logs at once: of 6 asked together, 2 hold the slots
// (held here until the others have answered) and the 4 others, past their wait, answer 429
// reports_busy with Retry-After. Meanwhile a light log of the same organization and a heavy log
// of another are answered at once; the 2 holders then finish with their logs.
func TestHeavyTemperatureLogsAreBoundedPerOrganization(t *testing.T) {
	env := apitest.New(t)
	k := heavyKitchen(t, env, "Bounded")
	other := heavyKitchen(t, env, "Neighbour")
	heavy := func(k *kitchen) string { return k.logPath("2026-03-01", "2026-03-31", "15m") }

	sensors.SetHeavyLogWait(300 * time.Millisecond)
	held := make(chan struct{}, 16)
	release := make(chan struct{})
	sensors.OnHeavyLogHeld(func(org uuid.UUID) {
		if org == k.org {
			held <- struct{}{}
			<-release
		}
	})
	t.Cleanup(func() { sensors.OnHeavyLogHeld(nil); sensors.SetHeavyLogWait(0) })
	refusedBefore := sensors.HeavyLogs("refused")

	const n = 6
	token := k.token()
	results := make(chan *apitest.Response, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { results <- env.Call(http.MethodGet, heavy(k)).Token(token).Do() })
	}
	<-held
	<-held
	refused := 0
	for range n - 2 {
		res := <-results
		e := res.ExpectCode(http.StatusTooManyRequests, "reports_busy")
		must(t, res.Header.Get("Retry-After") == "5" && e.Error != "", "refusal: %v %s", res.Header, res.Body)
		refused++
	}
	must(t, len(held) == 0, "more than 2 heavy logs held slots at once")
	// The bound is on heavy logs of one organization.
	env.Call(http.MethodGet, k.logPath("2026-03-01", "2026-03-01", "15m")).Token(token).Do().Expect(http.StatusOK)
	env.Call(http.MethodGet, heavy(other)).Token(other.token()).Header("Accept", "text/csv").Do().Expect(http.StatusOK)

	close(release)
	wg.Wait()
	close(results)
	won := 0
	for res := range results {
		var log temperatureLog
		res.Expect(http.StatusOK).Decode(&log)
		must(t, len(log.Sensors) == 7 && len(log.Sensors[0].Buckets) == 0, "log: %d sensors", len(log.Sensors))
		won++
	}
	must(t, won == 2 && refused == n-2, "won %d, refused %d", won, refused)
	must(t, sensors.HeavyLogs("refused")-refusedBefore == n-2, "refused counter moved by %v", sensors.HeavyLogs("refused")-refusedBefore)

	// With the slots free again, a heavy log is answered at once.
	env.Call(http.MethodGet, heavy(k)).Token(token).Header("Accept", "application/pdf").Do().Expect(http.StatusOK)
}

// Heavy logs waiting for a slot each hold a pooled connection, so only heavyLogWaiters of them
// wait on a replica: with both slots held and every seat taken, the next heavy log is refused at
// once instead of waiting, while the waiters get their slots when the holders finish.
func TestHeavyTemperatureLogWaitersAreBounded(t *testing.T) {
	env := apitest.New(t)
	k := heavyKitchen(t, env, "Waiting room")
	heavy := k.logPath("2026-03-01", "2026-03-31", "15m")

	sensors.SetHeavyLogWait(time.Minute) // the waiters wait for the holders, not for a clock
	held := make(chan struct{}, 16)
	release := make(chan struct{})
	sensors.OnHeavyLogHeld(func(org uuid.UUID) {
		if org == k.org {
			held <- struct{}{}
			<-release
		}
	})
	t.Cleanup(func() { sensors.OnHeavyLogHeld(nil); sensors.SetHeavyLogWait(0) })

	extra := 2
	n := 2 + sensors.HeavyLogWaiters + extra
	token := k.token()
	results := make(chan *apitest.Response, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { results <- env.Call(http.MethodGet, heavy).Token(token).Do() })
	}
	<-held
	<-held
	// Nothing can finish before release but the requests that found no seat.
	for range extra {
		(<-results).ExpectCode(http.StatusTooManyRequests, "reports_busy")
	}
	must(t, sensors.HeavyLogsWaiting() == float64(sensors.HeavyLogWaiters), "%v waiting, want %d", sensors.HeavyLogsWaiting(), sensors.HeavyLogWaiters)
	close(release)
	wg.Wait()
	close(results)
	won := 0
	for res := range results {
		res.Expect(http.StatusOK)
		won++
	}
	must(t, won == 2+sensors.HeavyLogWaiters, "won %d", won)
}
