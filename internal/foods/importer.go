package foods

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/internal/pg"
)

// The SR28 import runs in one transaction: each file is read, checked and streamed with COPY
// into a temporary staging table, then the reference tables are brought to the staging
// tables' content by upserts that touch only rows that differ and deletes of rows no longer
// there. Readers keep seeing the previous data until the commit; a failed or interrupted
// import rolls back and leaves it whole; importing the same release again changes no row.
// (These statements work on temporary tables sqlc does not know, so they live here.)

// Change counts what an import did to one table.
type Change struct {
	Table                      string
	Inserted, Updated, Deleted int64
}

// ImportResult is what an import read and what it changed.
type ImportResult struct {
	Groups, NutrientDefs, Foods, Values, Weights int64 // records read
	Changes                                      []Change
	Took                                         time.Duration
}

// Changed reports whether the import changed any row.
func (r ImportResult) Changed() bool {
	for _, c := range r.Changes {
		if c.Inserted+c.Updated+c.Deleted > 0 {
			return true
		}
	}
	return false
}

// change is the entry of table, added on first use.
func (r *ImportResult) change(table string) *Change {
	for i := range r.Changes {
		if r.Changes[i].Table == table {
			return &r.Changes[i]
		}
	}
	r.Changes = append(r.Changes, Change{Table: table})
	return &r.Changes[len(r.Changes)-1]
}

// importLock serialises imports: a second one waits for the first to commit, then finds the
// data already there.
const importLock = 7_341_028_116

// staging tables, created per transaction (ON COMMIT DROP), every column text: the values are
// checked in Go as they are read and cast by the upserts.
const createStaging = `
CREATE TEMP TABLE stage_groups (code text, name text) ON COMMIT DROP;
CREATE TEMP TABLE stage_defs (nutr_no text, units text, tagname text, name text, num_dec text, sr_order text) ON COMMIT DROP;
CREATE TEMP TABLE stage_foods (ndb_no text, id text, food_group text, name text, short_name text, common_name text) ON COMMIT DROP;
CREATE TEMP TABLE stage_values (ndb_no text, nutr_no text, value text) ON COMMIT DROP;
CREATE TEMP TABLE stage_weights (ndb_no text, seq text, amount text, measure text, grams text) ON COMMIT DROP;`

