package trayline

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/alerts"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/events"
	"github.com/sous-app/sous/internal/kitchen"
	"github.com/sous-app/sous/internal/pg"
)

var errTicketNotFound = apierr.NotFound("Tray ticket")

// Ticket statuses.
const (
	statusQueued    = "queued"
	statusAssembled = "assembled"
	statusChecked   = "checked"
	statusDelivered = "delivered"
	statusCancelled = "cancelled"
)

// EventTrayDelivered is announced when a ticket is marked delivered.
const EventTrayDelivered = "tray.delivered"

// defaultsFor is what a patient gets with nothing selected: the defaults of the first of their
// diets that has some, else the regular diet's, else the day part's effective menu.
func defaultsFor(p Patient, rules map[string]Rules, menu []uuid.UUID) []uuid.UUID {
	for _, d := range p.Diets {
		if ids := rules[d].DefaultRecipeIDs; len(ids) > 0 {
			return ids
		}
	}
	if ids := rules["regular"].DefaultRecipeIDs; len(ids) > 0 {
		return ids
	}
	return menu
}

// substitutesFor lists the default substitutes of the patient's diets in order, then the
// regular diet's.
func substitutesFor(p Patient, rules map[string]Rules) []uuid.UUID {
	var out []uuid.UUID
	for _, d := range append(slices.Clone(p.Diets), "regular") {
		if s := rules[d].SubstituteRecipeID; s != nil && !slices.Contains(out, *s) {
			out = append(out, *s)
		}
	}
	return out
}

// portions are the recipes' portions as totals, and as items store them, computed once per
// generation however many trays use them.
type portions map[uuid.UUID]struct {
	totals  kitchen.Totals
	compact kitchen.Compact
}

func portionsOf(facts map[uuid.UUID]kitchen.RecipeFacts) portions {
	out := make(portions, len(facts))
	for id, f := range facts {
		t := kitchen.PortionTotals(f)
		out[id] = struct {
			totals  kitchen.Totals
			compact kitchen.Compact
		}{t, t.Compact()}
	}
	return out
}

// meal is what the checks of one tray read: the patient, their rules and nutrient limits, the
// recipes, and the rest of the patient's planned day.
type meal struct {
	p        Patient
	rules    map[string]Rules
	limits   []limit
	facts    map[uuid.UUID]kitchen.RecipeFacts
	portions portions
	dayOther kitchen.Totals
}

// check checks one recipe served after the items so far (tot: the served items' stated sums,
// nut: their nutrients): the reasons it conflicts, and the reasons a nutrient it needs is unknown.
func (m meal) check(f kitchen.RecipeFacts, tot Totals, nut kitchen.Totals) (conflicts, unknowns []reason) {
	conflicts = checkCoded(m.p, m.rules, f, tot)
	nc, nu := nutrientReasons(m.limits, f.Name, m.portions[f.ID].totals, nut, m.dayOther)
	return append(conflicts, nc...), nu
}

func texts(rs []reason) ([]string, []string) {
	t, c := make([]string, len(rs)), make([]string, len(rs))
	for i, r := range rs {
		t[i], c[i] = r.Text, r.Code
	}
	return t, c
}

// onlyNutrients says whether every reason is a nutrient limit: such an item stays on the ticket
// as a conflict for someone to decide, rather than being left off.
func onlyNutrients(rs []reason) bool {
	for _, r := range rs {
		if r.Code != codeNutrientLimit {
			return false
		}
	}
	return len(rs) > 0
}

