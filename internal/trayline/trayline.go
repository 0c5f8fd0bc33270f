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
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/kitchen"
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
	// Codes are the reasons' codes, in order (none on items stored before codes were kept).
	Codes []string `json:"codes,omitempty"`
	// Nutrients are one portion of the item's nutrients and fluid when it was checked, so the
	// ticket's totals and the patient's day read what the check read.
	Nutrients kitchen.Compact `json:"nutrients,omitempty"`
}

// Item checks.
const (
	checkOK          = "ok"
	checkConflict    = "conflict"
	checkSubstituted = "substituted"
	checkRefused     = "refused"
	checkUnknown     = "unknown"
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
	Status    string `json:"status"`
	Nutrients []struct {
		Nutrient string          `json:"nutrient"`
		Amount   decimal.Decimal `json:"amount"` // read exactly from the stored JSON number
		Unit     string          `json:"unit"`
	} `json:"nutrients"`
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
		// An order on hold asks nothing of today's trays (its notes still show it).
		for _, n := range d.Nutrients {
			if d.Status == "on-hold" {
				break
			}
			key, l, ok := orderLimit(n.Nutrient, n.Amount, n.Unit)
			if !ok {
				continue
			}
			if p.Orders == nil {
				p.Orders = map[string]NutrientLimit{}
			}
			// Two orders limiting one nutrient: the lower maximum holds.
			if have, ok := p.Orders[key]; !ok || l.Max.LessThan(*have.Max) {
				p.Orders[key] = l
			}
		}
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

// ticketView is what ticketToAPI reads beyond the ticket: the patients, the diets' rules and
// the patients' trays of the day.
type ticketView struct {
	names map[uuid.UUID]db.TrayPatientsRow
	rules map[string]Rules
	days  map[time.Time]dayTrays
}

// viewOf reads what the tickets' answers need.
func viewOf(ctx context.Context, q *db.Queries, a authz.Access, tickets []db.TrayTicket) (ticketView, error) {
	v := ticketView{days: map[time.Time]dayTrays{}}
	ids := make([]uuid.UUID, 0, len(tickets))
	byDate := map[time.Time][]uuid.UUID{}
	for _, t := range tickets {
		ids = append(ids, t.PatientID)
		byDate[t.Date.Time] = append(byDate[t.Date.Time], t.PatientID)
	}
	var err error
	if v.names, err = patientNames(ctx, q, a, ids); err != nil {
		return v, err
	}
	if len(tickets) == 0 {
		return v, nil
	}
	if v.rules, err = loadRules(ctx, q, a.OrgID); err != nil {
		return v, err
	}
	for d, ps := range byDate {
		if v.days[d], err = readDayTrays(ctx, q, a.OrgID, d, ps); err != nil {
			return v, err
		}
	}
	return v, nil
}

func ticketToAPI(t db.TrayTicket, view ticketView) (api.TrayTicket, error) {
	names := view.names
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
		ti := api.TrayItem{RecipeId: it.RecipeID, Name: it.Name, Check: api.TrayCheck(it.Check), Reasons: r, Replaces: it.Replaces}
		if len(it.Codes) == len(r) && len(r) > 0 {
			codes := make([]api.TrayItemReasonCodes, len(it.Codes))
			for i, c := range it.Codes {
				codes[i] = api.TrayItemReasonCodes(c)
			}
			ti.ReasonCodes = &codes
		}
		out.Items = append(out.Items, ti)
	}
	// The tray's totals (its items as planned) and the patient's planned day through every
	// day part's tray, this one as it stands; each limit judged on them.
	tray := sumItems(items, planned)
	day := view.days[t.Date.Time].others(t.PatientID, t.DayPart).Plus(tray)
	p := Patient{Diets: t.Diets}
	if row, ok := names[t.PatientID]; ok {
		p.Orders = patientOf(nil, row.DietOrders).Orders
	}
	checks, unknown := limitChecks(limitsOf(p, view.rules), tray, day)
	if unknown == nil {
		unknown = []string{}
	}
	for _, c := range []struct {
		from, to any
	}{{tray, &out.Nutrients}, {day, &out.DaySoFar}, {checks, &out.NutrientChecks}, {unknown, &out.UnknownNutrients}} {
		raw, err := json.Marshal(c.from)
		if err != nil {
			return out, err
		}
		if err := json.Unmarshal(raw, c.to); err != nil {
			return out, err
		}
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
