package clinical

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/paging"
	"github.com/sous-app/sous/internal/pg"
)

type codeCursor struct {
	At   time.Time `json:"a"`
	Kind string    `json:"k"`
	Code string    `json:"c"`
}

// codeView is a clinical_codes row as every code query returns it.
type codeView struct {
	Kind, Code, Text, System string
	Occurrences              int64
	FirstSeenAt, LastSeenAt  *time.Time
	Targets                  []string
	MappedAt                 *time.Time
	MappedBy                 *uuid.UUID
}

func (v codeView) toAPI(patients int) api.UnmappedCode {
	out := api.UnmappedCode{
		Kind: api.CodeKind(v.Kind), Code: v.Code, Text: v.Text, System: v.System, Occurrences: int(v.Occurrences),
		FirstSeenAt: v.FirstSeenAt, LastSeenAt: v.LastSeenAt, Status: api.UnmappedCodeStatusUnmapped,
		Allergens: []api.Allergen{}, Diets: []api.Diet{}, MappedAt: v.MappedAt, MappedBy: v.MappedBy,
		PatientsAffected: patients,
	}
	if v.Targets != nil {
		out.Status = api.UnmappedCodeStatusMapped
		for _, t := range v.Targets {
			if v.Kind == kindAllergen {
				out.Allergens = append(out.Allergens, api.Allergen(t))
			} else {
				out.Diets = append(out.Diets, api.Diet(t))
			}
		}
	}
	return out
}

func (h *Handlers) ListUnmappedCodes(ctx context.Context, req api.ListUnmappedCodesRequestObject) (api.ListUnmappedCodesResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	limit := paging.Limit(p.Limit)
	status := "unmapped"
	if p.Status != nil {
		status = string(*p.Status)
	}
	// A site-limited member sees the codes their sites' patients carry, counted at their sites.
	params := db.ListClinicalCodesParams{OrgID: req.OrgId, Scope: a.SiteScope(), Status: status, MaxRows: paging.Fetch(limit)}
	if p.Kind != nil {
		k := string(*p.Kind)
		params.Kind = &k
	}
	if p.Cursor != nil {
		var c codeCursor
		if err := paging.DecodeCursor(*p.Cursor, &c); err != nil {
			return nil, err
		}
		params.CursorAt, params.CursorKind, params.CursorCode = c.At, &c.Kind, c.Code
	}
	q := db.New(h.pool)
	rows, err := q.ListClinicalCodes(ctx, params)
	if err != nil {
		return nil, err
	}
	out := api.ListUnmappedCodes200JSONResponse{Body: make([]api.UnmappedCode, 0, len(rows))}
	rows, out.Headers.Link = paging.Page(ctx, rows, limit, func(last db.ListClinicalCodesRow) any {
		return codeCursor{At: last.SortAt, Kind: last.Kind, Code: last.Code}
	})
	views := make([]codeView, 0, len(rows))
	for _, r := range rows {
		views = append(views, codeView(db.GetClinicalCodeRow{
			Kind: r.Kind, Code: r.Code, Text: r.Text, System: r.System, Occurrences: r.Occurrences,
			FirstSeenAt: r.FirstSeenAt, LastSeenAt: r.LastSeenAt, Targets: r.Targets, MappedAt: r.MappedAt, MappedBy: r.MappedBy,
		}))
	}
	counts, err := countPatients(ctx, q, req.OrgId, a.SiteScope(), views)
	if err != nil {
		return nil, err
	}
	for _, v := range views {
		out.Body = append(out.Body, v.toAPI(counts[mappingKey{v.Kind, v.Code}]))
	}
	return out, nil
}

// countPatients counts the in-house patients carrying each code at the scope's sites (empty:
// every site).
func countPatients(ctx context.Context, q *db.Queries, orgID uuid.UUID, scope []uuid.UUID, views []codeView) (map[mappingKey]int, error) {
	out := map[mappingKey]int{}
	if len(views) == 0 {
		return out, nil
	}
	type key struct {
		Kind string `json:"kind"`
		Code string `json:"code"`
	}
	keys := make([]key, 0, len(views))
	for _, v := range views {
		keys = append(keys, key{v.Kind, v.Code})
	}
	raw, _ := json.Marshal(keys)
	rows, err := q.CountInHouseWithCodes(ctx, db.CountInHouseWithCodesParams{Keys: raw, OrgID: orgID, Scope: scope})
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[mappingKey{r.Kind, r.Code}] = int(r.Patients)
	}
	return out, nil
}

