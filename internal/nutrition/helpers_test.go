package nutrition_test

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/internal/nutrition"
)

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func dp(s string) *decimal.Decimal { v := d(s); return &v }

// amounts builds per-100 g amounts from nutrient, value pairs.
func amounts(kv ...any) nutrition.Amounts {
	out := nutrition.Amounts{}
	for i := 0; i < len(kv); i += 2 {
		out[kv[i].(nutrition.Nutrient)] = d(kv[i+1].(string))
	}
	return out
}

func mustAnalyze(t *testing.T, r *nutrition.Recipe) *nutrition.Analysis {
	t.Helper()
	a, err := nutrition.Analyze(r)
	if err != nil {
		t.Fatalf("Analyze(%s): %v", r.Name, err)
	}
	return a
}

func wantValue(t *testing.T, what string, got nutrition.Value, amount string, complete bool) {
	t.Helper()
	if !got.Amount.Equal(d(amount)) || got.Complete != complete {
		t.Errorf("%s = %s (complete %v), want %s (complete %v)", what, got.Amount, got.Complete, amount, complete)
	}
}