// apply brings each table to its staging table, parents' upserts first and deletes last.
// An upsert returns (inserted, updated), the others their one count.
var apply = []struct {
	table, kind, sql string
}{
	{"usda_food_groups", "upsert", `
WITH u AS (
  INSERT INTO usda_food_groups (code, name) SELECT code, name FROM stage_groups
  ON CONFLICT (code) DO UPDATE SET name = excluded.name WHERE usda_food_groups.name IS DISTINCT FROM excluded.name
  RETURNING xmax = 0 AS ins)
SELECT count(*) FILTER (WHERE ins), count(*) FILTER (WHERE NOT ins) FROM u`},
	{"usda_nutrient_defs", "upsert", `
WITH u AS (
  INSERT INTO usda_nutrient_defs (nutr_no, units, tagname, name, num_dec, sr_order)
  SELECT nutr_no, units, tagname, name, num_dec::integer, sr_order::integer FROM stage_defs
  ON CONFLICT (nutr_no) DO UPDATE SET units = excluded.units, tagname = excluded.tagname, name = excluded.name,
    num_dec = excluded.num_dec, sr_order = excluded.sr_order
  WHERE (usda_nutrient_defs.units, usda_nutrient_defs.tagname, usda_nutrient_defs.name, usda_nutrient_defs.num_dec, usda_nutrient_defs.sr_order)
    IS DISTINCT FROM (excluded.units, excluded.tagname, excluded.name, excluded.num_dec, excluded.sr_order)
  RETURNING xmax = 0 AS ins)
SELECT count(*) FILTER (WHERE ins), count(*) FILTER (WHERE NOT ins) FROM u`},
	{"usda_foods", "upsert", `
WITH u AS (
  INSERT INTO usda_foods (ndb_no, id, food_group, name, short_name, common_name)
  SELECT ndb_no, id::uuid, food_group, name, short_name, nullif(common_name, '') FROM stage_foods
  ON CONFLICT (ndb_no) DO UPDATE SET id = excluded.id, food_group = excluded.food_group, name = excluded.name,
    short_name = excluded.short_name, common_name = excluded.common_name
  WHERE (usda_foods.id, usda_foods.food_group, usda_foods.name, usda_foods.short_name, usda_foods.common_name)
    IS DISTINCT FROM (excluded.id, excluded.food_group, excluded.name, excluded.short_name, excluded.common_name)
  RETURNING xmax = 0 AS ins)
SELECT count(*) FILTER (WHERE ins), count(*) FILTER (WHERE NOT ins) FROM u`},
	{"usda_nutrient_values", "delete", `
WITH d AS (
  DELETE FROM usda_nutrient_values v
  WHERE NOT EXISTS (SELECT 1 FROM stage_values s WHERE s.ndb_no = v.ndb_no AND s.nutr_no = v.nutr_no)
  RETURNING 1)
SELECT count(*) FROM d`},
	{"usda_nutrient_values", "update", `
WITH u AS (
  UPDATE usda_nutrient_values v SET value = s.value::numeric FROM stage_values s
  WHERE s.ndb_no = v.ndb_no AND s.nutr_no = v.nutr_no AND v.value::text <> s.value::numeric::text
  RETURNING 1)
SELECT count(*) FROM u`},
	{"usda_nutrient_values", "insert", `
WITH i AS (
  INSERT INTO usda_nutrient_values (ndb_no, nutr_no, value)
  SELECT s.ndb_no, s.nutr_no, s.value::numeric FROM stage_values s
  WHERE NOT EXISTS (SELECT 1 FROM usda_nutrient_values v WHERE v.ndb_no = s.ndb_no AND v.nutr_no = s.nutr_no)
  RETURNING 1)
SELECT count(*) FROM i`},
	{"usda_weights", "delete", `
WITH d AS (
  DELETE FROM usda_weights w
  WHERE NOT EXISTS (SELECT 1 FROM stage_weights s WHERE s.ndb_no = w.ndb_no AND s.seq::integer = w.seq)
  RETURNING 1)
SELECT count(*) FROM d`},
	{"usda_weights", "update", `
WITH u AS (
  UPDATE usda_weights w SET amount = s.amount::numeric, measure = s.measure, grams = s.grams::numeric FROM stage_weights s
  WHERE s.ndb_no = w.ndb_no AND s.seq::integer = w.seq
    AND (w.amount::text, w.measure, w.grams::text) <> (s.amount::numeric::text, s.measure, s.grams::numeric::text)
  RETURNING 1)
SELECT count(*) FROM u`},
	{"usda_weights", "insert", `
WITH i AS (
  INSERT INTO usda_weights (ndb_no, seq, amount, measure, grams)
  SELECT s.ndb_no, s.seq::integer, s.amount::numeric, s.measure, s.grams::numeric FROM stage_weights s
  WHERE NOT EXISTS (SELECT 1 FROM usda_weights w WHERE w.ndb_no = s.ndb_no AND w.seq = s.seq::integer)
  RETURNING 1)
SELECT count(*) FROM i`},
	{"usda_foods", "delete", `
WITH d AS (
  DELETE FROM usda_foods f WHERE NOT EXISTS (SELECT 1 FROM stage_foods s WHERE s.ndb_no = f.ndb_no)
  RETURNING 1)
SELECT count(*) FROM d`},
	{"usda_nutrient_defs", "delete", `
WITH d AS (
  DELETE FROM usda_nutrient_defs n WHERE NOT EXISTS (SELECT 1 FROM stage_defs s WHERE s.nutr_no = n.nutr_no)
  RETURNING 1)
SELECT count(*) FROM d`},
	{"usda_food_groups", "delete", `
WITH d AS (
  DELETE FROM usda_food_groups g WHERE NOT EXISTS (SELECT 1 FROM stage_groups s WHERE s.code = g.code)
  RETURNING 1)
SELECT count(*) FROM d`},
}

