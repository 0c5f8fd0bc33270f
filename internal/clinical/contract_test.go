package clinical_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// exactBody fails unless the response is status with exactly the JSON body want: the spec
// names these bodies word for word, so a client may compare them whole.
func exactBody(t *testing.T, res *apitest.Response, status int, want map[string]any) {
	t.Helper()
	res.Expect(status)
	var got map[string]any
	if err := json.Unmarshal(res.Body, &got); err != nil {
		t.Fatalf("body %s: %v", res.Body, err)
	}
	// JSON numbers decode as float64.
	norm := map[string]any{}
	for k, v := range want {
		if n, ok := v.(int); ok {
			v = float64(n)
		}
		norm[k] = v
	}
	if !reflect.DeepEqual(got, norm) {
		t.Fatalf("status %d body %s, want %v", status, res.Body, want)
	}
}

// TestIngestErrorBodiesAreExact checks the error bodies the spec fixes for the HL7 endpoint.
func TestIngestErrorBodiesAreExact(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	other := newHospitalIn(h.env, "Mercy West")
	msg := admitOf("EXACT-1", "170000001")
	invalidKey := map[string]any{"error": "Invalid API key", "statusCode": 401, "code": "invalid_api_key"}

	for _, key := range []string{
		"sous_notAKeyAtAll0000000000000000000000000", // made up
		"hello",   // not even the shape of a key
		other.key, // another organization's
	} {
		exactBody(t, h.post(h.siteID, msg).Header("x-api-key", key).Do(), http.StatusUnauthorized, invalidKey)
	}
	exactBody(t, h.post(h.siteID, msg).Do(), http.StatusUnauthorized,
		map[string]any{"error": "Authentication required", "statusCode": 401, "code": "unauthenticated"})
	siteNotFound := map[string]any{"error": "Site not found", "statusCode": 404, "code": "not_found"}
	exactBody(t, h.post(other.siteID, msg).Header("x-api-key", h.key).Do(), http.StatusNotFound, siteNotFound)
	exactBody(t, h.post(uuid.New(), msg).Header("x-api-key", h.key).Do(), http.StatusNotFound, siteNotFound)
	admin := h.env.Member(h.orgID, "admin")
	exactBody(t, h.post(other.siteID, msg).Token(admin.AccessToken).Do(), http.StatusNotFound, siteNotFound)

	// 402 names the feature, whichever credential is used.
	h.env.SetPlan(h.orgID, "free", nil)
	for _, req := range []*apitest.Request{h.post(h.siteID, msg).Header("x-api-key", h.key), h.post(h.siteID, msg).Token(admin.AccessToken)} {
		if e := req.Do().ExpectError(http.StatusPaymentRequired, ""); e.Feature != "clinical" {
			t.Fatalf("402 feature %q", e.Feature)
		}
	}
	h.env.SetPlan(h.orgID, "pro", nil)

	// Revoked: the same exact body, at once.
	h.env.Call(http.MethodDelete, orgPath(h.orgID, "api-keys", h.keyID.String())).Token(h.owner.AccessToken).Do().Expect(http.StatusNoContent)
	exactBody(t, h.post(h.siteID, msg).Header("x-api-key", h.key).Do(), http.StatusUnauthorized, invalidKey)

	// The ingest takes the spec's JSON body; a body without message or siteId is a validation
	// failure; HL7 text sent as the body in a media type the operation does not take is 415.
	h.env.Call(http.MethodPost, orgPath(h.orgID, "adt/hl7")).Token(admin.AccessToken).
		JSON(map[string]any{"message": msg}).Do().ExpectError(http.StatusBadRequest, "siteId")
	h.env.Call(http.MethodPost, orgPath(h.orgID, "adt/hl7")).Token(admin.AccessToken).
		JSON(map[string]any{"siteId": h.siteID}).Do().ExpectError(http.StatusBadRequest, "message")
	h.env.Call(http.MethodPost, orgPath(h.orgID, "adt/hl7")).Token(admin.AccessToken).
		Raw("application/hl7-v2", []byte(msg)).Do().ExpectError(http.StatusUnsupportedMediaType, "")

	if n := count(h.env, `SELECT count(*) FROM hl7_messages`); n != 0 {
		t.Fatalf("%d trail rows from refused requests", n)
	}
}

