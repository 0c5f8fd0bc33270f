package clinical_test

import (
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
)

type unmappedCode struct {
	Kind             string     `json:"kind"`
	Code             string     `json:"code"`
	Text             string     `json:"text"`
	System           string     `json:"system"`
	Occurrences      int        `json:"occurrences"`
	FirstSeenAt      *time.Time `json:"firstSeenAt"`
	Status           string     `json:"status"`
	Allergens        []string   `json:"allergens"`
	Diets            []string   `json:"diets"`
	MappedBy         *uuid.UUID `json:"mappedBy"`
	PatientsAffected int        `json:"patientsAffected"`
	ReappliedTo      int        `json:"reappliedTo"`
}

func (h *hospital) unmappedCodes(token, query string) []unmappedCode {
	h.env.T.Helper()
	var out []unmappedCode
	path := orgPath(h.orgID, "clinical/unmapped-codes")
	if query != "" {
		path += "?" + query
	}
	h.env.Call(http.MethodGet, path).Token(token).Do().Expect(http.StatusOK).Decode(&out)
	return out
}

func (h *hospital) mapCode(token, code string, body map[string]any) unmappedCode {
	h.env.T.Helper()
	var out unmappedCode
	h.env.Call(http.MethodPut, orgPath(h.orgID, "clinical/unmapped-codes", url.PathEscape(code))).Token(token).
		JSON(body).Do().Expect(http.StatusOK).Decode(&out)
	return out
}

