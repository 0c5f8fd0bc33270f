package httpapi_test

import (
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// The validator writes a schema's defaults back into the body, re-encoding it, which replaced
// invalid UTF-8 with U+FFFD before the hostile-strings check could see it: operations whose
// schema has defaults stored the replacement instead of answering 400. Each body here leaves a
// defaulted field out and carries raw invalid UTF-8 in name; each must be refused, nothing written.
func TestInvalidUTF8IsRefusedWhereDefaultsAreFilledIn(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Hostile Defaults")
	org := "orgs/" + orgID.String() + "/"
	var tpl struct {
		ID string `json:"id"`
	}
	env.Call(http.MethodPost, org+"inspection-templates").Token(owner.AccessToken).
		JSON(map[string]any{"name": "Opening", "sections": []any{map[string]any{"title": "Cold", "items": []any{map[string]any{"key": "a", "prompt": "Cold?", "kind": "pass_fail"}}}}}).
		Do().Expect(http.StatusCreated).Decode(&tpl)
	template := "{\"name\":\"bad \xff name\",\"sections\":[{\"title\":\"Cold\",\"items\":[{\"key\":\"a\",\"prompt\":\"Cold?\",\"kind\":\"pass_fail\"}]}]}"
	walkthrough := "{\"name\":\"bad \xff name\",\"kind\":\"opening\",\"steps\":[{\"key\":\"a\",\"prompt\":\"Lights\",\"answerKind\":\"check\"}]}"
	for _, c := range []struct{ method, path, body, table string }{
		{http.MethodPost, org + "inspection-templates", template, "inspection_templates"},
		{http.MethodPut, org + "inspection-templates/" + tpl.ID, template, "inspection_templates"},
		{http.MethodPost, org + "walkthroughs", walkthrough, "walkthroughs"},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			env := env.With(t)
			e := env.Call(c.method, c.path).Token(owner.AccessToken).Raw("application/json", []byte(c.body)).Do().ExpectError(http.StatusBadRequest, "")
			if !slices.ContainsFunc(e.Details, func(d struct {
				Field   string `json:"field"`
				Message string `json:"message"`
			}) bool {
				return d.Field == "name" && d.Message == "must be valid UTF-8"
			}) {
				t.Fatalf("400 does not name name: %+v", e)
			}
			var n int
			if err := env.Pool.QueryRow(t.Context(), "SELECT count(*) FROM "+c.table+" WHERE org_id = $1 AND name LIKE '%\uFFFD%'", orgID).Scan(&n); err != nil || n != 0 {
				t.Fatalf("written with U+FFFD: %d (%v)", n, err)
			}
		})
	}
}

// Date-times in parameters and bodies are held to the range every moment is (1900 to 9998): a
// year-0 moment is refused by the contract, not stored and answered in a form the spec refuses.
func TestDateTimesOutOfRangeAreRefused(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Far Kitchens")
	for _, c := range []struct {
		from   string
		status int
	}{
		{"0000-01-01T00:00:00Z", http.StatusBadRequest},
		{"1899-12-31T23:59:59Z", http.StatusBadRequest},
		{"9999-12-31T23:00:00-06:00", http.StatusBadRequest},
		{"1900-01-01T00:00:00Z", http.StatusOK},
		{"9998-12-31T23:59:59Z", http.StatusOK},
	} {
		res := env.Call(http.MethodGet, "orgs/"+orgID.String()+"/audit-log?from="+url.QueryEscape(c.from)).Token(owner.AccessToken).Do()
		if c.status == http.StatusOK {
			res.Expect(http.StatusOK)
			continue
		}
		e := res.ExpectError(c.status, "")
		if len(e.Details) == 0 || e.Details[0].Field != "from" {
			t.Errorf("from=%s: %+v", c.from, e)
		}
	}
}
