package pg_test

import (
	"context"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/db/migrations"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/pg/pgtest"
)

// referenceTables hold no organization's rows, or are the organizations themselves: they would
// live beside every shard, or in a directory in front of them (docs/operations/scaling.md).
var referenceTables = map[string]string{
	"orgs":              "the tenants themselves: orgs.id is every tenant row's org_id",
	"users":             "a person signs in once and may belong to several organizations",
	"refresh_tokens":    "a user's sessions, across organizations",
	"security_events":   "a user's own sign-in log, across organizations",
	"idempotency_keys":  "keyed by caller scope, which names the organization for its operations",
	"rate_events":       "per client address and bucket, before any organization is known",
	"rate_locks":        "per client address and bucket, before any organization is known",
	"support_inquiries": "sent with no credential, from no organization",
	"goose_db_version":  "the schema's migration record",
	"realtime_replicas": "a server's lease on the device sockets it holds, of every organization",
	// USDA's Standard Reference: global read-only reference data every organization searches,
	// loaded only by `sous foods import` (docs/reference/foods.md); a copy beside every shard.
	"usda_food_groups":     "USDA SR28 food groups, read by every organization",
	"usda_nutrient_defs":   "USDA SR28 nutrient definitions, read by every organization",
	"usda_foods":           "USDA SR28 foods, read by every organization",
	"usda_nutrient_values": "USDA SR28 nutrient values, read by every organization",
	"usda_weights":         "USDA SR28 household measures, read by every organization",
	"usda_release":         "the revision of the USDA reference data, one row shared by every organization",
}

// keyedByUniqueIndex are tenant tables without a primary key, whose rows are keyed by a unique
// index that leads with org_id and allows a null (a line or balance outside any lot).
var keyedByUniqueIndex = map[string]string{
	"count_lines":    "count_lines_key_idx (org_id, count_id, item_id, location_id, lot_id) NULLS NOT DISTINCT",
	"stock_balances": "stock_balances_key_idx (org_id, item_id, location_id, lot_id) NULLS NOT DISTINCT",
}

// TestEveryTenantTableIsShardable reads the migrated schema: what sharding by org_id needs of it.
// Every table with an org_id has a primary key that starts with it, every other table is a
// listed reference table, and every foreign key between tenant tables includes org_id, so an
// organization's rows form a closed set that can move to another database together.
func TestEveryTenantTableIsShardable(t *testing.T) {
	t.Parallel()
	url := pgtest.NewURL(t)
	if err := pg.Migrate(t.Context(), url, migrations.FS); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())

	rows, err := conn.Query(t.Context(), `
		SELECT c.relname,
		       EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'org_id' AND NOT a.attisdropped),
		       coalesce((SELECT a.attname FROM pg_constraint k JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1]
		                 WHERE k.conrelid = c.oid AND k.contype = 'p'), '')
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
		WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
		ORDER BY c.relname`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name, pkFirst string
		var tenant bool
		if err := rows.Scan(&name, &tenant, &pkFirst); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
		_, reference := referenceTables[name]
		_, uniqueKeyed := keyedByUniqueIndex[name]
		switch {
		case tenant && reference:
			t.Errorf("%s has an org_id: it is a tenant table, not a reference table", name)
		case tenant && pkFirst == "org_id" && uniqueKeyed:
			t.Errorf("%s now has a primary key: drop it from keyedByUniqueIndex", name)
		case tenant && pkFirst != "org_id" && !uniqueKeyed:
			t.Errorf("%s: its primary key must start with org_id (it starts with %q)", name, pkFirst)
		case !tenant && !reference:
			t.Errorf("%s has no org_id: give it one (a tenant table) or list it in referenceTables, saying why", name)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, list := range []map[string]string{referenceTables, keyedByUniqueIndex} {
		for name := range list {
			if !slices.Contains(tables, name) {
				t.Errorf("%s is listed but no such table exists", name)
			}
		}
	}

	rows, err = conn.Query(t.Context(), `
		WITH tenant AS (
		  SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
		  WHERE c.relkind IN ('r', 'p')
		    AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'org_id' AND NOT a.attisdropped))
		SELECT k.conrelid::regclass::text, k.conname, pg_get_constraintdef(k.oid)
		FROM pg_constraint k
		WHERE k.contype = 'f' AND k.conparentid = 0
		  AND k.conrelid IN (SELECT oid FROM tenant) AND k.confrelid IN (SELECT oid FROM tenant)
		  AND NOT EXISTS (
		    SELECT 1 FROM unnest(k.conkey, k.confkey) AS m(a, b)
		    JOIN pg_attribute x ON x.attrelid = k.conrelid AND x.attnum = m.a
		    JOIN pg_attribute y ON y.attrelid = k.confrelid AND y.attnum = m.b
		    WHERE x.attname = 'org_id' AND y.attname = 'org_id')`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var table, name, def string
		if err := rows.Scan(&table, &name, &def); err != nil {
			t.Fatal(err)
		}
		t.Errorf("%s.%s joins two tenant tables without org_id: %s", table, name, def)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(tables) < 50 {
		t.Fatalf("only %d tables read: is the schema migrated?", len(tables))
	}
}
