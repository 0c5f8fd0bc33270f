package records_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// BenchmarkAccountReport times POST /reports for an account of 10 sites over a month with
// 30,000 tasks (a hundred a day per site), 100 completed inspections with a finding each, and
// 200 certifications: the whole request, JSON generated and stored, report.published written.
//
//	go test -run '^$' -bench AccountReport -benchtime 20x ./internal/records/
func BenchmarkAccountReport(b *testing.B) {
	env := apitest.New(b)
	owner, org := env.NewOwner("Bench Kitchens")
	ctx := b.Context()
	sites := make([]uuid.UUID, 10)
	for i := range sites {
		sites[i] = env.Site(owner.AccessToken, org, "Site")
	}
	now := env.Clock.Now()
	for _, s := range sites {
		if _, err := env.Pool.Exec(ctx, `INSERT INTO tasks (id, org_id, site_id, title, kind, priority, status, required, due_at, missed_after, source, created_at, late)
			SELECT gen_random_uuid(), $1, $2, 'Log cooler', 'temperature_log', 'medium',
			       (ARRAY['open','done','missed','done'])[1 + g % 4], true, $3::timestamptz - make_interval(mins => g * 14),
			       $3::timestamptz - make_interval(mins => g * 14 - 30), 'manual', $3, g % 8 = 1
			FROM generate_series(1, 3000) g`, org, s, now); err != nil {
			b.Fatal(err)
		}
	}
	var tmpl struct {
		ID uuid.UUID `json:"id"`
	}
	env.Call(http.MethodPost, "orgs/"+org.String()+"/inspection-templates").Token(owner.AccessToken).JSON(map[string]any{"name": "Monthly",
		"sections": []map[string]any{{"title": "Cold", "items": []map[string]any{{"key": "a", "prompt": "Labels", "kind": "pass_fail"}, {"key": "b", "prompt": "Temps", "kind": "pass_fail"}}}}}).
		Do().Expect(http.StatusCreated).Decode(&tmpl)
	for i := range 100 {
		var in struct {
			ID uuid.UUID `json:"id"`
		}
		call := func(m, p string) *apitest.Request {
			return env.Call(m, "orgs/"+org.String()+"/"+p).Token(owner.AccessToken)
		}
		call(http.MethodPost, "inspections").JSON(map[string]any{"templateId": tmpl.ID, "siteId": sites[i%len(sites)], "scheduledFor": now.Format(time.RFC3339)}).
			Do().Expect(http.StatusCreated).Decode(&in)
		call(http.MethodPut, "inspections/"+in.ID.String()+"/responses").JSON(map[string]any{"answers": []map[string]any{{"key": "a", "passed": true}, {"key": "b", "passed": false}}}).
			Do().Expect(http.StatusOK)
		call(http.MethodPost, "inspections/"+in.ID.String()+"/complete").Do().Expect(http.StatusOK)
	}
	if _, err := env.Pool.Exec(ctx, `INSERT INTO certifications (id, org_id, site_id, user_id, kind, issued_on, expires_on, created_at, updated_at)
		SELECT gen_random_uuid(), $1, ($2::uuid[])[1 + g % 10], $3, 'food_handler', '2024-01-01', DATE '2026-03-01' + g, $4, $4
		FROM generate_series(1, 200) g`, org, sites, owner.User.ID, now); err != nil {
		b.Fatal(err)
	}
	if _, err := env.Pool.Exec(ctx, `ANALYZE`); err != nil {
		b.Fatal(err)
	}
	body := map[string]any{"scope": "account", "kind": "operations", "period": map[string]any{"from": "2026-02-01", "to": "2026-03-02"}}
	b.ResetTimer()
	for range b.N {
		var r struct {
			Content struct {
				Tasks struct {
					Due int `json:"due"`
				} `json:"tasks"`
			} `json:"content"`
		}
		env.Call(http.MethodPost, "orgs/"+org.String()+"/reports").Token(owner.AccessToken).JSON(body).Do().Expect(http.StatusCreated).Decode(&r)
		if r.Content.Tasks.Due == 0 {
			b.Fatal("no tasks in the report")
		}
	}
}
