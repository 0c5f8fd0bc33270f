package nutrition_test

import (
	"testing"

	. "github.com/sous-app/sous/internal/nutrition"
)

// TestDeclare: every threshold of 21 CFR 101.9(c), at the boundary and just either side.
func TestDeclare(t *testing.T) {
	t.Parallel()
	cases := []struct {
		n      Nutrient
		amount string
		want   string // as the panel prints it
	}{
		// Calories: < 5 → 0; ≤ 50 → nearest 5; > 50 → nearest 10.
		{EnergyKcal, "0", "0"},
		{EnergyKcal, "4.99", "0"},
		{EnergyKcal, "5", "5"},
		{EnergyKcal, "7.49", "5"},
		{EnergyKcal, "7.5", "10"}, // a half rounds up
		{EnergyKcal, "49.99", "50"},
		{EnergyKcal, "50", "50"},
		{EnergyKcal, "50.01", "50"}, // now nearest 10
		{EnergyKcal, "54.99", "50"},
		{EnergyKcal, "55", "60"},
		{EnergyKcal, "164.418", "160"},
		// Fats: < 0.5 → 0; < 5 → nearest 0.5; ≥ 5 → nearest 1.
		{FatG, "0.49", "0g"},
		{FatG, "0.5", "0.5g"},
		{FatG, "0.74", "0.5g"},
		{FatG, "0.75", "1g"},
		{FatG, "4.74", "4.5g"},
		{FatG, "4.75", "5g"},
		{FatG, "4.99", "5g"},
		{FatG, "5", "5g"},
		{FatG, "5.49", "5g"},
		{FatG, "5.5", "6g"},
		{SaturatedFatG, "0.499", "0g"},
		{SaturatedFatG, "2.3", "2.5g"},
		{SaturatedFatG, "6.443932", "6g"},
		{TransFatG, "0.40975", "0g"},
		{TransFatG, "0.5", "0.5g"},
		// Cholesterol: < 2 → 0; 2 to 5 → less than 5; > 5 → nearest 5.
		{CholesterolMg, "1.99", "0mg"},
		{CholesterolMg, "2", "Less than 5mg"},
		{CholesterolMg, "5", "Less than 5mg"},
		{CholesterolMg, "5.01", "5mg"},
		{CholesterolMg, "7.49", "5mg"},
		{CholesterolMg, "7.5", "10mg"},
		{CholesterolMg, "26.875", "25mg"},
		// Sodium: < 5 → 0; ≤ 140 → nearest 5; > 140 → nearest 10.
		{SodiumMg, "4.99", "0mg"},
		{SodiumMg, "5", "5mg"},
		{SodiumMg, "7.5", "10mg"},
		{SodiumMg, "139.99", "140mg"},
		{SodiumMg, "140", "140mg"},
		{SodiumMg, "142.5", "140mg"}, // > 140: nearest 10, not 145
		{SodiumMg, "144.99", "140mg"},
		{SodiumMg, "145", "150mg"},
		// Carbohydrate, fiber, sugars, added sugars, protein: < 0.5 → 0; < 1 → less than 1; ≥ 1 → nearest 1.
		{CarbohydrateG, "0.49", "0g"},
		{CarbohydrateG, "0.5", "Less than 1g"},
		{CarbohydrateG, "0.99", "Less than 1g"},
		{CarbohydrateG, "1", "1g"},
		{CarbohydrateG, "1.49", "1g"},
		{CarbohydrateG, "1.5", "2g"},
		{FiberG, "0.499", "0g"},
		{FiberG, "0.5", "Less than 1g"},
		{SugarsG, "17.2164975", "17g"},
		{AddedSugarsG, "0.5", "Less than 1g"},
		{AddedSugarsG, "8.5", "9g"},
		{ProteinG, "0.35097125", "0g"},
		{ProteinG, "0.99", "Less than 1g"},
		{ProteinG, "1", "1g"},
		// Vitamin D and iron to 0.1; calcium, potassium (and phosphorus) to 10.
		{VitaminDMcg, "0.04", "0mcg"},
		{VitaminDMcg, "0.05", "0.1mcg"},
		{VitaminDMcg, "0.1875", "0.2mcg"},
		{IronMg, "0.14527375", "0.1mg"},
		{IronMg, "0.15", "0.2mg"},
		{CalciumMg, "4.99", "0mg"},
		{CalciumMg, "5", "10mg"},
		{CalciumMg, "8.549625", "10mg"},
		{PotassiumMg, "96.14175", "100mg"},
		{PotassiumMg, "94.99", "90mg"},
		{PhosphorusMg, "12.43275", "10mg"},
	}
	for _, c := range cases {
		got := Declare(c.n, d(c.amount))
		if got.Text(c.n) != c.want {
			t.Errorf("Declare(%s, %s) = %q, want %q", c.n, c.amount, got.Text(c.n), c.want)
		}
	}
}

