package kitchen

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
)

// The typed timers and handoffs encode to the bytes of the maps they replaced (sorted keys, the
// optional ones left out when absent), so a wallboard's ETag did not change with them.
func TestWallboardRowsEncodeAsTheMapsDid(t *testing.T) {
	run, recipe := uuid.New(), uuid.New()
	at := time.Date(2026, 3, 2, 15, 4, 5, 123000000, time.UTC)
	station, portions, from := "hot line", "40", "prep"
	same := func(typed, asMap any) {
		t.Helper()
		a, _ := json.Marshal(typed)
		b, _ := json.Marshal(asMap)
		if string(a) != string(b) {
			t.Fatalf("typed %s\nmap   %s", a, b)
		}
	}
	same(productionTimer{RunID: run, RecipeID: recipe, Recipe: "Soup", Status: "holding", Since: at, Quantity: "4", Unit: "l",
		Station: &station, Portions: &portions, HoldDeadline: &at},
		map[string]any{"runId": run, "recipeId": recipe, "recipe": "Soup", "status": "holding", "since": at, "quantity": "4", "unit": "l",
			"station": station, "portions": portions, "holdDeadline": at})
	same(productionTimer{RunID: run, RecipeID: recipe, Recipe: "Soup", Status: "prepped", Since: at, Quantity: "4", Unit: "l"},
		map[string]any{"runId": run, "recipeId": recipe, "recipe": "Soup", "status": "prepped", "since": at, "quantity": "4", "unit": "l"})
	same(handoff{RunID: run, Recipe: "Soup", Station: station, At: at, From: &from},
		map[string]any{"runId": run, "recipe": "Soup", "station": station, "at": at, "from": from})
}
