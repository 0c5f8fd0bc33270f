package trayline

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/quantity"
)

func rulesToAPI(diet string, r Rules, row *db.DietRule) api.DietRules {
	out := api.DietRules{Diet: api.Diet(diet), Npo: r.NPO, IddsiLevel: r.IDDSILevel, SubstituteRecipeId: r.SubstituteRecipeID,
		DefaultRecipeIds: r.DefaultRecipeIDs}
	if out.DefaultRecipeIds == nil {
		out.DefaultRecipeIds = []uuid.UUID{}
	}
	if r.AllowedCategories != nil {
		c := r.AllowedCategories
		out.AllowedCategories = &c
	}
	if r.AllowedRecipeIDs != nil {
		ids := r.AllowedRecipeIDs
		out.AllowedRecipeIds = &ids
	}
	q := func(d *decimal.Decimal) *api.Quantity {
		if d == nil {
			return nil
		}
		s := api.Quantity(quantity.Format(*d))
		return &s
	}
	out.Limits = api.DietLimitsOut{SodiumMg: q(r.Limits.SodiumMg), CarbohydrateChoices: q(r.Limits.CarbohydrateChoices), FluidMl: q(r.Limits.FluidMl)}
	if len(r.Limits.Nutrients) > 0 {
		// Stored and written alike (decimal strings by key); one JSON round trip makes the API type.
		var n api.DietNutrientLimits
		if raw, err := json.Marshal(r.Limits.Nutrients); err == nil && json.Unmarshal(raw, &n) == nil {
			out.Limits.Nutrients = &n
		}
	}
	if row != nil {
		at := row.UpdatedAt
		out.UpdatedAt = &at
	}
	return out
}

func (h *Handlers) GetDietRules(ctx context.Context, req api.GetDietRulesRequestObject) (api.GetDietRulesResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	row, err := db.New(h.pool).GetDietRules(ctx, db.GetDietRulesParams{OrgID: a.OrgID, Diet: string(req.Code)})
	if pg.IsNoRows(err) {
		return api.GetDietRules200JSONResponse(rulesToAPI(string(req.Code), Rules{}, nil)), nil
	}
	if err != nil {
		return nil, err
	}
	var r Rules
	if err := json.Unmarshal(row.Rules, &r); err != nil {
		return nil, err
	}
	return api.GetDietRules200JSONResponse(rulesToAPI(row.Diet, r, &row)), nil
}

func parseLimit(field string, s *string) (*decimal.Decimal, error) {
	if s == nil {
		return nil, nil
	}
	d, err := quantity.Parse(*s)
	if err != nil {
		return nil, apierr.InvalidField(field, fmt.Sprintf("must be a decimal number with at most %d decimal places", quantity.MaxPlaces))
	}
	return &d, nil
}

func (h *Handlers) SetDietRules(ctx context.Context, req api.SetDietRulesRequestObject) (api.SetDietRulesResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	b := req.Body
	r := Rules{IDDSILevel: b.IddsiLevel, SubstituteRecipeID: b.SubstituteRecipeId, DefaultRecipeIDs: []uuid.UUID{}}
	if b.Npo != nil {
		r.NPO = *b.Npo
	}
	if b.AllowedCategories != nil {
		r.AllowedCategories = []string{}
		for i, c := range *b.AllowedCategories {
			c = strings.TrimSpace(c)
			if c == "" {
				return nil, apierr.InvalidField(fmt.Sprintf("allowedCategories[%d]", i), "must not be blank")
			}
			r.AllowedCategories = append(r.AllowedCategories, c)
		}
	}
	if b.AllowedRecipeIds != nil {
		r.AllowedRecipeIDs = *b.AllowedRecipeIds
	}
	if b.DefaultRecipeIds != nil {
		r.DefaultRecipeIDs = *b.DefaultRecipeIds
	}
	if l := b.Limits; l != nil {
		if r.Limits.SodiumMg, err = parseLimit("limits.sodiumMg", l.SodiumMg); err != nil {
			return nil, err
		}
		if r.Limits.CarbohydrateChoices, err = parseLimit("limits.carbohydrateChoices", l.CarbohydrateChoices); err != nil {
			return nil, err
		}
		if r.Limits.FluidMl, err = parseLimit("limits.fluidMl", l.FluidMl); err != nil {
			return nil, err
		}
		if l.Nutrients != nil {
			if r.Limits.Nutrients, err = readNutrientLimits(l.Nutrients); err != nil {
				return nil, err
			}
		}
	}
	// Every recipe named must be the organization's.
	named := map[uuid.UUID]string{}
	for i, id := range r.AllowedRecipeIDs {
		named[id] = fmt.Sprintf("allowedRecipeIds[%d]", i)
	}
	for i, id := range r.DefaultRecipeIDs {
		named[id] = fmt.Sprintf("defaultRecipeIds[%d]", i)
	}
	if r.SubstituteRecipeID != nil {
		named[*r.SubstituteRecipeID] = "substituteRecipeId"
	}
	raw, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var row db.DietRule
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		if len(named) > 0 {
			ids := make([]uuid.UUID, 0, len(named))
			for id := range named {
				ids = append(ids, id)
			}
			heads, err := q.GetRecipes(ctx, db.GetRecipesParams{OrgID: a.OrgID, Ids: ids})
			if err != nil {
				return err
			}
			found := map[uuid.UUID]bool{}
			for _, h := range heads {
				found[h.ID] = true
			}
			for _, id := range ids {
				if !found[id] {
					return apierr.InvalidField(named[id], "is no recipe of the organization")
				}
			}
		}
		var by *uuid.UUID
		if u := a.UserID(); u != uuid.Nil {
			by = &u
		}
		if row, err = q.UpsertDietRules(ctx, db.UpsertDietRulesParams{OrgID: a.OrgID, Diet: string(req.Code), Rules: raw, UpdatedBy: by, UpdatedAt: now}); err != nil {
			return err
		}
		// A changed limit may end planned days' breaches or begin some: the queued days of the
		// diet's patients and every breached day are judged again under the new rules.
		judge, err := q.DaysToJudgeForDiet(ctx, db.DaysToJudgeForDietParams{OrgID: a.OrgID, Diet: string(req.Code)})
		if err != nil {
			return err
		}
		days := make([]dayKey, len(judge))
		for i, d := range judge {
			days[i] = dayKeyOf(d.PatientID, d.Date)
		}
		if err := lockDays(ctx, q, a.OrgID, days); err != nil {
			return err
		}
		if err := judgeDays(ctx, tx, now, a.OrgID, days); err != nil {
			return err
		}
		return audit.Record(ctx, q, a.OrgID, uuid.Nil, now)
	})
	if err != nil {
		return nil, err
	}
	return api.SetDietRules200JSONResponse(rulesToAPI(row.Diet, r, &row)), nil
}