// TestDailyValuePercent: the 2016 DVs, %DV of the declared amount (of the actual one for a
// "less than"), and the 2/5/10 % steps of vitamins and minerals at their boundaries.
func TestDailyValuePercent(t *testing.T) {
	t.Parallel()
	cases := []struct {
		n      Nutrient
		amount string
		want   string // "" for no %DV
	}{
		{FatG, "0.4", "0"},             // declared 0 g → 0 %, not 0.4 ÷ 78 = 0.5 % → 1 %
		{FatG, "10.27798", "13"},       // declared 10 g: 10 ÷ 78 = 12.8 %
		{FatG, "39", "50"},             // 39 ÷ 78 = 50 %
		{SaturatedFatG, "6.4", "30"},   // 6 ÷ 20
		{CholesterolMg, "3", "1"},      // less than 5 mg: actual 3 ÷ 300 = 1 %
		{CholesterolMg, "1.5", "0"},    // declared 0
		{CholesterolMg, "26.875", "8"}, // 25 ÷ 300 = 8.33 %
		{SodiumMg, "81.61775", "3"},    // 80 ÷ 2300 = 3.48 %
		{SodiumMg, "2300", "100"},
		{CarbohydrateG, "20.04714", "7"},  // 20 ÷ 275 = 7.27 %
		{CarbohydrateG, "0.9", "0"},       // actual 0.9 ÷ 275 = 0.33 %
		{FiberG, "1.9867875", "7"},        // 2 ÷ 28 = 7.14 %
		{FiberG, "7", "25"},               // 7 ÷ 28
		{AddedSugarsG, "8.6995875", "18"}, // 9 ÷ 50
		{AddedSugarsG, "12.5", "26"},      // declared 13 ÷ 50
		{ProteinG, "10", ""},              // needs PDCAAS: not declared
		{EnergyKcal, "100", ""},
		{TransFatG, "1", ""},
		{SugarsG, "10", ""},
		// Vitamins and minerals: ≤ 10 % → nearest 2; ≤ 50 % → nearest 5; > 50 % → nearest 10.
		{VitaminDMcg, "0.1", "0"},   // 0.5 % → 0
		{VitaminDMcg, "0.2", "2"},   // 1 % → 2 (half up)
		{VitaminDMcg, "0.6", "4"},   // 3 % → 4
		{VitaminDMcg, "1.9", "10"},  // 9.5 % → 10
		{VitaminDMcg, "2", "10"},    // 10 %
		{VitaminDMcg, "2.1", "10"},  // 10.5 % → nearest 5: 10
		{VitaminDMcg, "2.5", "15"},  // 12.5 % → 15
		{VitaminDMcg, "10", "50"},   // 50 %
		{VitaminDMcg, "10.1", "50"}, // 50.5 % → nearest 10: 50
		{VitaminDMcg, "11", "60"},   // 55 % → 60
		{CalciumMg, "130", "10"},    // 130 ÷ 1300 = 10 %
		{CalciumMg, "136", "10"},    // declared 140: 10.77 % → 10
		{CalciumMg, "260", "20"},
		{IronMg, "1.8", "10"},
		{IronMg, "9.04", "50"},         // declared 9.0: 50 %
		{IronMg, "9.06", "50"},         // declared 9.1: 50.56 % → 50
		{PotassiumMg, "470", "10"},     // 10 %
		{PotassiumMg, "96.14175", "2"}, // declared 100: 2.13 % → 2
		{PhosphorusMg, "100", ""},      // voluntary, not on the panel
	}
	for _, c := range cases {
		got, ok := DailyValuePercent(c.n, Declare(c.n, d(c.amount)), d(c.amount))
		switch {
		case c.want == "" && ok:
			t.Errorf("%s %s: %%DV %s, want none", c.n, c.amount, got)
		case c.want != "" && (!ok || !got.Equal(d(c.want))):
			t.Errorf("%s %s: %%DV %s (%v), want %s", c.n, c.amount, got, ok, c.want)
		}
	}
}

func TestServingGrams(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"104.99375": "105", "104.5": "105", "104.49": "104", "5": "5", "4.96": "5", "4.94": "4.9", "0.26": "0.3"} {
		if got := ServingGrams(d(in)); !got.Equal(d(want)) {
			t.Errorf("ServingGrams(%s) = %s, want %s", in, got, want)
		}
	}
}
