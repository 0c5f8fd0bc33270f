package kitchen_test

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TEMPORARY: prints RecipeNutritionTree's plan.
func TestZZExplainTree(t *testing.T) {
	if os.Getenv("SOUS_EXPLAIN") == "" {
		t.Skip()
	}
	b := t
	k := newBenchKitchen(b)
	item := func(i int) ingredient {
		food := k.food(fmt.Sprintf("Food %d", i), oats, map[string]string{"amount": "1", "measure": "cup", "grams": "80"})
		switch i % 3 {
		case 0:
			return itemLine(k.foodItem(fmt.Sprintf("Item %d", i), "kg", &food, nineFree(), nil), "100", "g")
		case 1:
			return itemLine(k.foodItem(fmt.Sprintf("Item %d", i), "l", &food, nineFree(), nil), "2", "cup")
		}
		id := k.foodItem(fmt.Sprintf("Item %d", i), "each", &food, nineFree(), map[string]any{"gramsPer": map[string]string{"each": "120"}})
		return itemLine(id, "3", "each")
	}
	n := 0
	lines := func(count int) []ingredient {
		var out []ingredient
		for range count {
			out = append(out, item(n))
			n++
		}
		return out
	}
	stock := k.recipe(recipeBody("Stock", amount{"4", "l"}, amount{"250", "ml"}, lines(9)...))
	base := k.recipe(recipeBody("Base", amount{"3", "l"}, amount{"250", "ml"}, append(lines(9), subLine(stock.ID, "1", "l"))...))
	sauce := k.recipe(recipeBody("Sauce", amount{"2", "l"}, amount{"250", "ml"}, append(lines(10), subLine(base.ID, "500", "ml"))...))
	top := k.recipe(recipeBody("Plate", amount{"10", "each"}, amount{"1", "each"}, append(lines(12), subLine(sauce.ID, "1", "l"))...))
	if n != 40 {
		b.Fatalf("%d ingredients", n)
	}

	src, _ := os.ReadFile("../../gen/db/kitchen.sql.go")
	sql := string(regexp.MustCompile("(?s)const recipeNutritionTree = `(.*?)`").FindSubmatch(src)[1])
	ctx := t.Context()
	conn, err := k.env.Pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "PREPARE s(uuid, uuid, text[], int) AS "+sql); err != nil {
		t.Fatal(err)
	}
	args := fmt.Sprintf("'%s', '%s', '{208,204,606,605,601,307,205,291,269,203,328,301,303,306,305}', 0", k.org, top.ID)
	for i := 0; i < 8; i++ {
		start := time.Now()
		rows, err := conn.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) EXECUTE s("+args+")", pgx.QueryExecModeSimpleProtocol)
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
		if i == 0 || i == 7 {
			t.Logf("run %d (%v)\n%s", i, time.Since(start), strings.Join(plan, "\n"))
		}
	}
}
