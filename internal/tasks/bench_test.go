package tasks_test

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
	"github.com/sous-app/sous/internal/tasks"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// BenchmarkPlan2000Routines times the planner's first pass over 2,000 active routines (four
// occurrences a day, one item each: 8,000 tasks for the next 24 hours) and reports the second
// pass, which must write nothing, as second-pass-ms.
//
//	go test -run '^$' -bench Plan2000 -benchtime 3x ./internal/tasks/
func BenchmarkPlan2000Routines(b *testing.B) {
	env := apitest.New(b)
	owner, org := env.NewOwner("Bench Kitchens")
	sites := make([]uuid.UUID, 20)
	for i := range sites {
		sites[i] = env.Site(owner.AccessToken, org, "Site")
	}
	ctx := b.Context()
	for i := range 2000 {
		if _, err := env.Pool.Exec(ctx, `INSERT INTO routines (id, org_id, site_id, name, rrule, starts_on, active, items, created_at, updated_at)
			VALUES ($1, $2, $3, 'Cooler temperatures', 'FREQ=DAILY;BYHOUR=6,10,14,18;BYMINUTE=0', '2026-01-01', true,
			        '[{"title":"Log walk-in cooler temperature","kind":"temperature_log","required":true}]', $4, $4)`,
			uuid.Must(uuid.NewV7()), org, sites[i%len(sites)], env.Clock.Now()); err != nil {
			b.Fatal(err)
		}
	}
	now := env.Clock.Now()
	var second time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		for _, q := range []string{`DELETE FROM tasks WHERE org_id = $1`, `DELETE FROM routine_occurrences WHERE org_id = $1`} {
			if _, err := env.Pool.Exec(ctx, q, org); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		if err := tasks.PlanAll(ctx, env.Pool, now, quiet); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		var n int
		_ = env.Pool.QueryRow(ctx, `SELECT count(*) FROM tasks WHERE org_id = $1`, org).Scan(&n)
		if n != 8000 {
			b.Fatalf("%d tasks after the first pass", n)
		}
		start := time.Now()
		if err := tasks.PlanAll(ctx, env.Pool, now, quiet); err != nil {
			b.Fatal(err)
		}
		second += time.Since(start)
		_ = env.Pool.QueryRow(ctx, `SELECT count(*) FROM tasks WHERE org_id = $1`, org).Scan(&n)
		if n != 8000 {
			b.Fatalf("the second pass wrote: %d tasks", n)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(second.Milliseconds())/float64(b.N), "second-pass-ms")
}

// BenchmarkListRoutines times GET /routines over 100 routines: "costly", the stored rules
// costliest to read (some never occur: saved before the rule checks, written here straight
// into the table; the rest occur only on 29 February), against "daily", four times a day.
// Each read of a rule is bounded (see readLimits).
//
//	go test -run '^$' -bench ListRoutines -benchtime 20x -count 5 ./internal/tasks/
func BenchmarkListRoutines(b *testing.B) {
	env := apitest.New(b)
	sets := map[string][]string{
		"costly": {
			"FREQ=MINUTELY;INTERVAL=7;BYHOUR=1;BYMINUTE=1;BYDAY=MO;BYMONTH=2;BYMONTHDAY=29", "FREQ=MINUTELY;BYMONTH=2;BYMONTHDAY=30",
			"FREQ=HOURLY;INTERVAL=2;BYHOUR=1", "FREQ=MINUTELY;BYHOUR=1;BYMINUTE=1;BYMONTH=2;BYMONTHDAY=29", "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29",
		},
		"daily": {"FREQ=DAILY;BYHOUR=6,10,14,18;BYMINUTE=0"},
	}
	ctx := b.Context()
	for _, name := range []string{"costly", "daily"} {
		owner, org := env.NewOwner(name)
		site := env.Site(owner.AccessToken, org, "Site")
		rules := sets[name]
		for i := range 100 {
			if _, err := env.Pool.Exec(ctx, `INSERT INTO routines (id, org_id, site_id, name, rrule, starts_on, active, items, created_at, updated_at)
				VALUES ($1, $2, $3, 'Routine', $4, '2026-01-01', true, '[{"title":"Check"}]', $5, $5)`,
				uuid.Must(uuid.NewV7()), org, site, rules[i%len(rules)], env.Clock.Now()); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				env.Call("GET", "orgs/"+org.String()+"/routines").Token(owner.AccessToken).Within(time.Minute).Do().Expect(200)
			}
		})
	}
}
