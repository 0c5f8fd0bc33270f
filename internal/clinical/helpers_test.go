package clinical_test

import (
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
	"github.com/sous-app/sous/internal/pg/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func orgPath(orgID uuid.UUID, parts ...string) string {
	return strings.Join(append([]string{"orgs", orgID.String()}, parts...), "/")
}

// hospital is one test's organization: an owner, a site (America/Chicago) and an API key made
// through the API, as an interface engine would be given one.
type hospital struct {
	env    *apitest.Env
	owner  apitest.Session
	orgID  uuid.UUID
	siteID uuid.UUID
	key    string
	keyID  uuid.UUID
}

func newHospital(t *testing.T) *hospital {
	t.Helper()
	env := apitest.New(t)
	return newHospitalIn(env, "Harborview Medical Center")
}

func newHospitalIn(env *apitest.Env, name string) *hospital {
	env.T.Helper()
	owner, orgID := env.NewOwner(name)
	h := &hospital{env: env, owner: owner, orgID: orgID}
	h.siteID = env.Site(owner.AccessToken, orgID, name+" main campus")
	var k struct {
		ID  uuid.UUID `json:"id"`
		Key string    `json:"key"`
	}
	env.Call(http.MethodPost, orgPath(orgID, "api-keys")).Token(owner.AccessToken).
		JSON(map[string]string{"name": "Interface engine (prod)"}).Do().Expect(http.StatusCreated).Decode(&k)
	h.key, h.keyID = k.Key, k.ID
	return h
}

// Decoded response shapes.

type ingestResult struct {
	Processed int `json:"processed"`
	Results   []struct {
		Type    string `json:"type"`
		Outcome string `json:"outcome"`
		Detail  struct {
			ControlID     string     `json:"controlId"`
			MRN           string     `json:"mrn"`
			Action        string     `json:"action"`
			OrderCreated  *bool      `json:"orderCreated"`
			PatientID     *uuid.UUID `json:"patientId"`
			EncounterID   *uuid.UUID `json:"encounterId"`
			Reason        string     `json:"reason"`
			Warnings      []string   `json:"warnings"`
			UnmappedCodes []struct {
				Kind string `json:"kind"`
				Code string `json:"code"`
				Text string `json:"text"`
			} `json:"unmappedCodes"`
		} `json:"detail"`
	} `json:"results"`
	Notes []string `json:"notes"`
}

func (r ingestResult) outcomes() []string {
	out := make([]string, 0, len(r.Results))
	for _, x := range r.Results {
		out = append(out, x.Outcome)
	}
	return out
}

type allergy struct {
	Category  string   `json:"category"`
	Code      string   `json:"code"`
	Text      string   `json:"text"`
	Severity  string   `json:"severity"`
	Reactions []string `json:"reactions"`
	Status    string   `json:"status"`
	Allergens []string `json:"allergens"`
	MappedBy  string   `json:"mappedBy"`
}

type dietOrder struct {
	ID    uuid.UUID `json:"id"`
	Type  string    `json:"type"`
	Codes []struct {
		Code     string   `json:"code"`
		Text     string   `json:"text"`
		Status   string   `json:"status"`
		Diets    []string `json:"diets"`
		MappedBy string   `json:"mappedBy"`
	} `json:"codes"`
	Diets        []string   `json:"diets"`
	Instructions []string   `json:"instructions"`
	Placer       *string    `json:"placerOrderNumber"`
	StartAt      *time.Time `json:"startAt"`
	Source       string     `json:"source"`
	Status       string     `json:"status"`
	Nutrients    []struct {
		Nutrient string  `json:"nutrient"`
		Amount   float64 `json:"amount"`
		Unit     string  `json:"unit"`
	} `json:"nutrients"`
	Exclusions []string `json:"exclusions"`
	Product    string   `json:"product"`
}