// ImportSR28 imports USDA's Standard Reference Release 28 from dir (FOOD_DES, NUT_DATA,
// NUTR_DEF, WEIGHT and FD_GROUP, each as .txt or .txt.gz) into the reference tables, writing
// its progress to progress. A file that is missing or not well-formed SR28 stops the import
// with a *FileError naming the file and line, and nothing changes.
func ImportSR28(ctx context.Context, pool *pgxpool.Pool, dir string, progress io.Writer) (ImportResult, error) {
	start := time.Now()
	var res ImportResult
	err := pg.InTx(ctx, pool, func(tx pgx.Tx) error {
		res = ImportResult{}
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(importLock)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, createStaging); err != nil {
			return err
		}
		l := &loader{groups: map[string]bool{}, defs: map[string]bool{}, foods: map[string]bool{}}
		steps := []struct {
			base, table, what string
			fields            int
			n                 *int64
			row               func(f []string, s *srFile) ([]any, error)
		}{
			{"FD_GROUP", "stage_groups", "food groups", 2, &res.Groups, l.group},
			{"NUTR_DEF", "stage_defs", "nutrients", 6, &res.NutrientDefs, l.def},
			{"FOOD_DES", "stage_foods", "foods", 14, &res.Foods, l.food},
			{"NUT_DATA", "stage_values", "nutrient values", 18, &res.Values, l.value},
			{"WEIGHT", "stage_weights", "household measures", 7, &res.Weights, l.weight},
		}
		for _, st := range steps {
			t := time.Now()
			s, err := openSR(dir, st.base, st.fields)
			if err != nil {
				return err
			}
			src := &copySource{file: s, row: st.row}
			n, err := tx.CopyFrom(ctx, pgx.Identifier{st.table}, stagingColumns[st.table], src)
			s.Close()
			if src.err != nil {
				return src.err
			}
			if err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			if n == 0 {
				return &FileError{File: s.name, Msg: "holds no records"}
			}
			*st.n = n
			fmt.Fprintf(progress, "read %s: %d %s (%s)\n", s.name, n, st.what, time.Since(t).Round(time.Millisecond))
		}
		if _, err := tx.Exec(ctx, "ANALYZE stage_groups, stage_defs, stage_foods, stage_values, stage_weights"); err != nil {
			return err
		}
		for _, a := range apply {
			t := time.Now()
			c := res.change(a.table)
			var n [2]int64
			var err error
			if a.kind == "upsert" {
				err = tx.QueryRow(ctx, a.sql).Scan(&n[0], &n[1])
			} else {
				err = tx.QueryRow(ctx, a.sql).Scan(&n[0])
			}
			if err != nil {
				return fmt.Errorf("%s: %w", a.table, err)
			}
			switch a.kind {
			case "upsert":
				c.Inserted, c.Updated = n[0], n[1]
				fmt.Fprintf(progress, "%s: %d inserted, %d updated (%s)\n", a.table, n[0], n[1], time.Since(t).Round(time.Millisecond))
			case "insert":
				c.Inserted = n[0]
				fmt.Fprintf(progress, "%s: %d inserted (%s)\n", a.table, n[0], time.Since(t).Round(time.Millisecond))
			case "update":
				c.Updated = n[0]
				fmt.Fprintf(progress, "%s: %d updated (%s)\n", a.table, n[0], time.Since(t).Round(time.Millisecond))
			case "delete":
				c.Deleted = n[0]
				fmt.Fprintf(progress, "%s: %d deleted (%s)\n", a.table, n[0], time.Since(t).Round(time.Millisecond))
			}
		}
		// A new release revision when anything changed: every replica then reads USDA's profiles
		// again instead of the ones it keeps (see profileCache).
		if res.Changed() {
			if _, err := tx.Exec(ctx, "UPDATE usda_release SET revision = gen_random_uuid()"); err != nil {
				return err
			}
		}
		// Fresh statistics, so the first searches after an import plan with the real sizes.
		_, err := tx.Exec(ctx, "ANALYZE usda_food_groups, usda_nutrient_defs, usda_foods, usda_nutrient_values, usda_weights")
		return err
	})
	res.Took = time.Since(start)
	if err != nil {
		return res, err
	}
	fmt.Fprintf(progress, "imported SR28 from %s in %s\n", dir, res.Took.Round(time.Millisecond))
	return res, nil
}

var stagingColumns = map[string][]string{
	"stage_groups":  {"code", "name"},
	"stage_defs":    {"nutr_no", "units", "tagname", "name", "num_dec", "sr_order"},
	"stage_foods":   {"ndb_no", "id", "food_group", "name", "short_name", "common_name"},
	"stage_values":  {"ndb_no", "nutr_no", "value"},
	"stage_weights": {"ndb_no", "seq", "amount", "measure", "grams"},
}

// copySource streams a file's records into COPY, checking each; the first bad record stops
// the COPY (and so the transaction), kept in err with its file and line.
type copySource struct {
	file *srFile
	row  func(f []string, s *srFile) ([]any, error)
	vals []any
	err  error
}

