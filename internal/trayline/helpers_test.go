package trayline_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// hospital is an organization with one site (America/Chicago; breakfast 06:00, lunch 11:00,
// dinner 17:00), its owner and an interface-engine API key. The fake clock starts Monday
// 2 March 2026, 03:00 at the site.
type hospital struct {
	t     *testing.T
	env   *apitest.Env
	owner apitest.Session
	org   uuid.UUID
	site  uuid.UUID
	key   string
}

func newHospital(t *testing.T, opts ...apitest.Option) *hospital {
	env := apitest.New(t, opts...)
	owner, org := env.NewOwner("Harborview Medical Center")
	site := env.Site(owner.AccessToken, org, "Main campus")
	h := &hospital{t: t, env: env, owner: owner, org: org, site: site}
	h.call(http.MethodPut, "sites/"+site.String()).JSON(map[string]any{"name": "Main campus", "timezone": "America/Chicago",
		"dayParts": []map[string]string{{"name": "breakfast", "start": "06:00", "end": "10:00"}, {"name": "lunch", "start": "11:00", "end": "14:00"},
			{"name": "dinner", "start": "17:00", "end": "20:00"}}}).Do().Expect(http.StatusOK)
	var k struct {
		Key string `json:"key"`
	}
	h.call(http.MethodPost, "api-keys").JSON(map[string]string{"name": "Interface engine"}).Do().Expect(http.StatusCreated).Decode(&k)
	h.key = k.Key
	return h
}

func (h *hospital) call(method, path string) *apitest.Request {
	return h.as(h.owner, method, path)
}

func (h *hospital) as(s apitest.Session, method, path string) *apitest.Request {
	return h.env.Call(method, "orgs/"+h.org.String()+"/"+path).Token(s.AccessToken)
}

// adt sends one HL7 message built from segments after MSH, PID and PV1.
func (h *hospital) adt(event, control, mrn, unit, room, bed string, extra ...string) {
	h.t.Helper()
	typ := "ADT^" + event + "^ADT_A01"
	admit, discharge := "", ""
	switch event {
	case "A01":
		admit = "20260302020000"
	case "A03":
		discharge = "20260302030000"
	}
	lines := []string{
		fmt.Sprintf("MSH|^~\\&|EPIC|HMC|SOUS|SOUS|20260302020000||%s|%s|P|2.5.1", typ, control),
		fmt.Sprintf("EVN|%s|20260302020000", event),
		fmt.Sprintf("PID|1||%s^^^HMC^MR||DOE^JANE||19800412|F", mrn),
		fmt.Sprintf("PV1|1|I|%s^%s^%s^HMC|E||||||MED||||1||||IN|V%s|||||||||||||||||||||||||%s|%s", unit, room, bed, mrn, admit, discharge),
	}
	lines = append(lines, extra...)
	var r struct {
		Results []struct {
			Outcome string `json:"outcome"`
			Reason  string `json:"reason"`
		} `json:"results"`
	}
	h.env.Call(http.MethodPost, "orgs/"+h.org.String()+"/adt/hl7").Header("x-api-key", h.key).
		JSON(map[string]any{"siteId": h.site, "message": strings.Join(lines, "\r") + "\r"}).Do().Expect(http.StatusOK).Decode(&r)
	if len(r.Results) != 1 || r.Results[0].Outcome != "applied" {
		h.t.Fatalf("ingest %s %s: %+v", event, control, r.Results)
	}
}

// item creates an inventory item with allergen statuses and returns its id.
func (h *hospital) item(name string, allergens map[string]string) uuid.UUID {
	h.t.Helper()
	var it struct {
		ID uuid.UUID `json:"id"`
	}
	h.call(http.MethodPost, "inventory-items").JSON(map[string]any{"name": name, "category": "test", "baseUnit": "g", "allergens": allergens}).
		Do().Expect(http.StatusCreated).Decode(&it)
	return it.ID
}