// buildItems checks candidates in order (the meal's totals growing with every item served).
// A conflicting item is replaced by the first substitute that passes (no conflict, no unknown),
// marked `substituted` with the reasons; else an item that only breaks a nutrient limit is kept
// as `conflict`, and any other is kept as `refused` (not served). An item a nutrient limit needs
// an unknown value of is `unknown`. Unknown recipes are left out. It reports whether any item
// conflicts.
func (m meal) buildItems(candidates []uuid.UUID) ([]Item, bool) {
	items := []Item{}
	var tot Totals
	nut := kitchen.NoTotals()
	subs := substitutesFor(m.p, m.rules)
	conflict := false
	serve := func(it Item, f kitchen.RecipeFacts) {
		it.Nutrients = m.portions[f.ID].compact
		items = append(items, it)
		tot = tot.add(f.Nutrition)
		nut = nut.Plus(m.portions[f.ID].totals)
	}
	for _, id := range candidates {
		f, ok := m.facts[id]
		if !ok {
			continue
		}
		reasons, unknowns := m.check(f, tot, nut)
		if len(reasons) == 0 {
			check := checkOK
			if len(unknowns) > 0 {
				check = checkUnknown
			}
			r, c := texts(unknowns)
			serve(Item{RecipeID: id, Name: f.Name, Check: check, Reasons: r, Codes: c}, f)
			continue
		}
		replaced := false
		for _, sid := range subs {
			sf, ok := m.facts[sid]
			if !ok || slices.ContainsFunc(items, func(it Item) bool { return it.RecipeID == sid }) {
				continue
			}
			if sc, su := m.check(sf, tot, nut); len(sc) == 0 && len(su) == 0 {
				orig := id
				r, c := texts(reasons)
				serve(Item{RecipeID: sid, Name: sf.Name, Check: checkSubstituted, Reasons: r, Codes: c, Replaces: &orig}, sf)
				replaced = true
				break
			}
		}
		if replaced {
			continue
		}
		r, c := texts(reasons)
		check := checkRefused
		if onlyNutrients(reasons) {
			check, conflict = checkConflict, true
		}
		items = append(items, Item{RecipeID: id, Name: f.Name, Check: check, Reasons: r, Codes: c, Nutrients: m.portions[id].compact})
	}
	return items, conflict
}

// recheck checks a queued ticket's items again (after a diet or allergen change): an item that
// now conflicts is marked `conflict` with the reasons; nothing is replaced. It reports whether
// any item conflicts.
func (m meal) recheck(items []Item) ([]Item, bool) {
	var tot Totals
	nut := kitchen.NoTotals()
	conflict := false
	out := make([]Item, 0, len(items))
	for _, it := range items {
		if it.Check == checkRefused {
			out = append(out, it)
			continue
		}
		f, ok := m.facts[it.RecipeID]
		if !ok {
			out = append(out, it)
			continue
		}
		reasons, unknowns := m.check(f, tot, nut)
		it.Nutrients = m.portions[f.ID].compact
		switch {
		case len(reasons) > 0:
			it.Check, conflict = checkConflict, true
			it.Reasons, it.Codes = texts(reasons)
		case len(unknowns) > 0 && it.Check != checkSubstituted:
			it.Check = checkUnknown
			it.Reasons, it.Codes = texts(unknowns)
		case it.Check == checkConflict || it.Check == checkUnknown:
			it.Check, it.Reasons, it.Codes = checkOK, []string{}, nil
		}
		tot = tot.add(f.Nutrition) // as before nutrient limits: the stated sums count every item
		if it.Check != checkConflict {
			nut = nut.Plus(m.portions[f.ID].totals)
		}
		out = append(out, it)
	}
	return out, conflict
}

// candidatesOf gives the recipes a ticket was built from: the selections (what substitutes
// replaced, not the substitutes).
func candidatesOf(items []Item) []uuid.UUID {
	out := make([]uuid.UUID, 0, len(items))
	for _, it := range items {
		if it.Replaces != nil {
			out = append(out, *it.Replaces)
		} else {
			out = append(out, it.RecipeID)
		}
	}
	return out
}

func texture(p Patient, rules map[string]Rules) *int32 {
	if l, ok := Texture(p, rules); ok {
		v := int32(l)
		return &v
	}
	return nil
}

func localDate(d openapi_types.Date) time.Time {
	return time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC)
}

type upsertRow struct {
	ID        uuid.UUID       `json:"id"`
	PatientID uuid.UUID       `json:"patient_id"`
	Unit      string          `json:"unit"`
	Room      string          `json:"room"`
	Bed       string          `json:"bed"`
	Diets     []string        `json:"diets"`
	Allergens []string        `json:"allergens"`
	Texture   *int32          `json:"texture"`
	Items     []Item          `json:"items"`
	Conflict  bool            `json:"conflict"`
	History   json.RawMessage `json:"history"`
}

func by(a authz.Access) *uuid.UUID {
	if u := a.UserID(); u != uuid.Nil {
		return &u
	}
	return nil
}