// TestAPIKeysOnlyFeedTheIngest: an API key is the ingest's credential and nothing else's.
func TestAPIKeysOnlyFeedTheIngest(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	h.ingest(admitOf("KEYONLY-1", "171000001"))
	for _, path := range []string{"census", "clinical/unmapped-codes", "signoffs", "adt/messages"} {
		h.env.Call(http.MethodGet, orgPath(h.orgID, path)).Header("x-api-key", h.key).Do().Expect(http.StatusUnauthorized)
	}
}

// TestClinicalRoles: reading the census and mapping codes are manager and up; the trail is admin
// and up.
func TestClinicalRoles(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	h.ingest(visit{Event: "A01", Control: "ROLE-1", MRN: "172000001", Unit: "4W", Room: "401", Bed: "A", ODS: []string{odsModCho}}.epic())
	mapBody := map[string]any{"kind": "diet", "diets": []string{"consistent_carbohydrate"}}
	for _, role := range []string{"inspector", "viewer"} {
		tok := h.env.Member(h.orgID, role).AccessToken
		h.env.Call(http.MethodGet, orgPath(h.orgID, "census")).Token(tok).Do().ExpectError(http.StatusForbidden, "")
		h.env.Call(http.MethodGet, orgPath(h.orgID, "clinical/unmapped-codes")).Token(tok).Do().ExpectError(http.StatusForbidden, "")
		h.env.Call(http.MethodPut, orgPath(h.orgID, "clinical/unmapped-codes", "MODCHO")).Token(tok).JSON(mapBody).Do().ExpectError(http.StatusForbidden, "")
	}
	manager := h.env.Member(h.orgID, "manager").AccessToken
	h.env.Call(http.MethodGet, orgPath(h.orgID, "adt/messages")).Token(manager).Do().ExpectError(http.StatusForbidden, "")
	if m := h.mapCode(manager, "MODCHO", mapBody); m.ReappliedTo != 1 {
		t.Fatalf("manager mapping %+v", m)
	}
}

