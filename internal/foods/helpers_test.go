package foods_test

import (
	"compress/gzip"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/foods"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// sr28Dir is where USDA's SR28 files are: $SOUS_SR28_DIR, else ../shared/usda/sr28 beside the
// repository. They are the user's data, never the project's (nothing installs them), so where
// they are absent the test is skipped, saying where to put them; when SOUS_SR28_DIR names a
// directory without them, the test fails.
func sr28Dir(t testing.TB) string {
	t.Helper()
	dir, named := os.LookupEnv("SOUS_SR28_DIR")
	if !named || dir == "" {
		_, file, _, _ := runtime.Caller(0)
		dir, named = filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "usda", "sr28"), false
	}
	if _, err := os.Stat(filepath.Join(dir, "FOOD_DES.txt")); err != nil {
		msg := "USDA SR28 files not found in " + dir + ": put USDA's SR28 ASCII files (FOOD_DES.txt, NUT_DATA.txt or .txt.gz, " +
			"NUTR_DEF.txt, WEIGHT.txt, FD_GROUP.txt) in ../shared/usda/sr28 beside the repository, or set SOUS_SR28_DIR"
		if named {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return dir
}

// kitchen is an organization, its owner, and the test's server.
type kitchen struct {
	t     *testing.T
	env   *apitest.Env
	owner apitest.Session
	org   uuid.UUID
}

func newKitchen(t *testing.T) *kitchen {
	env := apitest.New(t)
	owner, org := env.NewOwner("Harborview Kitchens")
	return &kitchen{t: t, env: env, owner: owner, org: org}
}

func (k *kitchen) call(method, path string) *apitest.Request {
	return k.env.Call(method, "orgs/"+k.org.String()+"/"+path).Token(k.owner.AccessToken)
}

func (k *kitchen) as(s apitest.Session, method, path string) *apitest.Request {
	return k.env.Call(method, "orgs/"+k.org.String()+"/"+path).Token(s.AccessToken)
}

// importSR28 imports an SR28 directory into env's database.
func importSR28(tb testing.TB, env *apitest.Env, dir string) (foods.ImportResult, error) {
	tb.Helper()
	return foods.ImportSR28(tb.Context(), env.Pool, dir, io.Discard)
}

// importDir imports an SR28 directory into the test's database.
func (k *kitchen) importDir(dir string) foods.ImportResult {
	k.t.Helper()
	res, err := importSR28(k.t, k.env, dir)
	if err != nil {
		k.t.Fatalf("import %s: %v", dir, err)
	}
	return res
}

type portion struct {
	Amount  string `json:"amount"`
	Measure string `json:"measure"`
	Grams   string `json:"grams"`
}

type food struct {
	ID           uuid.UUID          `json:"id"`
	Source       string             `json:"source"`
	NdbNo        string             `json:"ndbNo"`
	Name         string             `json:"name"`
	FoodGroup    string             `json:"foodGroup"`
	Portions     []portion          `json:"portions"`
	Per100g      map[string]*string `json:"per100g"`
	PerServing   map[string]*string `json:"perServing"`
	ServingGrams *string            `json:"servingGrams"`
	Allergens    map[string]string  `json:"allergens"`
}

func (k *kitchen) search(query string) []food {
	k.t.Helper()
	var out []food
	k.call(http.MethodGet, "foods?"+query).Do().Expect(http.StatusOK).Decode(&out)
	return out
}

func (k *kitchen) get(id uuid.UUID) food {
	k.t.Helper()
	var f food
	k.call(http.MethodGet, "foods/"+id.String()).Do().Expect(http.StatusOK).Decode(&f)
	return f
}

func (k *kitchen) create(body map[string]any) food {
	k.t.Helper()
	var f food
	k.call(http.MethodPost, "foods").JSON(body).Do().Expect(http.StatusCreated).Decode(&f)
	return f
}

// count is a row count of a query.
func (k *kitchen) count(sql string, args ...any) int {
	k.t.Helper()
	var n int
	if err := k.env.Pool.QueryRow(k.t.Context(), sql, args...).Scan(&n); err != nil {
		k.t.Fatal(err)
	}
	return n
}

// referenceDigest summarises every reference table's content, to show an import changed
// nothing.
func (k *kitchen) referenceDigest() string {
	k.t.Helper()
	var s string
	err := k.env.Pool.QueryRow(k.t.Context(), `SELECT concat_ws('|',
		(SELECT md5(string_agg(concat_ws(',', code, name), ';' ORDER BY code)) FROM usda_food_groups),
		(SELECT md5(string_agg(concat_ws(',', nutr_no, units, name), ';' ORDER BY nutr_no)) FROM usda_nutrient_defs),
		(SELECT md5(string_agg(concat_ws(',', ndb_no, id, food_group, name, xmin), ';' ORDER BY ndb_no)) FROM usda_foods),
		(SELECT md5(string_agg(concat_ws(',', ndb_no, nutr_no, value, xmin), ';' ORDER BY ndb_no, nutr_no)) FROM usda_nutrient_values),
		(SELECT md5(string_agg(concat_ws(',', ndb_no, seq, amount, measure, grams, xmin), ';' ORDER BY ndb_no, seq)) FROM usda_weights))`).Scan(&s)
	if err != nil {
		k.t.Fatal(err)
	}
	return s
}

// A hand-made SR28 directory in USDA's format (CRLF, ^ and ~, Latin-1): three foods.
var fixture = map[string]string{
	"FD_GROUP.txt": "~0100~^~Dairy and Egg Products~\r\n~0900~^~Fruits and Fruit Juices~\r\n",
	"NUTR_DEF.txt": strings.Join([]string{
		"~203~^~g~^~PROCNT~^~Protein~^~2~^~600~",
		"~204~^~g~^~FAT~^~Total lipid (fat)~^~2~^~800~",
		"~205~^~g~^~CHOCDF~^~Carbohydrate, by difference~^~2~^~1100~",
		"~208~^~kcal~^~ENERC_KCAL~^~Energy~^~0~^~300~",
		"~307~^~mg~^~NA~^~Sodium, Na~^~0~^~5800~",
		"~328~^~\xb5g~^~VITD~^~Vitamin D (D2 + D3)~^~1~^~8700~",
	}, "\r\n") + "\r\n",
	"FOOD_DES.txt": strings.Join([]string{
		"~01001~^~0100~^~Butter, salted~^~BUTTER,WITH SALT~^^^~Y~^^0^^6.38^4.27^8.79^3.87",
		"~01145~^~0100~^~Butter, without salt~^~BUTTER,WITHOUT SALT~^^^~Y~^^0^^6.38^4.27^8.79^3.87",
		"~09003~^~0900~^~Apples, raw, with skin~^~APPLES,RAW,WITH SKIN~^^^~Y~^~Core and stem~^10^~Malus domestica~^^3.36^8.37^3.6",
	}, "\r\n"), // USDA's last record has no line end
	"NUT_DATA.txt": strings.Join([]string{
		"~01001~^~203~^0.85^16^0.074^~1~^^^^^^^^^^^11/1976^",
		"~01001~^~204~^81.11^580^0.065^~1~^^^^^^^^^^^11/1976^",
		"~01001~^~205~^0.06^0^^~4~^~NC~^^^^^^^^^^11/1976^",
		"~01001~^~208~^717^0^^~4~^~NC~^^^^^^^^^^11/1976^",
		"~01001~^~307~^643^0^^~4~^^^^^^^^^^^11/1976^",
		"~01145~^~204~^81.11^0^^~4~^^^^^^^^^^^11/1976^",
		"~01145~^~208~^717^0^^~4~^^^^^^^^^^^11/1976^",
		"~01145~^~307~^11^0^^~4~^^^^^^^^^^^11/1976^",
		"~09003~^~203~^0.26^0^^~4~^^^^^^^^^^^11/1976^",
		"~09003~^~204~^0.17^0^^~4~^^^^^^^^^^^11/1976^",
		"~09003~^~205~^13.81^0^^~4~^^^^^^^^^^^11/1976^",
		"~09003~^~208~^52^0^^~4~^^^^^^^^^^^11/1976^",
		"~09003~^~307~^1^0^^~4~^^^^^^^^^^^11/1976^",
		"~09003~^~328~^0.0^0^^~4~^^^^^^^^^^^11/1976^",
	}, "\r\n") + "\r\n",
	"WEIGHT.txt": strings.Join([]string{
		"~01001~^1^1^~pat (1\" sq, 1/3\" high)~^5.0^^",
		"~01001~^2^1^~tbsp~^14.2^^",
		"~09003~^1^1^~cup, quartered or chopped~^125^^",
		"~09003~^2^1^~medium (3\" dia)~^182^^",
		"~09003~^3^.5^~large (3-1/4\" dia)~^111^^",
	}, "\r\n") + "\r\n",
}

// writeFixture writes the fixture, with changes (file name → content, "" removes the file),
// into a new directory.
func writeFixture(t *testing.T, changes map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{}
	for name, content := range fixture {
		files[name] = content
	}
	for name, content := range changes {
		if content == "" {
			delete(files, name)
		} else {
			files[name] = content
		}
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// gzipped is content gzip-compressed.
func gzipped(t *testing.T, content string) string {
	t.Helper()
	var b strings.Builder
	w := gzip.NewWriter(&b)
	if _, err := io.WriteString(w, content); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