func (h *Handlers) GenerateTrayTickets(ctx context.Context, req api.GenerateTrayTicketsRequestObject) (api.GenerateTrayTicketsResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	res, err := h.generate(ctx, a, req.Body.SiteId, localDate(req.Body.Date), req.Body.DayPart)
	if err != nil {
		return nil, err
	}
	return api.GenerateTrayTickets200JSONResponse(res), nil
}

func (h *Handlers) generate(ctx context.Context, a authz.Access, siteID uuid.UUID, date time.Time, dayPartIn string) (api.GenerateTraysResult, error) {
	var res api.GenerateTraysResult
	now := h.clock.Now()
	err := pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		res = api.GenerateTraysResult{}
		q := db.New(tx)
		dayPart, startsAt, err := kitchen.MealStart(ctx, q, a, siteID, date, dayPartIn, "dayPart")
		if err != nil {
			return err
		}
		// Generations of the same meal run one after the other, so each counts what it did.
		if err := q.LockTrayMeal(ctx, "tray:"+siteID.String()+":"+date.Format(time.DateOnly)+":"+dayPart); err != nil {
			return err
		}
		pgd := pgtype.Date{Time: date, Valid: true}
		existing, err := q.MealTickets(ctx, db.MealTicketsParams{OrgID: a.OrgID, SiteID: siteID, Date: pgd, DayPart: dayPart})
		if err != nil {
			return err
		}
		census, err := q.TrayCensus(ctx, db.TrayCensusParams{OrgID: a.OrgID, SiteID: siteID})
		if err != nil {
			return err
		}
		rules, err := loadRules(ctx, q, a.OrgID)
		if err != nil {
			return err
		}
		menu, err := kitchen.EffectiveRecipeIDs(ctx, q, a.OrgID, siteID, date, dayPart)
		if err != nil {
			return err
		}
		// Every recipe any ticket may use, read once.
		want := map[uuid.UUID]bool{}
		for _, id := range menu {
			want[id] = true
		}
		for _, r := range rules {
			for _, id := range r.DefaultRecipeIDs {
				want[id] = true
			}
			if r.SubstituteRecipeID != nil {
				want[*r.SubstituteRecipeID] = true
			}
		}
		byPatient := make(map[uuid.UUID]db.TrayTicket, len(existing))
		selections := map[uuid.UUID][]uuid.UUID{}
		for _, t := range existing {
			byPatient[t.PatientID] = t
			if t.Selected {
				var items []Item
				if err := json.Unmarshal(t.Items, &items); err != nil {
					return err
				}
				selections[t.ID] = candidatesOf(items)
				for _, id := range selections[t.ID] {
					want[id] = true
				}
			}
		}
		ids := make([]uuid.UUID, 0, len(want))
		for id := range want {
			ids = append(ids, id)
		}
		facts, err := kitchen.ReadRecipeFacts(ctx, q, a.OrgID, ids)
		if err != nil {
			return err
		}
		hist, _ := json.Marshal([]historyEntry{{Status: statusQueued, At: now, By: by(a)}})
		var rows []upsertRow
		var cancel []uuid.UUID
		inHouse := make(map[uuid.UUID]bool, len(census))
		pats := make([]Patient, len(census))
		lims := make([][]limit, len(census))
		var dayIDs []uuid.UUID
		for i, c := range census {
			pats[i] = patientOf(c.Allergies, c.DietOrders)
			lims[i] = limitsOf(pats[i], rules)
			if needsDay(lims[i]) {
				dayIDs = append(dayIDs, c.ID)
			}
		}
		// Patients whose day was over when last judged are judged again, whatever happens to
		// them here (cancelled, left the census, limit gone).
		breached, err := q.BreachedPatientsOn(ctx, db.BreachedPatientsOnParams{OrgID: a.OrgID, SiteID: siteID, Date: pgd})
		if err != nil {
			return err
		}
		lock := make([]dayKey, 0, len(dayIDs)+len(breached))
		for _, id := range append(slices.Clone(dayIDs), breached...) {
			lock = append(lock, dayKey{id, date})
		}
		if err := lockDays(ctx, q, a.OrgID, lock); err != nil {
			return err
		}
		// Only patients held to a per-day limit need the rest of their day.
		day, err := readDayTrays(ctx, q, a.OrgID, date, dayIDs)
		if err != nil {
			return err
		}
		ports := portionsOf(facts)
		var judged []judgement
		for i, c := range census {
			inHouse[c.ID] = true
			p := pats[i]
			t, has := byPatient[c.ID]
			if has && t.Status != statusQueued && t.Status != statusCancelled {
				res.Untouched++
				continue
			}
			if NPO(p, rules) {
				res.SkippedNpo++
				if has && t.Status == statusQueued {
					cancel = append(cancel, t.ID)
				}
				continue
			}
			candidates := defaultsFor(p, rules, menu)
			if has && t.Selected {
				candidates = selections[t.ID]
			}
			m := meal{p: p, rules: rules, limits: lims[i], facts: facts, portions: ports, dayOther: day.others(c.ID, dayPart)}
			items, conflict := m.buildItems(candidates)
			if needsDay(m.limits) || slices.Contains(breached, c.ID) {
				what, over := dayRisk(m, items)
				judged = append(judged, judgement{dayKey: dayKey{c.ID, date}, site: siteID, over: over,
					r: risk{unit: c.Unit, room: c.Room, bed: c.Bed, what: what}})
			}
			row := upsertRow{ID: uuid.Must(uuid.NewV7()), PatientID: c.ID, Unit: c.Unit, Room: c.Room, Bed: c.Bed, Diets: p.Diets,
				Allergens: p.Allergens, Texture: texture(p, rules), Items: items, Conflict: conflict, History: hist}
			if has {
				row.ID = t.ID
				res.Updated++
			} else {
				res.Created++
			}
			rows = append(rows, row)
		}
		for _, t := range existing {
			if inHouse[t.PatientID] {
				continue
			}
			if t.Status == statusQueued {
				cancel = append(cancel, t.ID)
			} else if t.Status != statusCancelled {
				res.Untouched++
			}
		}
		if len(rows) > 0 {
			raw, err := json.Marshal(rows)
			if err != nil {
				return err
			}
			if _, err := q.UpsertTrayTickets(ctx, db.UpsertTrayTicketsParams{OrgID: a.OrgID, SiteID: siteID, Date: pgd, DayPart: dayPart,
				StartsAt: startsAt, Now: now, Rows: raw}); err != nil {
				return err
			}
		}
		if len(cancel) > 0 {
			n, err := q.CancelTrayTickets(ctx, db.CancelTrayTicketsParams{OrgID: a.OrgID, Ids: cancel, Now: now, By: by(a)})
			if err != nil {
				return err
			}
			res.Cancelled = int(n)
			if err := alerts.Close(ctx, tx, now, a.OrgID, KindTrayLate, cancel...); err != nil {
				return err
			}
		}
		if err := settleDays(ctx, tx, now, a.OrgID, judged); err != nil {
			return err
		}
		// The breached patients this generation did not plan (cancelled, discharged, NPO, or a
		// tray already past queued) are judged from what is stored.
		var rest []dayKey
		for _, id := range breached {
			if !slices.ContainsFunc(judged, func(j judgement) bool { return j.patient == id }) {
				rest = append(rest, dayKey{id, date})
			}
		}
		if err := judgeDays(ctx, tx, now, a.OrgID, rest); err != nil {
			return err
		}
		if err := audit.RecordSite(ctx, q, a.OrgID, siteID, uuid.Nil, now); err != nil {
			return err
		}
		return hintSite(ctx, tx, a.OrgID, siteID)
	})
	return res, err
}

