package clinical_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestIngestCredentials(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	env := h.env
	other := newHospitalIn(env, "St. Brigid's")
	msg := admitOf("CRED-1", "100000001")

	// The organization's API key.
	if r := h.ingest(msg); r.Results[0].Outcome != "applied" {
		t.Fatalf("with the key: %+v", r)
	}
	// No credential at all.
	h.post(h.siteID, msg).Do().ExpectError(http.StatusUnauthorized, "Authentication required")
	// A wrong key, and another organization's key.
	h.post(h.siteID, msg).Header("x-api-key", "sous_notAKeyAtAll0000000000000000000000000").Do().ExpectError(http.StatusUnauthorized, "Invalid API key")
	h.post(h.siteID, msg).Header("x-api-key", other.key).Do().ExpectError(http.StatusUnauthorized, "Invalid API key")
	// Sessions: admin and owner may, manager may not.
	admin := env.Member(h.orgID, "admin")
	manager := env.Member(h.orgID, "manager")
	h.post(h.siteID, admitOf("CRED-2", "100000002")).Token(admin.AccessToken).Do().Expect(http.StatusOK)
	h.post(h.siteID, admitOf("CRED-3", "100000003")).Token(h.owner.AccessToken).Do().Expect(http.StatusOK)
	h.post(h.siteID, admitOf("CRED-4", "100000004")).Token(manager.AccessToken).Do().ExpectError(http.StatusForbidden, "admin")
	// Another organization's session does not learn the organization exists.
	h.post(h.siteID, msg).Token(other.owner.AccessToken).Do().ExpectError(http.StatusNotFound, "Organization not found")

	// Revocation takes effect at once, and a session does not rescue a refused key.
	env.Call(http.MethodDelete, orgPath(h.orgID, "api-keys", h.keyID.String())).Token(h.owner.AccessToken).Do().Expect(http.StatusNoContent)
	h.post(h.siteID, admitOf("CRED-5", "100000005")).Header("x-api-key", h.key).Do().ExpectError(http.StatusUnauthorized, "Invalid API key")
	h.post(h.siteID, admitOf("CRED-5", "100000005")).Header("x-api-key", h.key).Token(admin.AccessToken).Do().ExpectError(http.StatusUnauthorized, "Invalid API key")

	// Who sent each message is in the audit log and in the trail.
	if n := count(env, `SELECT count(*) FROM audit_log WHERE org_id = $1 AND action = 'ingestHl7' AND actor_kind = 'api_key' AND actor_id = $2`, h.orgID, h.keyID); n != 1 {
		t.Errorf("%d audit rows by the key", n)
	}
	if n := count(env, `SELECT count(*) FROM hl7_messages WHERE org_id = $1 AND actor_kind = 'user' AND actor_id = $2`, h.orgID, admin.User.ID); n != 1 {
		t.Errorf("%d trail rows by the admin", n)
	}
	if n := count(env, `SELECT count(*) FROM hl7_messages WHERE org_id = $1`, h.orgID); n != 3 {
		t.Errorf("%d trail rows; refused requests must write nothing", n)
	}
}

func TestIngestNeedsTheClinicalFeature(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	h.env.SetPlan(h.orgID, "free", nil)
	e := h.post(h.siteID, admitOf("PLAN-1", "200000001")).Header("x-api-key", h.key).Do().ExpectError(http.StatusPaymentRequired, "")
	if e.Feature != "clinical" {
		t.Fatalf("feature %q", e.Feature)
	}
	h.post(h.siteID, admitOf("PLAN-1", "200000001")).Token(h.owner.AccessToken).Do().ExpectError(http.StatusPaymentRequired, "clinical")
	h.env.Call(http.MethodGet, orgPath(h.orgID, "census")).Token(h.owner.AccessToken).Do().ExpectError(http.StatusPaymentRequired, "clinical")

	// A trial that ended is free too; enterprise has the feature.
	ended := h.env.Clock.Now().Add(-time.Hour)
	h.env.SetPlan(h.orgID, "pro", &ended)
	h.post(h.siteID, admitOf("PLAN-1", "200000001")).Header("x-api-key", h.key).Do().ExpectError(http.StatusPaymentRequired, "")
	h.env.SetPlan(h.orgID, "enterprise", nil)
	h.ingest(admitOf("PLAN-1", "200000001"))
}

func TestIngestSiteMustBeTheOrganizations(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	other := newHospitalIn(h.env, "Elsewhere General")
	msg := admitOf("SITE-1", "300000001")
	h.post(other.siteID, msg).Header("x-api-key", h.key).Do().ExpectError(http.StatusNotFound, "Site not found")
	h.post(uuid.New(), msg).Header("x-api-key", h.key).Do().ExpectError(http.StatusNotFound, "Site not found")
	h.post(other.siteID, msg).Token(h.owner.AccessToken).Do().ExpectError(http.StatusNotFound, "Site not found")

	// An admin limited to one site cannot feed another.
	second := h.env.Site(h.owner.AccessToken, h.orgID, "North campus")
	scoped := h.env.Member(h.orgID, "admin", h.siteID)
	h.post(second, msg).Token(scoped.AccessToken).Do().ExpectError(http.StatusNotFound, "Site not found")
	h.post(h.siteID, msg).Token(scoped.AccessToken).Do().Expect(http.StatusOK)

	// A malformed site id is a validation failure.
	e := h.env.Call(http.MethodPost, orgPath(h.orgID, "adt/hl7")).Header("x-api-key", h.key).
		JSON(map[string]any{"siteId": "not-a-uuid", "message": msg}).Do().ExpectError(http.StatusBadRequest, "siteId")
	if len(e.Details) == 0 {
		t.Fatal("no details")
	}
	if n := count(h.env, `SELECT count(*) FROM hl7_messages`); n != 1 {
		t.Fatalf("%d trail rows", n)
	}
}

func TestIngestWithoutParseableMessage(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	for name, body := range map[string]string{
		"no MSH":             "PID|1||100^^^HMC^MR||DOE^JANE\rPV1|1|I|4W^412^A\r",
		"free text":          "hello, this is not HL7",
		"only broken header": "MSH|\rPID|1||100^^^HMC^MR\r",
		"delimiter garbage":  "MSHA^~\\&|EPIC|||\r",
		"whitespace":         " \r\n\r\n",
	} {
		e := h.post(h.siteID, body).Header("x-api-key", h.key).Do().ExpectError(http.StatusUnprocessableEntity, "No parseable HL7 message")
		if name == "only broken header" && !strings.Contains(e.Error, "rejected") {
			t.Errorf("%s: %q", name, e.Error)
		}
	}
	h.post(h.siteID, "").Header("x-api-key", h.key).Do().ExpectError(http.StatusBadRequest, "message")
	if n := count(h.env, `SELECT count(*) FROM hl7_messages`); n != 0 {
		t.Fatalf("%d trail rows", n)
	}
}

// TestCensusFollowsAdmitTransferUpdateDischarge walks a stay through the census.
