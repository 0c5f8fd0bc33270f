package clinical

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/hl7"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/pg/pgtest"
)

// TestIngestPlansAreIndexLookups runs a body of the ingest on a database that was never analyzed,
// with a trail of 100,000 rows, 20,000 patients and 5,000 codes awaiting review, forcing generic
// plans, then custom ones, and reads every statement's plan as it ran (auto_explain, sent back as notices). Each must read
// no more rows of any table than it returns, or writes, times a small factor: index probes,
// never a scan of an organization's trail, patients or codes.
func TestIngestPlansAreIndexLookups(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	url := pgtest.NewURL(t)
	admin, err := pg.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	orgID, siteID := uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7())
	seedPlanTables(t, admin, orgID, siteID, 100_000, 20_000)

	// Generic plans are what a prepared statement gets after five executions, whatever the
	// parameters; custom plans are the first five, planned for the parameters.
	for _, mode := range []string{"force_generic_plan", "force_custom_plan"} {
		t.Run(mode, func(t *testing.T) { checkIngestPlans(t, url, orgID, siteID, mode) })
	}
}

// checkIngestPlans ingests a body of 100 messages with plan_cache_mode set to mode and checks
// the plan of every statement it ran.
func checkIngestPlans(t *testing.T, url string, orgID, siteID uuid.UUID, mode string) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = mode
	pool, plans := explainingPool(t, cfg)
	ingestPlanBody(t, pool, orgID, siteID, true)
	checkPlans(t, plans())
}

// TestIngestPlansSurviveGrowingTables runs the ingest on the product's own connection settings
// as a new organization's first hour does: the statements run (and could have their generic
// plans cached) while the tables are empty, then the census grows, without ANALYZE, and the same
// connection ingests again. Every statement must still be an index probe. With prepared
// statements' default plan caching, PatientsByMRN was frozen onto the (org_id, id) key while the
// patients table was empty and read the whole organization for each MRN once it had grown.
func TestIngestPlansSurviveGrowingTables(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	url := pgtest.NewURL(t)
	admin, err := pg.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	orgID, siteID := uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7())
	seedPlanTables(t, admin, orgID, siteID, 0, 0)

	cfg, err := pg.PoolConfig(url, pg.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	pool, plans := explainingPool(t, cfg)
	for range 8 { // past the five custom plans after which a generic plan may be cached
		ingestPlanBody(t, pool, orgID, siteID, false)
	}
	plans()

	seedPlanTables(t, admin, orgID, siteID, 100_000, 20_000)
	ingestPlanBody(t, pool, orgID, siteID, true)
	checkPlans(t, plans())
}