type patient struct {
	ID   uuid.UUID `json:"id"`
	Site uuid.UUID `json:"siteId"`
	MRN  string    `json:"mrn"`
	Name struct {
		Family string `json:"family"`
		Given  string `json:"given"`
		Middle string `json:"middle"`
	} `json:"name"`
	DateOfBirth *string     `json:"dateOfBirth"`
	Sex         string      `json:"sex"`
	InHouse     bool        `json:"inHouse"`
	Unit        string      `json:"unit"`
	Room        string      `json:"room"`
	Bed         string      `json:"bed"`
	AdmittedAt  *time.Time  `json:"admittedAt"`
	EncounterID *uuid.UUID  `json:"encounterId"`
	Allergens   []string    `json:"allergens"`
	Allergies   []allergy   `json:"allergies"`
	Diets       []string    `json:"diets"`
	DietOrders  []dietOrder `json:"dietOrders"`
	Flags       []string    `json:"flags"`
	UpdatedAt   time.Time   `json:"updatedAt"`
	MRNSource   string      `json:"mrnSource"`
	Encounters  []struct {
		ID           uuid.UUID  `json:"id"`
		VisitNumber  string     `json:"visitNumber"`
		PatientClass string     `json:"patientClass"`
		AdmittedAt   time.Time  `json:"admittedAt"`
		DischargedAt *time.Time `json:"dischargedAt"`
		Unit         string     `json:"unit"`
		Room         string     `json:"room"`
		Bed          string     `json:"bed"`
		Movements    []struct {
			At        time.Time `json:"at"`
			Action    string    `json:"action"`
			Unit      string    `json:"unit"`
			Room      string    `json:"room"`
			Bed       string    `json:"bed"`
			ControlID string    `json:"controlId"`
		} `json:"movements"`
	} `json:"encounters"`
}

// ingest posts messages to the hospital's site with its API key and expects 200.
func (h *hospital) ingest(messages ...string) ingestResult {
	h.env.T.Helper()
	return h.ingestTo(h.siteID, messages...)
}

func (h *hospital) ingestTo(siteID uuid.UUID, messages ...string) ingestResult {
	h.env.T.Helper()
	var r ingestResult
	h.post(siteID, strings.Join(messages, "")).Header("x-api-key", h.key).Do().Expect(http.StatusOK).Decode(&r)
	if r.Processed != len(r.Results) {
		h.env.T.Fatalf("processed %d with %d results", r.Processed, len(r.Results))
	}
	return r
}

// post builds an ingest request without a credential.
func (h *hospital) post(siteID uuid.UUID, body string) *apitest.Request {
	return h.env.Call(http.MethodPost, orgPath(h.orgID, "adt/hl7")).JSON(map[string]any{"siteId": siteID, "message": body})
}

func (h *hospital) census(token string, query string) []patient {
	h.env.T.Helper()
	var out []patient
	path := orgPath(h.orgID, "census")
	if query != "" {
		path += "?" + query
	}
	h.env.Call(http.MethodGet, path).Token(token).Do().Expect(http.StatusOK).Decode(&out)
	return out
}

func (h *hospital) patient(token string, id uuid.UUID) patient {
	h.env.T.Helper()
	var p patient
	h.env.Call(http.MethodGet, orgPath(h.orgID, "patients", id.String())).Token(token).Do().Expect(http.StatusOK).Decode(&p)
	return p
}

// byMRN finds a census entry.
func byMRN(census []patient, mrn string) (patient, bool) {
	for _, p := range census {
		if p.MRN == mrn {
			return p, true
		}
	}
	return patient{}, false
}

func mrns(census []patient) []string {
	out := make([]string, 0, len(census))
	for _, p := range census {
		out = append(out, p.MRN)
	}
	return out
}

func count(env *apitest.Env, sql string, args ...any) int {
	env.T.Helper()
	var n int
	if err := env.Pool.QueryRow(env.T.Context(), sql, args...).Scan(&n); err != nil {
		env.T.Fatal(err)
	}
	return n
}

// member adds a member with a role (and credentials) through the API: invited directly by the
// helper, then changed by the owner with PUT /members/{userId}.
func (h *hospital) member(role string, credentials []string, siteIDs ...uuid.UUID) apitest.Session {
	h.env.T.Helper()
	s := h.env.Member(h.orgID, role, siteIDs...)
	if credentials != nil {
		h.env.Call(http.MethodPut, orgPath(h.orgID, "members", s.User.ID.String())).Token(h.owner.AccessToken).
			JSON(map[string]any{"credentials": credentials}).Do().Expect(http.StatusOK)
	}
	return s
}

func (p patient) UpdatedAtAfter(t time.Time) bool { return p.UpdatedAt.After(t) }
