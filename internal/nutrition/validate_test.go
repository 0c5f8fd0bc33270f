package nutrition_test

import (
	"encoding/json"
	"errors"
	"testing"

	. "github.com/sous-app/sous/internal/nutrition"
)

func TestParseAmountsAndValidate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		in    map[string]string
		field string // "" when valid
	}{
		{"butter", map[string]string{"energyKcal": "717", "fatG": "81.11", "carbohydrateG": "0.06", "proteinG": "0.85"}, ""},
		{"macros exactly 100 g", map[string]string{"fatG": "50", "carbohydrateG": "30", "proteinG": "20"}, ""},
		{"macros over 100 g", map[string]string{"fatG": "50", "carbohydrateG": "30", "proteinG": "20.001"}, MacroSumField},
		{"negative", map[string]string{"sodiumMg": "-1"}, "sodiumMg"},
		{"10⁶ allowed", map[string]string{"sodiumMg": "1000000"}, ""},
		{"over 10⁶", map[string]string{"sodiumMg": "1000000.1"}, "sodiumMg"},
		{"NaN", map[string]string{"ironMg": "NaN"}, "ironMg"},
		{"exponent", map[string]string{"ironMg": "1e3"}, "ironMg"},
		{"empty", map[string]string{"ironMg": ""}, "ironMg"},
		{"unknown key", map[string]string{"vitaminCMg": "1"}, "vitaminCMg"},
	}
	for _, c := range cases {
		_, err := ParseAmounts(c.in)
		var fe *FieldError
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.field != "" && (!errors.As(err, &fe) || fe.Field != c.field):
			t.Errorf("%s: err = %v, want a FieldError on %s", c.name, err, c.field)
		}
	}
}

func TestValueJSON(t *testing.T) {
	t.Parallel()
	var s Set
	for _, n := range Nutrients {
		s[n] = Known(d("1.50"))
	}
	s[TransFatG] = Known(d("0.2")).Plus(Unknown(Missing{Ingredient: "Bones", Reason: NotAnalysed, Via: []string{"Stock"}}))
	s[SodiumMg] = StatedValue(d("35"))
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"energyKcal":{"value":"1.5","complete":true,"source":"computed"},"fatG":{"value":"1.5","complete":true,"source":"computed"},` +
		`"saturatedFatG":{"value":"1.5","complete":true,"source":"computed"},` +
		`"transFatG":{"value":"0.2","complete":false,"source":"computed","missing":[{"ingredient":"Bones","reason":"not_analysed","via":["Stock"]}]},` +
		`"cholesterolMg":{"value":"1.5","complete":true,"source":"computed"},"sodiumMg":{"value":"35","complete":true,"source":"stated"},`
	if got := string(b); len(got) < len(want) || got[:len(want)] != want {
		t.Errorf("JSON = %s\nwant a prefix %s", got, want)
	}
	var keys []string
	for _, n := range Nutrients {
		keys = append(keys, n.Key())
	}
	if got, _ := json.Marshal(keys); string(got) != `["energyKcal","fatG","saturatedFatG","transFatG","cholesterolMg","sodiumMg","carbohydrateG","fiberG","sugarsG","addedSugarsG","proteinG","vitaminDMcg","calciumMg","ironMg","potassiumMg","phosphorusMg"]` {
		t.Errorf("keys = %s", got)
	}
}
