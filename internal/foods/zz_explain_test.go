package foods_test

import (
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/sous-app/sous/internal/httpapi/apitest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TEMPORARY (not to be kept): prints the search's plans on a fresh database.
func TestZZExplainSearch(t *testing.T) {
	if os.Getenv("SOUS_EXPLAIN") == "" {
		t.Skip()
	}
	b := &testing.B{}
	_ = b
	src, err := os.ReadFile("../../gen/db/foods.sql.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)const searchFoods = `(.*?)`").FindSubmatch(src)
	sql := string(m[1])
	search, env, org := explainServer(t)
	_ = search
	ctx := t.Context()
	conn, err := env.Pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if ddl := os.Getenv("SOUS_EXPLAIN_DDL"); ddl != "" {
		if _, err := conn.Exec(ctx, ddl); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := conn.Exec(ctx, "SET plan_cache_mode = force_generic_plan"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "PREPARE s(text, uuid, float8, text, uuid, int, text) AS "+sql); err != nil {
		t.Fatal(err)
	}
	for _, q := range strings.Split(os.Getenv("SOUS_EXPLAIN"), ",") {
		for i := 0; i < 3; i++ {
			start := time.Now()
			rows, err := conn.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) EXECUTE s('"+strings.ReplaceAll(q, "'", "''")+"', '"+org.String()+"', NULL, NULL, NULL, 51, NULL)", pgx.QueryExecModeSimpleProtocol)
			if err != nil {
				t.Fatal(err)
			}
			var plan []string
			for rows.Next() {
				var l string
				_ = rows.Scan(&l)
				plan = append(plan, l)
			}
			rows.Close()
			if i == 2 {
				t.Logf("q=%q (%v)\n%s", q, time.Since(start), strings.Join(plan, "\n"))
			}
		}
	}
}

func explainServer(t *testing.T) (func(string) error, *apitest.Env, uuid.UUID) {
	dir := sr28Dir(t)
	env := apitest.New(t)
	_, org := env.NewOwner("Bench Kitchens")
	_, other := env.NewOwner("Elsewhere")
	ctx := t.Context()
	if _, err := importSR28(t, env, dir); err != nil {
		t.Fatal(err)
	}
	for _, orgID := range []any{org, other} {
		if _, err := env.Pool.Exec(ctx, `
			WITH names AS (SELECT row_number() OVER (ORDER BY ndb_no) - 1 AS n, name FROM usda_foods)
			INSERT INTO org_foods (org_id, id, name, per_serving, basis_grams, portions, allergens, created_at, updated_at)
			SELECT $1, gen_random_uuid(), names.name || ' (' || (ARRAY['Harvest Dairy','Sysco','US Foods','Gordon','Local Farm'])[1 + i % 5] || ' ' || i || ')',
			       false, 100, '[{"amount":"1","measure":"cup","grams":"240"}]', '{}', now(), now()
			FROM generate_series(1, 10000) i JOIN names ON names.n = (i * 7) % 8789`, orgID); err != nil {
			t.Fatal(err)
		}
	}
	if os.Getenv("SOUS_EXPLAIN_ANALYZE") != "" {
		if _, err := env.Pool.Exec(ctx, "ANALYZE org_foods"); err != nil {
			t.Fatal(err)
		}
	}
	return nil, env, org
}
