// Package trayline owns the hospital tray line: the rules of each diet of the vocabulary, one
// meal ticket per patient in house (from the census) with every item checked against the
// patient's allergens and diets, the two-person check, delivery (tray.delivered), tray_late
// alerts and the tray queue of tray-line screens.
//
// It reads the census (patients) and the kitchen (recipes, menus, sites' day parts) and writes
// only its own tables; the kitchen is read through kitchen's exported read functions.
package trayline

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/principal"
	"github.com/sous-app/sous/internal/realtime"
)

// Handlers serve the tray-line operations of the spec.
type Handlers struct {
	pool  *pgxpool.Pool
	clock clock.Clock
}

func NewHandlers(pool *pgxpool.Pool, c clock.Clock) *Handlers {
	return &Handlers{pool: pool, clock: c}
}

// Item is one item of a ticket as stored (tray_tickets.items).
type Item struct {
	RecipeID uuid.UUID  `json:"recipeId"`
	Name     string     `json:"name"`
	Check    string     `json:"check"`
	Reasons  []string   `json:"reasons"`
	Replaces *uuid.UUID `json:"replaces,omitempty"`
}

// Item checks.
const (
	checkOK          = "ok"
	checkConflict    = "conflict"
	checkSubstituted = "substituted"
	checkRefused     = "refused"
)

type historyEntry struct {
	Status string     `json:"status"`
	At     time.Time  `json:"at"`
	By     *uuid.UUID `json:"by"`
}

// patientDocs are the parts of the census's JSON documents the tray line reads.
type allergyDoc struct {
	Allergens []string `json:"allergens"`
}
type dietOrderDoc struct {
	Codes []struct {
		Diets []string `json:"diets"`
	} `json:"codes"`
}

// patientOf reads a patient's allergens and diets from the census documents, each once, in order.
func patientOf(allergies, dietOrders []byte) Patient {
	var p Patient
	var as []allergyDoc
	var ds []dietOrderDoc
	_ = json.Unmarshal(allergies, &as)
	_ = json.Unmarshal(dietOrders, &ds)
	seen := map[string]bool{}
	for _, a := range as {
		for _, x := range a.Allergens {
			if !seen["a:"+x] {
				seen["a:"+x] = true
				p.Allergens = append(p.Allergens, x)
			}
		}
	}
	for _, d := range ds {
		for _, c := range d.Codes {
			for _, x := range c.Diets {
				if !seen["d:"+x] {
					seen["d:"+x] = true
					p.Diets = append(p.Diets, x)
				}
			}
		}
	}
	if p.Allergens == nil {
		p.Allergens = []string{}
	}
	if p.Diets == nil {
		p.Diets = []string{}
	}
	return p
}