func (h *Handlers) ListTrayTickets(ctx context.Context, req api.ListTrayTicketsRequestObject) (api.ListTrayTicketsResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	q := db.New(h.pool)
	date := localDate(p.Date)
	dayPart, _, err := kitchen.MealStart(ctx, q, a, p.SiteId, date, p.DayPart, "dayPart")
	if err != nil {
		return nil, err
	}
	params := db.ListTrayTicketsParams{OrgID: a.OrgID, SiteID: p.SiteId, Date: pgtype.Date{Time: date, Valid: true}, DayPart: dayPart, Unit: p.Unit}
	if p.Status != nil {
		s := string(*p.Status)
		params.Status = &s
	}
	rows, err := q.ListTrayTickets(ctx, params)
	if err != nil {
		return nil, err
	}
	view, err := viewOf(ctx, q, a, rows)
	if err != nil {
		return nil, err
	}
	out := make(api.ListTrayTickets200JSONResponse, 0, len(rows))
	for _, r := range rows {
		t, err := ticketToAPI(r, view)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// lockTicket reads a ticket for update; one of another organization or outside the caller's
// sites is 404.
func lockTicket(ctx context.Context, q *db.Queries, a authz.Access, id uuid.UUID) (db.TrayTicket, error) {
	t, err := q.GetTrayTicketForUpdate(ctx, db.GetTrayTicketForUpdateParams{OrgID: a.OrgID, ID: id})
	if pg.IsNoRows(err) || (err == nil && !a.CanSeeSite(t.SiteID)) {
		return t, errTicketNotFound
	}
	return t, err
}

func (h *Handlers) respond(ctx context.Context, a authz.Access, t db.TrayTicket) (api.TrayTicket, error) {
	view, err := viewOf(ctx, db.New(h.pool), a, []db.TrayTicket{t})
	if err != nil {
		return api.TrayTicket{}, err
	}
	return ticketToAPI(t, view)
}

func (h *Handlers) SetTraySelections(ctx context.Context, req api.SetTraySelectionsRequestObject) (api.SetTraySelectionsResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var out db.TrayTicket
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		// The patient's day is locked before the ticket (as a generation does), so the per-day
		// check reads the other trays of the day as no one else is changing them.
		td, err := q.TrayTicketDay(ctx, db.TrayTicketDayParams{OrgID: a.OrgID, ID: req.Id})
		if pg.IsNoRows(err) {
			return errTicketNotFound
		}
		if err != nil {
			return err
		}
		day := dayKeyOf(td.PatientID, td.Date)
		if err := lockDays(ctx, q, a.OrgID, []dayKey{day}); err != nil {
			return err
		}
		t, err := lockTicket(ctx, q, a, req.Id)
		if err != nil {
			return err
		}
		if t.Status != statusQueued {
			return apierr.Conflict(fmt.Sprintf("The ticket is %s; only a queued ticket's selections change", t.Status))
		}
		menu, err := kitchen.EffectiveRecipeIDs(ctx, q, a.OrgID, t.SiteID, t.Date.Time, t.DayPart)
		if err != nil {
			return err
		}
		for i, id := range req.Body.RecipeIds {
			if !slices.Contains(menu, id) {
				return apierr.InvalidField(fmt.Sprintf("recipeIds[%d]", i), "is not on the effective menu of the ticket's day part")
			}
		}
		facts, err := kitchen.ReadRecipeFacts(ctx, q, a.OrgID, req.Body.RecipeIds)
		if err != nil {
			return err
		}
		pats, err := q.TrayPatientFacts(ctx, db.TrayPatientFactsParams{OrgID: a.OrgID, Ids: []uuid.UUID{t.PatientID}})
		if err != nil {
			return err
		}
		if len(pats) == 0 {
			return errTicketNotFound
		}
		p := patientOf(pats[0].Allergies, pats[0].DietOrders)
		rules, err := loadRules(ctx, q, a.OrgID)
		if err != nil {
			return err
		}
		m := meal{p: p, rules: rules, limits: limitsOf(p, rules), facts: facts, portions: portionsOf(facts), dayOther: kitchen.NoTotals()}
		if needsDay(m.limits) {
			day, err := readDayTrays(ctx, q, a.OrgID, t.Date.Time, []uuid.UUID{t.PatientID})
			if err != nil {
				return err
			}
			m.dayOther = day.others(t.PatientID, t.DayPart)
		}
		var tot Totals
		nut := kitchen.NoTotals()
		items := []Item{}
		for i, id := range req.Body.RecipeIds {
			f, ok := facts[id]
			if !ok {
				return apierr.InvalidField(fmt.Sprintf("recipeIds[%d]", i), "is no recipe of the organization")
			}
			reasons, unknowns := m.check(f, tot, nut)
			if len(reasons) > 0 {
				r, _ := texts(reasons)
				return apierr.InvalidField(fmt.Sprintf("recipeIds[%d]", i), "conflicts with the patient: "+strings.Join(r, "; "))
			}
			tot = tot.add(f.Nutrition)
			nut = nut.Plus(m.portions[id].totals)
			// A selection a limit cannot judge is taken, marked unknown: never passed as ok.
			it := Item{RecipeID: id, Name: f.Name, Check: checkOK, Reasons: []string{}, Nutrients: m.portions[id].compact}
			if len(unknowns) > 0 {
				it.Check = checkUnknown
				it.Reasons, it.Codes = texts(unknowns)
			}
			items = append(items, it)
		}
		raw, err := json.Marshal(items)
		if err != nil {
			return err
		}
		notes := t.Notes
		if req.Body.Notes != nil {
			notes = strings.TrimSpace(*req.Body.Notes)
		}
		if out, err = q.UpdateTrayTicket(ctx, db.UpdateTrayTicketParams{OrgID: a.OrgID, ID: t.ID, Items: raw, Selected: true, Conflict: false,
			Notes: notes, Status: t.Status, AssembledBy: t.AssembledBy, CheckedBy: t.CheckedBy, History: t.History, UpdatedAt: now}); err != nil {
			return err
		}
		// Changed selections may bring the day back within its limits (an item kept as a
		// conflict taken off): judge it now.
		what, over := dayRisk(m, items)
		if err := settleDays(ctx, tx, now, a.OrgID, []judgement{{dayKey: day, site: t.SiteID, over: over,
			r: risk{unit: t.Unit, room: t.Room, bed: t.Bed, what: what}}}); err != nil {
			return err
		}
		if err := audit.RecordSite(ctx, q, a.OrgID, t.SiteID, t.ID, now); err != nil {
			return err
		}
		return hintSite(ctx, tx, a.OrgID, t.SiteID)
	})
	if err != nil {
		return nil, err
	}
	res, err := h.respond(ctx, a, out)
	if err != nil {
		return nil, err
	}
	return api.SetTraySelections200JSONResponse(res), nil
}