// recipe creates a one-item recipe; extra sets fields such as nutrition and iddsiLevel.
func (h *hospital) recipe(name, category string, item uuid.UUID, extra map[string]any) uuid.UUID {
	h.t.Helper()
	body := map[string]any{"name": name, "category": category, "yield": map[string]string{"quantity": "1000", "unit": "g"},
		"portion": map[string]string{"quantity": "100", "unit": "g"}, "steps": []string{"Cook."},
		"ingredients": []map[string]any{{"itemId": item, "quantity": "1000", "unit": "g"}}}
	for k, v := range extra {
		body[k] = v
	}
	var r struct {
		ID uuid.UUID `json:"id"`
	}
	h.call(http.MethodPost, "recipes").JSON(body).Do().Expect(http.StatusCreated).Decode(&r)
	return r.ID
}

// menu puts recipes on every day's lunch from 2 March 2026.
func (h *hospital) menu(recipes ...uuid.UUID) {
	h.t.Helper()
	var items []map[string]any
	for wd := 1; wd <= 7; wd++ {
		for _, r := range recipes {
			items = append(items, map[string]any{"week": 1, "weekday": wd, "dayPart": "lunch", "recipeId": r, "portionsPerCover": "1"})
		}
	}
	h.call(http.MethodPost, "menus").JSON(map[string]any{"siteId": h.site, "name": "Patient menu", "startsOn": "2026-03-02", "cycleWeeks": 1, "items": items}).
		Do().Expect(http.StatusCreated)
}

type trayItem struct {
	RecipeID uuid.UUID  `json:"recipeId"`
	Name     string     `json:"name"`
	Check    string     `json:"check"`
	Reasons  []string   `json:"reasons"`
	Replaces *uuid.UUID `json:"replaces"`
}

type ticket struct {
	ID          uuid.UUID                     `json:"id"`
	PatientID   uuid.UUID                     `json:"patientId"`
	PatientName *string                       `json:"patientName"`
	MRN         *string                       `json:"mrn"`
	Unit        string                        `json:"unit"`
	Room        string                        `json:"room"`
	Bed         string                        `json:"bed"`
	Diets       []struct{ Code, Name string } `json:"diets"`
	Allergens   []string                      `json:"allergens"`
	Texture     *int                          `json:"texture"`
	Items       []trayItem                    `json:"items"`
	Conflict    bool                          `json:"conflict"`
	DietNotes   []string                      `json:"dietNotes"`
	Status      string                        `json:"status"`
	History     []struct {
		Status string `json:"status"`
	} `json:"history"`
}

type genResult struct {
	Created, Updated, Cancelled, Untouched, SkippedNpo int
}

func (h *hospital) generate(dayPart string) genResult {
	h.t.Helper()
	var r genResult
	h.call(http.MethodPost, "tray-tickets/generate").JSON(map[string]any{"siteId": h.site, "date": "2026-03-02", "dayPart": dayPart}).
		Do().Expect(http.StatusOK).Decode(&r)
	return r
}

func (h *hospital) tickets(s apitest.Session, query string) []ticket {
	h.t.Helper()
	var out []ticket
	h.as(s, http.MethodGet, "tray-tickets?siteId="+h.site.String()+"&date=2026-03-02&dayPart=lunch"+query).Do().Expect(http.StatusOK).Decode(&out)
	return out
}

func (h *hospital) byMRN(mrn string) ticket {
	h.t.Helper()
	for _, t := range h.tickets(h.owner, "") {
		if t.MRN != nil && *t.MRN == mrn {
			return t
		}
	}
	h.t.Fatalf("no ticket for %s", mrn)
	return ticket{}
}

func (h *hospital) status(s apitest.Session, id uuid.UUID, status string) *apitest.Response {
	return h.as(s, http.MethodPost, "tray-tickets/"+id.String()+"/status").JSON(map[string]string{"status": status}).Do()
}

func (h *hospital) count(sql string, args ...any) int {
	h.t.Helper()
	var n int
	if err := h.env.Pool.QueryRow(h.t.Context(), sql, args...).Scan(&n); err != nil {
		h.t.Fatal(err)
	}
	return n
}
