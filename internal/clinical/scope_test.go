package clinical_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/google/uuid"
)

// TestSiteScopedMembersSeeOnlyTheirSites feeds two hospitals of one organization and reads them
// as members limited to one.
func TestSiteScopedMembersSeeOnlyTheirSites(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	env := h.env
	north := env.Site(h.owner.AccessToken, h.orgID, "North campus")
	h.ingest(visit{Event: "A01", Control: "SC-1", MRN: "140000001", Unit: "4W", Room: "401", Bed: "A", ODS: []string{odsCarbNa}}.epic())
	// The same MRN at another site is another patient (each hospital has its own MRNs).
	h.ingestTo(north, visit{Event: "A01", Control: "SC-2", MRN: "140000001", Unit: "N2", Room: "201", Bed: "B", ODS: []string{odsRegular}}.epic())
	h.ingestTo(north, visit{Event: "A01", Control: "SC-3", MRN: "140000003", Unit: "N3", Room: "301", Bed: "A"}.epic())

	all := h.census(h.owner.AccessToken, "")
	if len(all) != 3 {
		t.Fatalf("owner sees %d", len(all))
	}
	if got := h.census(h.owner.AccessToken, "siteId="+north.String()); len(got) != 2 {
		t.Fatalf("north has %d", len(got))
	}

	mainOnly := h.member("manager", []string{"rd"}, h.siteID)
	mine := h.census(mainOnly.AccessToken, "")
	if len(mine) != 1 || mine[0].Site != h.siteID || mine[0].Unit != "4W" {
		t.Fatalf("scoped census %+v", mine)
	}
	env.Call(http.MethodGet, orgPath(h.orgID, "census")+"?siteId="+north.String()).Token(mainOnly.AccessToken).Do().ExpectError(http.StatusNotFound, "Site not found")
	var northPatient patient
	for _, p := range all {
		if p.Site == north && p.MRN == "140000001" {
			northPatient = p
		}
	}
	env.Call(http.MethodGet, orgPath(h.orgID, "patients", northPatient.ID.String())).Token(mainOnly.AccessToken).Do().ExpectError(http.StatusNotFound, "Patient not found")
	h.patient(mainOnly.AccessToken, mine[0].ID)

	// Sign-offs follow the patient's site.
	northManager := h.member("manager", nil, north)
	var s struct {
		ID uuid.UUID `json:"id"`
	}
	env.Call(http.MethodPost, orgPath(h.orgID, "signoffs")).Token(northManager.AccessToken).
		JSON(map[string]any{"patientId": northPatient.ID, "dietOrderId": northPatient.DietOrders[0].ID}).Do().Expect(http.StatusCreated).Decode(&s)
	env.Call(http.MethodPost, orgPath(h.orgID, "signoffs")).Token(northManager.AccessToken).
		JSON(map[string]any{"patientId": mine[0].ID, "dietOrderId": mine[0].DietOrders[0].ID}).Do().ExpectError(http.StatusNotFound, "Patient not found")
	var list []struct {
		ID uuid.UUID `json:"id"`
	}
	env.Call(http.MethodGet, orgPath(h.orgID, "signoffs")).Token(mainOnly.AccessToken).Do().Expect(http.StatusOK).Decode(&list)
	if len(list) != 0 {
		t.Fatalf("main-campus member sees %+v", list)
	}
	env.Call(http.MethodGet, orgPath(h.orgID, "signoffs", s.ID.String())).Token(mainOnly.AccessToken).Do().ExpectError(http.StatusNotFound, "Sign-off not found")
	env.Call(http.MethodPost, orgPath(h.orgID, "signoffs", s.ID.String(), "decision")).Token(mainOnly.AccessToken).
		JSON(map[string]any{"decision": "approved"}).Do().ExpectError(http.StatusNotFound, "Sign-off not found")

	// The message trail too.
	scopedAdmin := h.member("admin", nil, north)
	var trail []struct {
		ControlID string `json:"controlId"`
	}
	env.Call(http.MethodGet, orgPath(h.orgID, "adt/messages")).Token(scopedAdmin.AccessToken).Do().Expect(http.StatusOK).Decode(&trail)
	var ids []string
	for _, m := range trail {
		ids = append(ids, m.ControlID)
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []string{"SC-2", "SC-3"}) {
		t.Fatalf("scoped trail %v", ids)
	}
}