// seedPlanTables turns autovacuum off for the census tables (it would analyze them within a
// minute) and adds trailRows trail rows, patientRows patients (every other one in house) and
// 5,000 codes awaiting review when trailRows > 0. Only the first call creates the organization.
func seedPlanTables(t *testing.T, admin *pgxpool.Pool, orgID, siteID uuid.UUID, trailRows, patientRows int) {
	t.Helper()
	ctx := t.Context()
	var seed []string
	var exists bool
	if err := admin.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM orgs WHERE id = $1)`, orgID).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if !exists {
		seed = append(seed,
			`ALTER TABLE hl7_messages SET (autovacuum_enabled = off)`,
			`ALTER TABLE patients SET (autovacuum_enabled = off)`,
			`ALTER TABLE encounters SET (autovacuum_enabled = off)`,
			`ALTER TABLE clinical_codes SET (autovacuum_enabled = off)`,
			`INSERT INTO orgs (id, name, plan_tier, created_at, updated_at) VALUES ($1, 'Plans', 'pro', now(), now())`,
			`INSERT INTO sites (id, org_id, name, timezone, created_at, updated_at) VALUES ($2, $1, 'Main', 'America/Chicago', now(), now())`)
	}
	if trailRows > 0 {
		seed = append(seed,
			fmt.Sprintf(`INSERT INTO hl7_messages (id, org_id, site_id, received_at, actor_kind, batch_index, sending_application,
			sending_facility, control_id, message_type, outcome, raw)
		SELECT lpad(to_hex(g), 32, '0')::uuid, $1, $2, now() - g * interval '1 second', 'api_key', g %% 100, 'EPIC', 'HARBORVIEW',
			'SEED-' || g, 'ADT^A08', CASE WHEN g %% 50 = 0 THEN 'rejected' ELSE 'applied' END, ''
		FROM generate_series(1, %d) g`, trailRows),
			fmt.Sprintf(`INSERT INTO patients (id, org_id, site_id, mrn, mrn_source, family_name, given_name, encounter_id,
			unit, room, bed, diet_orders, diet_order_ids, created_at, updated_at)
		SELECT md5('p' || g)::uuid, $1, $2, (300000000 + g)::text, 'pid3_mr', 'DOE', 'JANE',
			CASE WHEN g %% 2 = 0 THEN md5('e' || g)::uuid END, '4W', (g %% 400)::text, 'A', '[]', '', now(), now()
		FROM generate_series(1, %d) g`, patientRows),
			fmt.Sprintf(`INSERT INTO encounters (id, org_id, patient_id, admitted_at, unit, room, bed, created_at, updated_at)
		SELECT md5('e' || g)::uuid, $1, md5('p' || g)::uuid, now(), '4W', (g %% 400)::text, 'A', now(), now()
		FROM generate_series(2, %d, 2) g`, patientRows),
			`INSERT INTO clinical_codes (org_id, kind, code, occurrences, targets)
		SELECT $1, CASE WHEN g % 2 = 0 THEN 'diet' ELSE 'allergen' END, 'LOCAL-' || g, 1,
			CASE WHEN g <= 10 THEN ARRAY['gluten'] END
		FROM generate_series(1, 5000) g`)
	}
	seeding := time.Now()
	for _, sql := range seed {
		var args []any
		if strings.Contains(sql, "$1") {
			args = append(args, orgID)
		}
		if strings.Contains(sql, "$2") {
			args = append(args, siteID)
		}
		if _, err := admin.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	t.Logf("seeded in %v", time.Since(seeding).Round(time.Millisecond))
	var analyzed int
	if err := admin.QueryRow(ctx, `SELECT count(*) FROM pg_class WHERE relname IN ('hl7_messages', 'patients', 'encounters', 'clinical_codes')
		AND (reltuples >= 0 OR EXISTS (SELECT 1 FROM pg_statistic WHERE starelid = pg_class.oid))`).Scan(&analyzed); err != nil {
		t.Fatal(err)
	}
	if analyzed != 0 {
		t.Fatalf("%d tables have statistics; the test needs them un-analyzed", analyzed)
	}
}

// explainingPool opens a one-connection pool on cfg whose every statement's plan, as it ran, is
// collected (auto_explain, sent back as notices); the function returns and forgets those so far.
func explainingPool(t *testing.T, cfg *pgxpool.Config) (*pgxpool.Pool, func() []string) {
	t.Helper()
	for k, v := range map[string]string{
		"session_preload_libraries":          "auto_explain",
		"auto_explain.log_min_duration":      "0",
		"auto_explain.log_analyze":           "on",
		"auto_explain.log_timing":            "off",
		"auto_explain.log_format":            "json",
		"auto_explain.log_level":             "notice",
		"auto_explain.log_nested_statements": "on",
		"client_min_messages":                "notice",
	} {
		cfg.ConnConfig.RuntimeParams[k] = v
	}
	var mu sync.Mutex
	var plans []string
	cfg.ConnConfig.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		if _, plan, ok := strings.Cut(n.Message, "plan:\n"); ok {
			mu.Lock()
			plans = append(plans, plan)
			mu.Unlock()
		}
	}
	cfg.MaxConns = 1
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool, func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := plans
		plans = nil
		return out
	}
}

// ingestPlanBody ingests, and rolls back, a body of 100: admissions of new patients with
// unmapped codes, updates and orders of seeded patients, and resends of seeded control ids
// (duplicates when seeded says the trail holds them).
func ingestPlanBody(t *testing.T, pool *pgxpool.Pool, orgID, siteID uuid.UUID, seeded bool) {
	t.Helper()
	ctx := t.Context()
	var body strings.Builder
	for i := range 100 {
		control, mrn := fmt.Sprintf("PLAN-%d", i), fmt.Sprint(300000000+2*(i+1))
		typ, extra := "ADT^A08", "AL1|1|FA|LOCAL-1^Local one^LOCAL|MO\rODS|D||LOCAL-2^Local two^LOCAL\r"
		switch i % 4 {
		case 0:
			typ, mrn = "ADT^A01", fmt.Sprint(400000000+i)
			extra = "AL1|1|FA|Z-9^Unknown thing^LOCAL|MO\rAL1|2|FA|762952008^Peanut^SCT|SV\rODS|D||ZZ^Unknown diet^LOCAL~REG^Regular^EPICDIET\r"
		case 1:
			control = fmt.Sprintf("SEED-%d", i+1) // consumed by the seeded trail
		case 2:
			typ, extra = "ORM^O01", "ORC|NW|DIET-1\rODS|D||REG^Regular^EPICDIET\r"
		}
		fmt.Fprintf(&body, "MSH|^~\\&|EPIC|HARBORVIEW|SOUS|SOUS|20260302083000||%s|%s|P|2.5.1\rEVN|A01|20260302083000\r"+
			"PID|1||%s^^^HMC^MR||DOE^JANE||19800412|F\rPV1|1|I|5E^%d^B\r%s", typ, control, mrn, i, extra)
	}
	var parser hl7.Parser
	batch, err := parser.ParseString(body.String())
	if err != nil {
		t.Fatal(err)
	}
	var adts []hl7.ADT
	msgs := prepare(&batch, &adts)
	h := NewHandlers(pool, clock.NewFake(time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)), slog.New(slog.NewTextHandler(io.Discard, nil)))
	loc, _ := time.LoadLocation("America/Chicago")
	fallbacks := batchFallbacks.Load()
	// Rolled back, so that every run ingests the body into the same state.
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	res, err := h.ingestBody(ctx, tx, targetOf(ctx, orgID, siteID, h.clock.Now()), bodyKeys(orgID, siteID, msgs), loc, msgs, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	outcomes := map[string]int{}
	for _, r := range res {
		outcomes[string(r.Outcome)]++
	}
	// With the trail seeded, 24 control ids were consumed (SEED-50 was rejected, so it is not).
	if want := map[bool]int{true: 24, false: 0}[seeded]; outcomes["applied"] != 100-want || outcomes["duplicate"] != want {
		t.Fatalf("outcomes %v", outcomes)
	}
	if batchFallbacks.Load() != fallbacks {
		t.Fatal("the batch write failed")
	}
}

// checkPlans checks every statement an ingest ran, with the rows its plan read against those it
// returned.
func checkPlans(t *testing.T, plans []string) {
	t.Helper()
	const factor = 2
	seen := map[string]bool{}
	for _, raw := range plans {
		var p struct {
			Text string   `json:"Query Text"`
			Plan planNode `json:"Plan"`
		}
		if err := json.Unmarshal([]byte(raw), &p); err != nil {
			t.Fatalf("plan %q: %v", raw, err)
		}
		name := queryName(p.Text)
		seen[name] = true
		read, out := map[string]int{}, p.Plan.output()
		p.Plan.read(read)
		if !strings.HasPrefix(name, "SELECT 1 FROM ONLY") { // the foreign-key checks, one per row
			t.Logf("%s: read %v for %d rows", name, read, out)
		}
		for rel, n := range read {
			if n > factor*max(out, 1) {
				t.Errorf("%s read %d rows of %s for %d: %s\nplan: %s", name, n, rel, out, p.Text, raw)
			}
		}
	}
	for _, q := range []string{"ConsumedControlIDs", "PatientsByMRN", "CodeMappings", "UpsertPatients", "UpsertEncounters",
		"InsertHl7Messages", "RecordCodeOccurrences", "InsertAudit"} {
		if !seen[q] {
			t.Errorf("no plan of %s among %v", q, seen)
		}
	}
}

// queryName is the sqlc name of a query ("-- name: X :kind" leads its text), else its text.
func queryName(text string) string {
	if rest, ok := strings.CutPrefix(strings.TrimSpace(text), "-- name: "); ok {
		name, _, _ := strings.Cut(rest, " ")
		return name
	}
	if len(text) > 60 {
		return text[:60]
	}
	return text
}

// planNode is the part of an EXPLAIN (ANALYZE, FORMAT JSON) node the test reads.
type planNode struct {
	Type           string     `json:"Node Type"`
	Relation       string     `json:"Relation Name"`
	Rows           int        `json:"Actual Rows"`
	Loops          int        `json:"Actual Loops"`
	RemovedFilter  int        `json:"Rows Removed by Filter"`
	RemovedRecheck int        `json:"Rows Removed by Index Recheck"`
	RemovedJoin    int        `json:"Rows Removed by Join Filter"`
	Plans          []planNode `json:"Plans"`
}

// read adds up, per table, the rows the plan's scans produced or threw away over all their
// loops (rows that joins threw away count as "join filter"). EXPLAIN reports rows per loop
// rounded to a whole number, so a probe run many times finding a row now and then is counted to
// within half a row per loop.
func (n planNode) read(into map[string]int) {
	loops := max(n.Loops, 1)
	if n.Relation != "" && n.Type != "ModifyTable" {
		into[n.Relation] += (n.Rows + n.RemovedFilter + n.RemovedRecheck) * loops
	}
	if n.RemovedJoin > 0 {
		into["join filter"] += n.RemovedJoin * loops
	}
	for _, c := range n.Plans {
		c.read(into)
	}
}

// output is what the statement returns, or for a write without RETURNING the rows it writes.
func (n planNode) output() int {
	if n.Type == "ModifyTable" && n.Rows == 0 && len(n.Plans) > 0 {
		return n.Plans[0].Rows * max(n.Plans[0].Loops, 1)
	}
	return n.Rows * max(n.Loops, 1)
}