// MapUnmappedCode records an organization mapping and re-applies it to the in-house patients
// carrying the code, holding the organization's census exclusively (every ingest holds it
// shared, see locks.go) so that no ingest interleaves. A mapping changes
// patients of every site, so the operation is organization-wide (x-site-scope org): the policy
// refuses members limited to some sites before this runs.
func (h *Handlers) MapUnmappedCode(ctx context.Context, req api.MapUnmappedCodeRequestObject) (api.MapUnmappedCodeResponseObject, error) {
	a, err := access(ctx)
	if err != nil {
		return nil, err
	}
	key := normalizeKey(req.Code)
	if key == "" {
		return nil, apierr.InvalidField("code", "must not be blank")
	}
	kind := string(req.Body.Kind)
	targets := []string{}
	switch {
	case kind == kindAllergen && req.Body.Diets != nil, kind == kindDiet && req.Body.Allergens != nil:
		return nil, apierr.InvalidField("body", fmt.Sprintf("a %s code is mapped with %s", kind, map[string]string{kindAllergen: "allergens", kindDiet: "diets"}[kind]))
	case kind == kindAllergen && req.Body.Allergens == nil:
		return nil, apierr.InvalidField("allergens", "is required for an allergen code (an empty list means nothing to map)")
	case kind == kindDiet && req.Body.Diets == nil:
		return nil, apierr.InvalidField("diets", "is required for a diet code (an empty list means nothing to map)")
	case kind == kindAllergen:
		for _, x := range *req.Body.Allergens {
			targets = append(targets, string(x))
		}
	default:
		for _, x := range *req.Body.Diets {
			targets = append(targets, string(x))
		}
	}

	unlock, err := h.locks.lock(ctx, req.OrgId, nil, true)
	if err != nil {
		return nil, err
	}
	defer unlock()
	now := h.clock.Now()
	var (
		row       db.MapClinicalCodeRow
		reapplied int
	)
	actor := a.UserID()
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		if err := q.LockClinicalOrg(ctx, req.OrgId); err != nil {
			return err
		}
		if row, err = q.MapClinicalCode(ctx, db.MapClinicalCodeParams{
			OrgID: req.OrgId, Kind: kind, Code: key, Targets: targets, Now: now, MappedBy: &actor,
		}); err != nil {
			return err
		}
		if reapplied, err = reapply(ctx, q, req.OrgId, kind, key, targets, now); err != nil {
			return err
		}
		return audit.Record(ctx, q, req.OrgId, uuid.Nil, now)
	})
	if err != nil {
		return nil, err
	}
	view := codeView(db.GetClinicalCodeRow(row))
	counts, err := countPatients(ctx, db.New(h.pool), req.OrgId, a.SiteScope(), []codeView{view})
	if err != nil {
		return nil, err
	}
	u := view.toAPI(counts[mappingKey{kind, key}])
	return api.MapUnmappedCode200JSONResponse{
		Kind: u.Kind, Code: u.Code, Text: u.Text, System: u.System, Occurrences: u.Occurrences,
		FirstSeenAt: u.FirstSeenAt, LastSeenAt: u.LastSeenAt, Status: api.MappedCodeStatus(u.Status),
		Allergens: u.Allergens, Diets: u.Diets, MappedAt: u.MappedAt, MappedBy: u.MappedBy,
		PatientsAffected: u.PatientsAffected, ReappliedTo: reapplied,
	}, nil
}

// reapply updates the allergies or diet orders of the in-house patients carrying the code.
func reapply(ctx context.Context, q *db.Queries, orgID uuid.UUID, kind, key string, targets []string, now time.Time) (int, error) {
	n := 0
	if kind == kindAllergen {
		rows, err := q.InHousePatientsWithAllergyKey(ctx, db.InHousePatientsWithAllergyKeyParams{OrgID: orgID, Key: key})
		if err != nil {
			return 0, err
		}
		for _, r := range rows {
			list, err := decodeAllergies(r.Allergies)
			if err != nil { // never rewrite a list that could not be read
				return 0, fmt.Errorf("patient %s: %w", r.ID, err)
			}
			changed := false
			for i := range list {
				if d := &list[i]; d.Key == key && remappable(d.Status, d.MappedBy) {
					before := *d
					applyAllergyMapping(d, targets)
					changed = changed || !sameAllergy(before, *d)
				}
			}
			if !changed {
				continue
			}
			raw, _ := json.Marshal(list)
			if err := q.SetPatientAllergies(ctx, db.SetPatientAllergiesParams{OrgID: orgID, ID: r.ID, Allergies: raw, Now: now}); err != nil {
				return 0, err
			}
			n++
		}
		return n, nil
	}
	rows, err := q.InHousePatientsWithDietKey(ctx, db.InHousePatientsWithDietKeyParams{OrgID: orgID, Key: key})
	if err != nil {
		return 0, err
	}
	for _, r := range rows {
		orders, err := decodeDietOrders(r.DietOrders)
		if err != nil {
			return 0, fmt.Errorf("patient %s: %w", r.ID, err)
		}
		changed := false
		for i := range orders {
			for j := range orders[i].Codes {
				if d := &orders[i].Codes[j]; d.Key == key && remappable(d.Status, d.MappedBy) {
					before := *d
					applyDietMapping(d, targets)
					changed = changed || !sameDietCode(before, *d)
				}
			}
		}
		if !changed {
			continue
		}
		raw, _ := json.Marshal(orders)
		if err := q.SetPatientDietOrders(ctx, db.SetPatientDietOrdersParams{OrgID: orgID, ID: r.ID, DietOrders: raw, Now: now}); err != nil {
			return 0, err
		}
		n++
	}
	return n, nil
}

func sameAllergy(a, b allergyDoc) bool {
	return a.Status == b.Status && a.MappedBy == b.MappedBy && slices.Equal(a.Allergens, b.Allergens)
}

func sameDietCode(a, b dietCodeDoc) bool {
	return a.Status == b.Status && a.MappedBy == b.MappedBy && slices.Equal(a.Diets, b.Diets)
}
