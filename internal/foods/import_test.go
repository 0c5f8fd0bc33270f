package foods_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/foods"
	"github.com/sous-app/sous/internal/nutrition"
)

// The importer reads USDA's format (CRLF, ^ fields, ~ text, Latin-1, a last record without a
// line end, ".5"), keeps values exactly, and a nutrient without a NUT_DATA row is unknown.
func TestImportFixture(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	dir := writeFixture(t, map[string]string{"NUT_DATA.txt": "", "NUT_DATA.txt.gz": gzipped(t, fixture["NUT_DATA.txt"])})
	res := k.importDir(dir)
	if res.Foods != 3 || res.Values != 14 || res.Weights != 5 || res.Groups != 2 || res.NutrientDefs != 6 || !res.Changed() {
		t.Fatalf("result %+v", res)
	}
	butter := k.get(foods.USDAFoodID("01001"))
	want := map[string]string{"energyKcal": "717", "fatG": "81.11", "sodiumMg": "643", "proteinG": "0.85", "carbohydrateG": "0.06"}
	for key, v := range want {
		if got := butter.Per100g[key]; got == nil || *got != v {
			t.Errorf("butter %s = %v, want %s", key, got, v)
		}
	}
	for _, key := range []string{"vitaminDMcg", "transFatG", "addedSugarsG", "sugarsG"} {
		if butter.Per100g[key] != nil {
			t.Errorf("butter %s = %s, want null (not analysed)", key, *butter.Per100g[key])
		}
	}
	if butter.Source != "usda" || butter.NdbNo != "01001" || butter.FoodGroup != "Dairy and Egg Products" || len(butter.Portions) != 2 ||
		butter.Portions[0] != (portion{"1", `pat (1" sq, 1/3" high)`, "5"}) {
		t.Errorf("butter %+v", butter)
	}
	apple := k.get(foods.USDAFoodID("09003"))
	if len(apple.Portions) != 3 || apple.Portions[1] != (portion{"1", `medium (3" dia)`, "182"}) || apple.Portions[2].Amount != "0.5" {
		t.Errorf("apple portions %+v", apple.Portions)
	}
	// Analysed as zero is known: 0, not null.
	if v := apple.Per100g["vitaminDMcg"]; v == nil || *v != "0" {
		t.Errorf("apple vitamin D %v, want 0", v)
	}
	var units string
	if err := k.env.Pool.QueryRow(t.Context(), `SELECT units FROM usda_nutrient_defs WHERE nutr_no = '328'`).Scan(&units); err != nil || units != "µg" {
		t.Errorf("Latin-1 unit read as %q (%v)", units, err)
	}

	// The profile an analysis reads, now kept in memory at this release's revision.
	sodium := func() string {
		t.Helper()
		p, err := foods.Profiles(t.Context(), db.New(k.env.Pool), k.org, []uuid.UUID{foods.USDAFoodID("01001")})
		if err != nil {
			t.Fatal(err)
		}
		v, ok := p[foods.USDAFoodID("01001")].Per100g[nutrition.SodiumMg]
		if !ok {
			return "unknown"
		}
		return v.String()
	}
	if got := sodium(); got != "643" {
		t.Errorf("profile sodium %s, want 643", got)
	}

	// The same release again changes nothing, not even a row version.
	before := k.referenceDigest()
	if again := k.importDir(dir); again.Changed() {
		t.Errorf("re-import changed %+v", again.Changes)
	}
	if after := k.referenceDigest(); after != before {
		t.Error("re-import rewrote rows")
	}

	// A later release: a value changes, a food goes, a measure goes; ids stay.
	next := writeFixture(t, map[string]string{
		"FOOD_DES.txt": strings.Join(strings.Split(fixture["FOOD_DES.txt"], "\r\n")[:1], "") + "\r\n" + strings.Split(fixture["FOOD_DES.txt"], "\r\n")[2],
		"NUT_DATA.txt": strings.ReplaceAll(strings.ReplaceAll(fixture["NUT_DATA.txt"], "~01001~^~307~^643^", "~01001~^~307~^650^"),
			"~01145~^~204~^81.11^0^^~4~^^^^^^^^^^^11/1976^\r\n~01145~^~208~^717^0^^~4~^^^^^^^^^^^11/1976^\r\n~01145~^~307~^11^0^^~4~^^^^^^^^^^^11/1976^\r\n", ""),
		"WEIGHT.txt": strings.Replace(fixture["WEIGHT.txt"], "~09003~^3^.5^~large (3-1/4\" dia)~^111^^\r\n", "", 1),
	})
	changed := k.importDir(next)
	byTable := map[string]foods.Change{}
	for _, c := range changed.Changes {
		byTable[c.Table] = c
	}
	if byTable["usda_foods"].Deleted != 1 || byTable["usda_nutrient_values"].Updated != 1 || byTable["usda_nutrient_values"].Deleted != 3 ||
		byTable["usda_weights"].Deleted != 1 {
		t.Errorf("changes %+v", changed.Changes)
	}
	if b := k.get(foods.USDAFoodID("01001")); *b.Per100g["sodiumMg"] != "650" {
		t.Errorf("sodium %s", *b.Per100g["sodiumMg"])
	}
	// The import made a new release revision, so the kept profile is read again.
	if got := sodium(); got != "650" {
		t.Errorf("profile sodium after the new release %s, want 650", got)
	}
	k.call("GET", "foods/"+foods.USDAFoodID("01145").String()).Do().ExpectError(404, "Food not found")
}