func TestUnmappedCodesAreReviewedAndMappingsReapplied(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	manager := h.env.Member(h.orgID, "manager")
	tok := manager.AccessToken
	r := h.ingest(
		visit{Event: "A01", Control: "MAP-1", MRN: "120000001", Unit: "4W", Room: "401", Bed: "A", AL1: []string{al1Quinoa}, ODS: []string{odsModCho}}.epic(),
		visit{Event: "A01", Control: "MAP-2", MRN: "120000002", Unit: "4W", Room: "402", Bed: "A", ODS: []string{odsModCho}}.cerner(),
		visit{Event: "A01", Control: "MAP-3", MRN: "120000003", Unit: "4W", Room: "403", Bed: "A", AL1: []string{"AL1|1|FA|^Bee pollen honey|MI"}}.epic(),
	)
	if u := r.Results[0].Detail.UnmappedCodes; len(u) != 2 || u[0].Kind != "allergen" || u[0].Code != "Q-77" || u[1].Kind != "diet" || u[1].Code != "MODCHO" {
		t.Fatalf("unmapped in result %+v", u)
	}

	codes := h.unmappedCodes(tok, "")
	byKey := map[string]unmappedCode{}
	for _, c := range codes {
		byKey[c.Kind+"/"+c.Code] = c
	}
	modcho, quinoa := byKey["diet/MODCHO"], byKey["allergen/Q-77"]
	if len(codes) != 3 || modcho.Occurrences != 2 || modcho.PatientsAffected != 2 || modcho.Text != "Modified carbohydrate" || modcho.Status != "unmapped" ||
		quinoa.PatientsAffected != 1 || quinoa.Text != "Quinoa" {
		t.Fatalf("codes %+v", codes)
	}
	if bee := byKey["allergen/BEE POLLEN HONEY"]; bee.Code == "" {
		t.Fatalf("a code sent as text only is keyed by its text: %+v", codes)
	}
	if only := h.unmappedCodes(tok, "kind=diet"); len(only) != 1 {
		t.Fatalf("kind=diet: %+v", only)
	}
	p, _ := byMRN(h.census(tok, ""), "120000001")
	if !slices.Equal(p.Flags, []string{"unmapped_allergen", "unmapped_diet"}) || len(p.Diets) != 0 {
		t.Fatalf("before mapping %+v", p)
	}

	// A manager maps the diet code: both in-house patients change at once.
	m := h.mapCode(tok, "modcho ", map[string]any{"kind": "diet", "diets": []string{"consistent_carbohydrate", "low_fat"}})
	if m.Code != "MODCHO" || m.Status != "mapped" || m.ReappliedTo != 2 || !slices.Equal(m.Diets, []string{"consistent_carbohydrate", "low_fat"}) ||
		m.MappedBy == nil || *m.MappedBy != manager.User.ID {
		t.Fatalf("mapped %+v", m)
	}
	for _, mrn := range []string{"120000001", "120000002"} {
		p, _ := byMRN(h.census(tok, ""), mrn)
		if !slices.Equal(p.Diets, []string{"consistent_carbohydrate", "low_fat"}) || slices.Contains(p.Flags, "unmapped_diet") ||
			p.DietOrders[0].Codes[0].MappedBy != "organization" || p.DietOrders[0].Codes[0].Status != "mapped" {
			t.Fatalf("%s after mapping: %+v", mrn, p)
		}
	}
	// The allergen is first reviewed as nothing for the kitchen, then mapped.
	h.mapCode(tok, "Q-77", map[string]any{"kind": "allergen", "allergens": []string{}})
	p, _ = byMRN(h.census(tok, ""), "120000001")
	if a := p.Allergies[0]; a.Status != "not_applicable" || a.MappedBy != "organization" || slices.Contains(p.Flags, "unmapped_allergen") {
		t.Fatalf("reviewed allergen %+v", p.Allergies)
	}
	// Remapping replaces the earlier mapping.
	if m := h.mapCode(tok, "Q-77", map[string]any{"kind": "allergen", "allergens": []string{"gluten"}}); m.ReappliedTo != 1 {
		t.Fatalf("remapped %+v", m)
	}
	p, _ = byMRN(h.census(tok, ""), "120000001")
	if !slices.Equal(p.Allergens, []string{"gluten"}) {
		t.Fatalf("remapped allergens %v", p.Allergens)
	}

	// Later messages carrying the code are mapped the organization's way, and still counted.
	r = h.ingest(visit{Event: "A01", Control: "MAP-4", MRN: "120000004", Unit: "4W", Room: "404", Bed: "A", ODS: []string{odsModCho}}.epic())
	p, _ = byMRN(h.census(tok, ""), "120000004")
	if !slices.Equal(p.Diets, []string{"consistent_carbohydrate", "low_fat"}) {
		t.Fatalf("new message: %v", p.Diets)
	}
	if left := h.unmappedCodes(tok, ""); len(left) != 1 || left[0].Code != "BEE POLLEN HONEY" {
		t.Fatalf("still unmapped %+v", left)
	}
	mapped := h.unmappedCodes(tok, "status=mapped")
	if len(mapped) != 2 || mapped[0].Code != "MODCHO" || mapped[0].Occurrences != 3 || mapped[0].PatientsAffected != 3 {
		t.Fatalf("mapped list %+v", mapped)
	}

	// A code can be mapped before any feed sends it.
	pre := h.mapCode(tok, "DYS-PUREE", map[string]any{"kind": "diet", "diets": []string{"iddsi_food_4"}})
	if pre.FirstSeenAt != nil || pre.Occurrences != 0 || pre.ReappliedTo != 0 {
		t.Fatalf("premapped %+v", pre)
	}

	// Mismatched bodies are refused.
	h.env.Call(http.MethodPut, orgPath(h.orgID, "clinical/unmapped-codes/X1")).Token(tok).
		JSON(map[string]any{"kind": "diet", "allergens": []string{"milk"}}).Do().ExpectError(http.StatusBadRequest, "")
	h.env.Call(http.MethodPut, orgPath(h.orgID, "clinical/unmapped-codes/X1")).Token(tok).
		JSON(map[string]any{"kind": "allergen"}).Do().ExpectError(http.StatusBadRequest, "allergens")
	h.env.Call(http.MethodPut, orgPath(h.orgID, "clinical/unmapped-codes/X1")).Token(tok).
		JSON(map[string]any{"kind": "diet", "diets": []string{"chocolate_only"}}).Do().ExpectError(http.StatusBadRequest, "")
	if n := count(h.env, `SELECT count(*) FROM audit_log WHERE org_id = $1 AND action = 'mapUnmappedCode'`, h.orgID); n != 4 {
		t.Fatalf("%d audit rows", n)
	}
}