// dietName is a diet code as a screen shows it.
func dietName(code string) string {
	if strings.HasPrefix(code, "iddsi_") {
		parts := strings.Split(code, "_")
		return "IDDSI " + parts[1] + " level " + strings.ToUpper(strings.Join(parts[2:], " "))
	}
	s := strings.ReplaceAll(code, "_", " ")
	if s == "npo" {
		return "NPO"
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func loadRules(ctx context.Context, q *db.Queries, orgID uuid.UUID) (map[string]Rules, error) {
	rows, err := q.ListDietRules(ctx, orgID)
	if err != nil {
		return nil, err
	}
	out := make(map[string]Rules, len(rows))
	for _, r := range rows {
		var x Rules
		if err := json.Unmarshal(r.Rules, &x); err != nil {
			return nil, err
		}
		out[r.Diet] = x
	}
	return out, nil
}

// canSeeNames says whether the caller reads patients' names and MRNs (viewClinical).
func canSeeNames(a authz.Access) bool {
	if a.Principal.Kind != principal.User {
		return false
	}
	min, _ := authz.MinRole(authz.ViewClinical)
	return a.Role.AtLeast(min)
}

// hintSite tells the site's screens their state changed.
func hintSite(ctx context.Context, tx pgx.Tx, orgID, siteID uuid.UUID) error {
	ids, err := db.New(tx).SiteDeviceIDs(ctx, db.SiteDeviceIDsParams{OrgID: orgID, SiteID: siteID})
	if err != nil || len(ids) == 0 {
		return err
	}
	return realtime.Notify(ctx, tx, ids...)
}

func ticketToAPI(t db.TrayTicket, names map[uuid.UUID]db.TrayPatientsRow) (api.TrayTicket, error) {
	out := api.TrayTicket{
		Id: t.ID, SiteId: t.SiteID, Date: openapi_types.Date{Time: t.Date.Time}, DayPart: t.DayPart, PatientId: t.PatientID,
		Unit: t.Unit, Room: t.Room, Bed: t.Bed, Diets: make([]api.TrayDiet, 0, len(t.Diets)), Allergens: make([]api.Allergen, 0, len(t.Allergens)),
		Conflict: t.Conflict, Notes: t.Notes, Status: api.TrayStatus(t.Status), CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt,
		Items: []api.TrayItem{}, History: []api.TrayHistoryEntry{},
	}
	if t.Texture != nil {
		v := int(*t.Texture)
		out.Texture = &v
	}
	for _, d := range t.Diets {
		out.Diets = append(out.Diets, api.TrayDiet{Code: api.Diet(d), Name: dietName(d)})
	}
	for _, a := range t.Allergens {
		out.Allergens = append(out.Allergens, api.Allergen(a))
	}
	var items []Item
	if err := json.Unmarshal(t.Items, &items); err != nil {
		return out, err
	}
	for _, it := range items {
		r := it.Reasons
		if r == nil {
			r = []string{}
		}
		out.Items = append(out.Items, api.TrayItem{RecipeId: it.RecipeID, Name: it.Name, Check: api.TrayCheck(it.Check), Reasons: r, Replaces: it.Replaces})
	}
	var hist []historyEntry
	if err := json.Unmarshal(t.History, &hist); err != nil {
		return out, err
	}
	for _, h := range hist {
		out.History = append(out.History, api.TrayHistoryEntry{Status: api.TrayStatus(h.Status), At: h.At, By: h.By})
	}
	if p, ok := names[t.PatientID]; ok {
		if notes := dietNotes(p.DietOrders); len(notes) > 0 {
			out.DietNotes = &notes
		}
	}
	if p, ok := names[t.PatientID]; ok && p.Mrn != "" {
		name := strings.TrimSpace(p.FamilyName + ", " + p.GivenName)
		name = strings.Trim(name, ", ")
		mrn := p.Mrn
		out.PatientName, out.Mrn = &name, &mrn
	}
	return out, nil
}

func patientNames(ctx context.Context, q *db.Queries, a authz.Access, ids []uuid.UUID) (map[uuid.UUID]db.TrayPatientsRow, error) {
	out := map[uuid.UUID]db.TrayPatientsRow{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := q.TrayPatients(ctx, db.TrayPatientsParams{OrgID: a.OrgID, Ids: ids})
	if err != nil {
		return nil, err
	}
	see := canSeeNames(a)
	for _, r := range rows {
		if !see { // the diet orders only
			r.Mrn, r.FamilyName, r.GivenName = "", "", ""
		}
		out[r.ID] = r
	}
	return out, nil
}

// noteDoc is what a ticket's diet notes read of a census diet order.
type noteDoc struct {
	Type      string `json:"type"`
	Status    string `json:"status"`
	Product   string `json:"product"`
	Nutrients []struct {
		Nutrient string  `json:"nutrient"`
		Amount   float64 `json:"amount"`
		Unit     string  `json:"unit"`
	} `json:"nutrients"`
	Exclusions []string `json:"exclusions"`
}

// dietNotes lists what the diet orders ask of the tray beyond its diets, in order.
func dietNotes(raw []byte) []string {
	var orders []noteDoc
	if json.Unmarshal(raw, &orders) != nil {
		return nil
	}
	var out []string
	for _, o := range orders {
		if o.Status == "on-hold" {
			out = append(out, "On hold: the "+o.Type+" order")
		}
		for _, n := range o.Nutrients {
			out = append(out, n.Nutrient+": at most "+strconv.FormatFloat(n.Amount, 'f', -1, 64)+" "+n.Unit)
		}
		if len(o.Exclusions) > 0 {
			out = append(out, "Exclude: "+strings.Join(o.Exclusions, ", "))
		}
		switch {
		case o.Product == "":
		case o.Type == "supplement":
			out = append(out, "Supplement: "+strings.TrimSpace(o.Product))
		case o.Type == "enteral":
			out = append(out, "Tube feeding: "+strings.TrimSpace(o.Product))
		}
	}
	return out
}