func (c *copySource) Next() bool {
	ok, err := c.file.next()
	if err == nil && ok {
		c.vals, err = c.row(c.file.fields, c.file)
	}
	if err != nil {
		c.err = err
		return false
	}
	return ok
}

func (c *copySource) Values() ([]any, error) { return c.vals, nil }
func (c *copySource) Err() error             { return c.err }

// loader checks records against each other: every food's group, every value's food and
// nutrient, no key twice.
type loader struct {
	groups, defs, foods map[string]bool
	values              map[[2]string]bool
	weights             map[string]bool
}

func (l *loader) group(f []string, s *srFile) ([]any, error) {
	switch {
	case !isDigits(f[0], 4):
		return nil, s.errf("FdGrp_Cd %q is not a 4-digit code", f[0])
	case l.groups[f[0]]:
		return nil, s.errf("food group %s appears twice", f[0])
	case f[1] == "":
		return nil, s.errf("food group %s has no description", f[0])
	}
	l.groups[f[0]] = true
	return []any{f[0], f[1]}, nil
}

func (l *loader) def(f []string, s *srFile) ([]any, error) {
	switch {
	case !isDigits(f[0], 3):
		return nil, s.errf("Nutr_No %q is not a 3-digit number", f[0])
	case l.defs[f[0]]:
		return nil, s.errf("nutrient %s appears twice", f[0])
	case f[1] == "" || f[3] == "":
		return nil, s.errf("nutrient %s has no units or description", f[0])
	case !isInt(f[4]) || !isInt(f[5]):
		return nil, s.errf("nutrient %s: Num_Dec %q and SR_Order %q must be whole numbers", f[0], f[4], f[5])
	}
	l.defs[f[0]] = true
	return []any{f[0], f[1], f[2], f[3], f[4], f[5]}, nil
}

func (l *loader) food(f []string, s *srFile) ([]any, error) {
	switch {
	case !isDigits(f[0], 5):
		return nil, s.errf("NDB_No %q is not a 5-digit number", f[0])
	case l.foods[f[0]]:
		return nil, s.errf("food %s appears twice", f[0])
	case !l.groups[f[1]]:
		return nil, s.errf("food %s: food group %q is not in FD_GROUP", f[0], f[1])
	case f[2] == "":
		return nil, s.errf("food %s has no description (Long_Desc)", f[0])
	}
	l.foods[f[0]] = true
	return []any{f[0], USDAFoodID(f[0]).String(), f[1], f[2], f[3], f[4]}, nil
}

func (l *loader) value(f []string, s *srFile) ([]any, error) {
	switch {
	case !l.foods[f[0]]:
		return nil, s.errf("NDB_No %q is not a food of FOOD_DES", f[0])
	case !l.defs[f[1]]:
		return nil, s.errf("Nutr_No %q is not a nutrient of NUTR_DEF", f[1])
	case !isDecimal(f[2]):
		return nil, s.errf("food %s nutrient %s: Nutr_Val %q is not a non-negative decimal", f[0], f[1], f[2])
	}
	if l.values == nil {
		l.values = make(map[[2]string]bool, 700_000)
	}
	k := [2]string{f[0], f[1]}
	if l.values[k] {
		return nil, s.errf("food %s nutrient %s appears twice", f[0], f[1])
	}
	l.values[k] = true
	return []any{f[0], f[1], f[2]}, nil
}

func (l *loader) weight(f []string, s *srFile) ([]any, error) {
	l.values = nil // done with: let the collector have them
	if l.weights == nil {
		l.weights = map[string]bool{}
	}
	switch {
	case !l.foods[f[0]]:
		return nil, s.errf("NDB_No %q is not a food of FOOD_DES", f[0])
	case !isInt(f[1]):
		return nil, s.errf("food %s: Seq %q is not a whole number", f[0], f[1])
	case !isDecimal(f[2]) || isZero(f[2]):
		return nil, s.errf("food %s measure %s: Amount %q is not a positive decimal", f[0], f[1], f[2])
	case f[3] == "":
		return nil, s.errf("food %s measure %s has no description", f[0], f[1])
	case !isDecimal(f[4]) || isZero(f[4]):
		return nil, s.errf("food %s measure %s: Gm_Wgt %q is not a positive decimal", f[0], f[1], f[4])
	}
	k := f[0] + "^" + f[1]
	if l.weights[k] {
		return nil, s.errf("food %s measure %s appears twice", f[0], f[1])
	}
	l.weights[k] = true
	return []any{f[0], f[1], f[2], f[3], f[4]}, nil
}