func TestCensusPages(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	var msgs []string
	for i := range 7 {
		msgs = append(msgs, visit{Event: "A01", Control: controlID("PG", i), MRN: mrnOf(150000000, i), Unit: "4W", Room: itoa(400 + i), Bed: "A"}.epic())
	}
	h.ingest(msgs...)
	var seen []string
	path := "/v1/" + orgPath(h.orgID, "census") + "?limit=3"
	for path != "" {
		var page []patient
		res := h.env.Call(http.MethodGet, path).Token(h.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&page)
		for _, p := range page {
			seen = append(seen, p.Room)
		}
		path = ""
		if link := res.Header.Get("Link"); link != "" {
			path = link[len("<"+h.env.URL) : len(link)-len(`>; rel="next"`)]
		}
	}
	if !slices.Equal(seen, []string{"400", "401", "402", "403", "404", "405", "406"}) {
		t.Fatalf("pages %v", seen)
	}
}

// TestUnmappedCodesFollowTheMembersSites: a manager limited to one hospital sees the codes its
// patients carry, counted there only, and cannot map a code, since a mapping rewrites the
// patients of every hospital.
func TestUnmappedCodesFollowTheMembersSites(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	env := h.env
	north := env.Site(h.owner.AccessToken, h.orgID, "North campus")
	// Quinoa at both campuses, MODCHO at the main campus only.
	h.ingest(visit{Event: "A01", Control: "UC-1", MRN: "150000001", Unit: "4W", Room: "401", Bed: "A", AL1: []string{al1Quinoa}, ODS: []string{odsModCho}}.epic())
	h.ingestTo(north, visit{Event: "A01", Control: "UC-2", MRN: "150000002", Unit: "N2", Room: "201", Bed: "A", AL1: []string{al1Quinoa}}.epic())
	h.ingestTo(north, visit{Event: "A01", Control: "UC-3", MRN: "150000003", Unit: "N2", Room: "202", Bed: "A", AL1: []string{al1Quinoa}}.epic())

	counts := func(token string) map[string]int {
		out := map[string]int{}
		for _, c := range h.unmappedCodes(token, "") {
			out[c.Kind+"/"+c.Code] = c.PatientsAffected
		}
		return out
	}
	if got := counts(h.env.Member(h.orgID, "manager").AccessToken); got["allergen/Q-77"] != 3 || got["diet/MODCHO"] != 1 {
		t.Fatalf("a manager with every site counts %v", got)
	}
	northManager := h.member("manager", nil, north)
	if got := counts(northManager.AccessToken); len(got) != 1 || got["allergen/Q-77"] != 2 {
		t.Fatalf("a north manager sees %v, want only Q-77 on 2 patients", got)
	}

	// Mapping is organization-wide: refused to a site-limited manager, and nothing changes at
	// the other campus.
	env.Call(http.MethodPut, orgPath(h.orgID, "clinical/unmapped-codes/Q-77")).Token(northManager.AccessToken).
		JSON(map[string]any{"kind": "allergen", "allergens": []string{"gluten"}}).Do().ExpectError(http.StatusForbidden, "every site")
	main, _ := byMRN(h.census(h.owner.AccessToken, "siteId="+h.siteID.String()), "150000001")
	if len(main.Allergens) != 0 {
		t.Fatalf("the main campus patient's allergens changed: %v", main.Allergens)
	}
	if got := h.mapCode(h.owner.AccessToken, "Q-77", map[string]any{"kind": "allergen", "allergens": []string{"gluten"}}); got.ReappliedTo != 3 {
		t.Fatalf("an owner with every site re-applied the mapping to %d patients", got.ReappliedTo)
	}
}