// TestOtherOrganizationsIDsAreNotFound: ids of another organization's patients and sign-offs,
// used under one's own organization, are 404 like ids that do not exist; and another
// organization's paths are 404 for the caller.
func TestOtherOrganizationsIDsAreNotFound(t *testing.T) {
	t.Parallel()
	a := newHospital(t)
	env := a.env
	b := newHospitalIn(env, "Bayside Regional")

	b.ingest(visit{Event: "A01", Control: "XT-1", MRN: "173000001", Unit: "4W", Room: "401", Bed: "A", ODS: []string{odsCarbNa, odsModCho}}.epic())
	bp, _ := byMRN(b.census(b.owner.AccessToken, ""), "173000001")
	var bs struct {
		ID uuid.UUID `json:"id"`
	}
	env.Call(http.MethodPost, orgPath(b.orgID, "signoffs")).Token(b.owner.AccessToken).
		JSON(map[string]any{"patientId": bp.ID, "dietOrderId": bp.DietOrders[0].ID}).Do().Expect(http.StatusCreated).Decode(&bs)

	// A's owner, with the rd credential so that only the tenancy can refuse.
	env.Call(http.MethodPut, orgPath(a.orgID, "members", a.owner.User.ID.String())).Token(a.owner.AccessToken).
		JSON(map[string]any{"credentials": []string{"rd"}}).Do().Expect(http.StatusOK)
	tok := env.SignIn(a.owner.User.Email).AccessToken
	call := func(method, path string, body any) *apitest.Response {
		r := env.Call(method, orgPath(a.orgID, path)).Token(tok)
		if body != nil {
			r = r.JSON(body)
		}
		return r.Do()
	}
	call(http.MethodGet, "patients/"+bp.ID.String(), nil).ExpectError(http.StatusNotFound, "Patient not found")
	call(http.MethodGet, "signoffs/"+bs.ID.String(), nil).ExpectError(http.StatusNotFound, "Sign-off not found")
	call(http.MethodPost, "signoffs/"+bs.ID.String()+"/decision", map[string]any{"decision": "approved"}).ExpectError(http.StatusNotFound, "Sign-off not found")
	call(http.MethodPost, "signoffs", map[string]any{"patientId": bp.ID, "dietOrderId": bp.DietOrders[0].ID}).ExpectError(http.StatusNotFound, "Patient not found")
	call(http.MethodGet, "census?siteId="+b.siteID.String(), nil).ExpectError(http.StatusNotFound, "Site not found")
	var list []json.RawMessage
	call(http.MethodGet, "signoffs?patientId="+bp.ID.String(), nil).Expect(http.StatusOK).Decode(&list)
	if len(list) != 0 {
		t.Fatalf("A lists B's sign-offs: %s", list)
	}
	call(http.MethodGet, "adt/messages?siteId="+b.siteID.String(), nil).Expect(http.StatusOK).Decode(&list)
	if len(list) != 0 {
		t.Fatalf("A reads B's trail: %s", list)
	}
	// Mapping B's unmapped code under A maps A's code, and leaves B's patient as it was.
	if m := a.mapCode(tok, "MODCHO", map[string]any{"kind": "diet", "diets": []string{"low_fat"}}); m.ReappliedTo != 0 {
		t.Fatalf("A's mapping reached B's patients: %+v", m)
	}
	if p, _ := byMRN(b.census(b.owner.AccessToken, ""), "173000001"); !containsFlag(p.Flags, "unmapped_diet") {
		t.Fatalf("B's patient changed: %+v", p.Flags)
	}

	// Under B's paths, A's owner learns nothing.
	for _, r := range []struct{ method, path string }{
		{http.MethodGet, "census"},
		{http.MethodGet, "patients/" + bp.ID.String()},
		{http.MethodGet, "clinical/unmapped-codes"},
		{http.MethodGet, "signoffs"},
		{http.MethodGet, "signoffs/" + bs.ID.String()},
		{http.MethodGet, "adt/messages"},
	} {
		env.Call(r.method, orgPath(b.orgID, r.path)).Token(tok).Do().ExpectError(http.StatusNotFound, "not found")
	}
	env.Call(http.MethodPut, orgPath(b.orgID, "clinical/unmapped-codes", url.PathEscape("MODCHO"))).Token(tok).
		JSON(map[string]any{"kind": "diet", "diets": []string{"low_fat"}}).Do().ExpectError(http.StatusNotFound, "not found")
	env.Call(http.MethodPost, orgPath(b.orgID, "signoffs", bs.ID.String(), "decision")).Token(tok).
		JSON(map[string]any{"decision": "approved"}).Do().ExpectError(http.StatusNotFound, "not found")
	var pending struct {
		Status string `json:"status"`
	}
	env.Call(http.MethodGet, orgPath(b.orgID, "signoffs", bs.ID.String())).Token(b.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&pending)
	if pending.Status != "pending" {
		t.Fatalf("B's sign-off is %s", pending.Status)
	}
}

func containsFlag(flags []string, f string) bool {
	for _, x := range flags {
		if x == f {
			return true
		}
	}
	return false
}

// TestIngestMessageCountLimit: a body of more messages than the ingest takes is refused whole
// with 413, before anything is written, even when it is within the byte limit.
func TestIngestMessageCountLimit(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	var b strings.Builder
	for i := range 10_001 {
		b.WriteString("MSH|^~\\&|A|B|C|D|20260302||ADT^A08|N" + itoa(i) + "|P|2.5\r")
	}
	h.post(h.siteID, b.String()).Header("x-api-key", h.key).Do().ExpectError(http.StatusRequestEntityTooLarge, "10000")
	if n := count(h.env, `SELECT count(*) FROM hl7_messages`); n != 0 {
		t.Fatalf("%d trail rows", n)
	}
}