// next is the one status a ticket moves to from each.
var next = map[string]string{statusQueued: statusAssembled, statusAssembled: statusChecked, statusChecked: statusDelivered}

func (h *Handlers) SetTrayStatus(ctx context.Context, req api.SetTrayStatusRequestObject) (api.SetTrayStatusResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	to := string(req.Body.Status)
	now := h.clock.Now()
	var out db.TrayTicket
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		t, err := lockTicket(ctx, q, a, req.Id)
		if err != nil {
			return err
		}
		if next[t.Status] != to {
			return apierr.Conflict(fmt.Sprintf("The ticket is %s; it moves queued → assembled → checked → delivered one step at a time", t.Status))
		}
		if t.Conflict && (to == statusAssembled || to == statusChecked) {
			return apierr.Conflict("An item of the ticket conflicts with the patient's diet or allergens; change the selections first")
		}
		user := by(a)
		switch to {
		case statusAssembled:
			t.AssembledBy = user
		case statusChecked:
			if user == nil || (t.AssembledBy != nil && *t.AssembledBy == *user) {
				return apierr.Conflict("The check must be made by a second person, not the one who assembled the tray")
			}
			t.CheckedBy = user
		}
		var hist []historyEntry
		if err := json.Unmarshal(t.History, &hist); err != nil {
			return err
		}
		hist = append(hist, historyEntry{Status: to, At: now, By: user})
		raw, err := json.Marshal(hist)
		if err != nil {
			return err
		}
		if out, err = q.UpdateTrayTicket(ctx, db.UpdateTrayTicketParams{OrgID: a.OrgID, ID: t.ID, Items: t.Items, Selected: t.Selected, Conflict: t.Conflict,
			Notes: t.Notes, Status: to, AssembledBy: t.AssembledBy, CheckedBy: t.CheckedBy, History: raw, UpdatedAt: now}); err != nil {
			return err
		}
		if to == statusDelivered {
			if err := alerts.Close(ctx, tx, now, a.OrgID, KindTrayLate, t.ID); err != nil {
				return err
			}
			if _, err := events.Publish(ctx, q, a.OrgID, EventTrayDelivered, now, api.TrayDeliveredData{
				TicketId: t.ID, SiteId: t.SiteID, PatientId: t.PatientID, DayPart: t.DayPart, Date: openapi_types.Date{Time: t.Date.Time},
			}); err != nil {
				return err
			}
		}
		if err := audit.RecordSite(ctx, q, a.OrgID, t.SiteID, t.ID, now); err != nil {
			return err
		}
		return hintSite(ctx, tx, a.OrgID, t.SiteID)
	})
	if err != nil {
		return nil, err
	}
	res, err := h.respond(ctx, a, out)
	if err != nil {
		return nil, err
	}
	return api.SetTrayStatus200JSONResponse(res), nil
}