// A wrong, truncated or corrupted file fails the import naming the file and line; the data of
// the previous import stays whole.
func TestImportRefusesBadFiles(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	k.importDir(writeFixture(t, nil))
	before := k.referenceDigest()
	nut := fixture["NUT_DATA.txt"]
	for _, c := range []struct {
		name    string
		changes map[string]string
		want    string
	}{
		{"truncated inside a record", map[string]string{"NUT_DATA.txt": nut[:len(nut)-30]}, "NUT_DATA.txt line 14: 3 fields, want 18"},
		{"truncated gzip", map[string]string{"NUT_DATA.txt": "", "NUT_DATA.txt.gz": gzipped(t, nut)[:120]}, "NUT_DATA.txt.gz line "},
		{"not gzip", map[string]string{"NUT_DATA.txt": "", "NUT_DATA.txt.gz": nut}, "NUT_DATA.txt.gz: not a gzip file"},
		{"missing file", map[string]string{"WEIGHT.txt": ""}, "WEIGHT.txt: not found in"},
		{"wrong file", map[string]string{"WEIGHT.txt": fixture["FOOD_DES.txt"]}, "WEIGHT.txt line 1: 14 fields, want 7"},
		{"empty file", map[string]string{"FD_GROUP.txt": "\r\n"}, "FD_GROUP.txt line 1: 1 fields, want 2"},
		{"not a number", map[string]string{"NUT_DATA.txt": strings.Replace(nut, "^717^", "^7l7^", 1)}, `NUT_DATA.txt line 4: food 01001 nutrient 208: Nutr_Val "7l7" is not a non-negative decimal`},
		{"negative", map[string]string{"NUT_DATA.txt": strings.Replace(nut, "^717^", "^-717^", 1)}, "NUT_DATA.txt line 4: "},
		{"NaN", map[string]string{"NUT_DATA.txt": strings.Replace(nut, "^717^", "^NaN^", 1)}, "NUT_DATA.txt line 4: "},
		{"unknown food", map[string]string{"NUT_DATA.txt": strings.Replace(nut, "~09003~^~208~", "~09004~^~208~", 1)}, `NUT_DATA.txt line 12: NDB_No "09004" is not a food of FOOD_DES`},
		{"unknown nutrient", map[string]string{"NUT_DATA.txt": strings.Replace(nut, "~09003~^~208~", "~09003~^~999~", 1)}, `NUT_DATA.txt line 12: Nutr_No "999" is not a nutrient of NUTR_DEF`},
		{"twice", map[string]string{"NUT_DATA.txt": nut + "~01001~^~208~^717^0^^~4~^^^^^^^^^^^11/1976^\r\n"}, "NUT_DATA.txt line 15: food 01001 nutrient 208 appears twice"},
		{"unclosed text", map[string]string{"FOOD_DES.txt": strings.Replace(fixture["FOOD_DES.txt"], "~Butter, salted~", "~Butter, salted", 1)}, "FOOD_DES.txt line 1: field 3: text opened with ~ is not closed"},
		{"zero weight", map[string]string{"WEIGHT.txt": strings.Replace(fixture["WEIGHT.txt"], "^182^", "^0^", 1)}, "WEIGHT.txt line 4: "},
		{"binary", map[string]string{"FOOD_DES.txt": strings.Repeat("\x00\xff", 5000)}, "FOOD_DES.txt line 1: longer than"},
	} {
		_, err := foods.ImportSR28(t.Context(), k.env.Pool, writeFixture(t, c.changes), io.Discard)
		var fe *foods.FileError
		if err == nil || !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
	if after := k.referenceDigest(); after != before {
		t.Error("a failed import changed the reference data")
	}
}

// USDA's SR28 itself: the checks of its README, a re-import that changes nothing, and a
// truncated copy refused with the data whole. (One test imports the full release: it takes
// seconds; the others use the fixture.)
func TestImportSR28(t *testing.T) {
	t.Parallel()
	dir := sr28Dir(t)
	k := newKitchen(t)
	res := k.importDir(dir)
	if res.Foods != 8789 || res.Values != 679045 || res.Weights != 15438 {
		t.Fatalf("imported %+v", res)
	}
	butter := k.get(foods.USDAFoodID("01001"))
	for key, v := range map[string]string{"energyKcal": "717", "sodiumMg": "643", "fatG": "81.11"} {
		if got := butter.Per100g[key]; got == nil || *got != v {
			t.Errorf("butter %s = %v, want %s", key, got, v)
		}
	}
	if butter.Per100g["addedSugarsG"] != nil {
		t.Error("SR has no added sugars, yet butter has some")
	}
	apple := k.get(foods.USDAFoodID("09003"))
	if v := apple.Per100g["energyKcal"]; v == nil || *v != "52" {
		t.Errorf("apple energy %v", v)
	}
	medium := false
	for _, p := range apple.Portions {
		medium = medium || p.Amount == "1" && strings.HasPrefix(p.Measure, "medium") && p.Grams == "182"
	}
	if !medium {
		t.Errorf("apple portions %+v", apple.Portions)
	}
	var unknownTrans int
	if err := k.env.Pool.QueryRow(t.Context(), `SELECT count(*) FROM usda_foods f
		WHERE NOT EXISTS (SELECT 1 FROM usda_nutrient_values v WHERE v.ndb_no = f.ndb_no AND v.nutr_no = '605')`).Scan(&unknownTrans); err != nil {
		t.Fatal(err)
	}
	if unknownTrans != 8789-5041 {
		t.Errorf("%d foods without trans fat, want %d", unknownTrans, 8789-5041)
	}

	// Search ranks the README's example first, typo or not.
	for _, q := range []string{"butter+salted", "buter+salted", "Butter,+salted"} {
		if got := k.search("q=" + q); len(got) == 0 || got[0].NdbNo != "01001" {
			t.Errorf("q=%s: first %+v", q, first(got))
		}
	}

	before := k.referenceDigest()
	if again := k.importDir(dir); again.Changed() {
		t.Errorf("re-import changed %+v", again.Changes)
	}
	if k.referenceDigest() != before {
		t.Error("re-import rewrote rows")
	}

	// A copy whose NUT_DATA was cut short: refused, naming the file and line; nothing changes.
	cut := t.TempDir()
	for _, name := range []string{"FD_GROUP.txt", "NUTR_DEF.txt", "FOOD_DES.txt", "WEIGHT.txt"} {
		if err := os.Symlink(filepath.Join(dir, name), filepath.Join(cut, name)); err != nil {
			t.Fatal(err)
		}
	}
	gz, err := os.ReadFile(filepath.Join(dir, "NUT_DATA.txt.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cut, "NUT_DATA.txt.gz"), gz[:len(gz)/2], 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = foods.ImportSR28(t.Context(), k.env.Pool, cut, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "NUT_DATA.txt.gz line ") {
		t.Errorf("truncated NUT_DATA: %v", err)
	}
	if k.referenceDigest() != before {
		t.Error("a failed import changed the reference data")
	}
}

func first(fs []food) any {
	if len(fs) == 0 {
		return nil
	}
	return fs[0]
}
