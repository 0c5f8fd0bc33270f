package kitchen

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/audit"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/paging"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/quantity"
	"github.com/sous-app/sous/internal/realtime"
)

func readRecipeRequest(b *api.RecipeRequest) recipeInput {
	in := recipeInput{Name: b.Name, Category: b.Category, MinBatch: (*string)(b.MinBatch), MaxBatch: (*string)(b.MaxBatch),
		ShelfLifeHours: b.ShelfLifeHours, Station: b.Station}
	in.Yield.Quantity, in.Yield.Unit = string(b.Yield.Quantity), string(b.Yield.Unit)
	in.Portion.Quantity, in.Portion.Unit = string(b.Portion.Quantity), string(b.Portion.Unit)
	if l := b.CriticalLimits; l != nil {
		in.Limits.Cook, in.Limits.Hot, in.Limits.Cold = (*string)(l.CookMinTempF), (*string)(l.HoldHotMinTempF), (*string)(l.HoldColdMaxTempF)
	}
	if b.Steps != nil {
		in.Steps = *b.Steps
	}
	if b.MayContain != nil {
		for _, a := range *b.MayContain {
			in.MayContain = append(in.MayContain, string(a))
		}
	}
	if n := b.Nutrition; n != nil {
		in.Nutrition.Sodium, in.Nutrition.Carbs, in.Nutrition.Fluid = (*string)(n.SodiumMg), (*string)(n.CarbohydrateChoices), (*string)(n.FluidMl)
		in.Nutrition.Stated = statedInput(n)
	}
	in.IDDSILevel = b.IddsiLevel
	in.YieldGrams = (*string)(b.YieldGrams)
	for _, l := range b.Ingredients {
		in.Ingredients = append(in.Ingredients, ingredientInput{ItemID: l.ItemId, RecipeID: l.RecipeId, Quantity: string(l.Quantity),
			Unit: string(l.Unit), Trim: (*string)(l.TrimYieldPercent), Note: l.Note})
	}
	return in
}

func (h *Handlers) CreateRecipe(ctx context.Context, req api.CreateRecipeRequestObject) (api.CreateRecipeResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var out api.Recipe
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		body, err := buildBody(ctx, q, a.OrgID, uuid.Nil, readRecipeRequest(req.Body))
		if err != nil {
			return err
		}
		id := uuid.Must(uuid.NewV7())
		if _, err := q.CreateRecipe(ctx, db.CreateRecipeParams{ID: id, OrgID: a.OrgID, Name: body.Name, Category: body.Category, Now: now}); err != nil {
			return err
		}
		if err := insertVersion(ctx, q, a, id, 1, body, now); err != nil {
			return err
		}
		if out, err = readRecipe(ctx, q, a.OrgID, id, 0, uuid.Nil); err != nil {
			return err
		}
		return audit.Record(ctx, q, a.OrgID, id, now)
	})
	if err != nil {
		return nil, err
	}
	return api.CreateRecipe201JSONResponse{Body: out}, nil
}

func insertVersion(ctx context.Context, q *db.Queries, a authz.Access, id uuid.UUID, version int, body Body, now timeT) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	var by *uuid.UUID
	if u := a.UserID(); u != uuid.Nil {
		by = &u
	}
	subs := body.SubRecipeIDs()
	if subs == nil {
		subs = []uuid.UUID{}
	}
	return q.InsertRecipeVersion(ctx, db.InsertRecipeVersionParams{OrgID: a.OrgID, RecipeID: id, Version: int32(version), Body: raw,
		SubRecipeIds: subs, CreatedBy: by, Now: now})
}

func (h *Handlers) UpdateRecipe(ctx context.Context, req api.UpdateRecipeRequestObject) (api.UpdateRecipeResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var out api.Recipe
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		cur, err := q.GetRecipeForUpdate(ctx, db.GetRecipeForUpdateParams{OrgID: a.OrgID, ID: req.Id})
		if pg.IsNoRows(err) {
			return errRecipeNotFound
		}
		if err != nil {
			return err
		}
		if cur.ArchivedAt != nil {
			return apierr.Conflict(fmt.Sprintf("Recipe %q is archived and cannot change", cur.Name))
		}
		body, err := buildBody(ctx, q, a.OrgID, req.Id, readRecipeRequest(req.Body))
		if err != nil {
			return err
		}
		next := int(cur.CurrentVersion) + 1
		if err := insertVersion(ctx, q, a, req.Id, next, body, now); err != nil {
			return err
		}
		if err := q.UpdateRecipeHead(ctx, db.UpdateRecipeHeadParams{OrgID: a.OrgID, ID: req.Id, Name: body.Name, Category: body.Category, Version: int32(next), Now: now}); err != nil {
			return err
		}
		if out, err = readRecipe(ctx, q, a.OrgID, req.Id, 0, uuid.Nil); err != nil {
			return err
		}
		// Menu boards show recipe names and allergens, at any site.
		if err := realtime.NotifyOrg(ctx, tx, a.OrgID); err != nil {
			return err
		}
		return audit.Record(ctx, q, a.OrgID, req.Id, now)
	})
	if err != nil {
		return nil, err
	}
	return api.UpdateRecipe200JSONResponse(out), nil
}

func (h *Handlers) ArchiveRecipe(ctx context.Context, req api.ArchiveRecipeRequestObject) (api.ArchiveRecipeResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	now := h.clock.Now()
	var out api.Recipe
	err = pg.InTx(ctx, h.pool, func(tx pgx.Tx) error {
		q := db.New(tx)
		if _, err := q.ArchiveRecipe(ctx, db.ArchiveRecipeParams{OrgID: a.OrgID, ID: req.Id, Now: now}); pg.IsNoRows(err) {
			return errRecipeNotFound
		} else if err != nil {
			return err
		}
		if out, err = readRecipe(ctx, q, a.OrgID, req.Id, 0, uuid.Nil); err != nil {
			return err
		}
		// Menu boards show recipe names and allergens, at any site.
		if err := realtime.NotifyOrg(ctx, tx, a.OrgID); err != nil {
			return err
		}
		return audit.Record(ctx, q, a.OrgID, req.Id, now)
	})
	if err != nil {
		return nil, err
	}
	return api.ArchiveRecipe200JSONResponse(out), nil
}

func (h *Handlers) GetRecipe(ctx context.Context, req api.GetRecipeRequestObject) (api.GetRecipeResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	out, err := readRecipe(ctx, db.New(h.pool), a.OrgID, req.Id, 0, uuid.Nil)
	if err != nil {
		return nil, err
	}
	return api.GetRecipe200JSONResponse(out), nil
}

func (h *Handlers) GetRecipeVersion(ctx context.Context, req api.GetRecipeVersionRequestObject) (api.GetRecipeVersionResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	out, err := readRecipe(ctx, db.New(h.pool), a.OrgID, req.Id, req.Version, uuid.Nil)
	if err != nil {
		return nil, err
	}
	return api.GetRecipeVersion200JSONResponse(out), nil
}

func (h *Handlers) ListRecipeVersions(ctx context.Context, req api.ListRecipeVersionsRequestObject) (api.ListRecipeVersionsResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := db.New(h.pool).ListRecipeVersions(ctx, db.ListRecipeVersionsParams{OrgID: a.OrgID, RecipeID: req.Id})
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, errRecipeNotFound
	}
	out := make(api.ListRecipeVersions200JSONResponse, 0, len(rows))
	for _, r := range rows {
		name := ""
		if s, ok := r.Name.(string); ok {
			name = s
		}
		out = append(out, api.RecipeVersionSummary{Version: int(r.Version), Name: name, CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt})
	}
	return out, nil
}

type recipeCursor struct {
	Name string    `json:"n"`
	ID   uuid.UUID `json:"i"`
}

func (h *Handlers) ListRecipes(ctx context.Context, req api.ListRecipesRequestObject) (api.ListRecipesResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	p := req.Params
	limit := paging.Limit(p.Limit)
	params := db.ListRecipesParams{OrgID: a.OrgID, Q: nonBlank(p.Q), Category: nonBlank(p.Category), Archived: p.Archived, MaxRows: paging.Fetch(limit)}
	if p.Cursor != nil {
		var c recipeCursor
		if err := paging.DecodeCursor(*p.Cursor, &c, func() bool { return c.ID != uuid.Nil }); err != nil {
			return nil, err
		}
		params.CursorName, params.CursorID = &c.Name, &c.ID
	}
	q := db.New(h.pool)
	ids, err := q.ListRecipes(ctx, params)
	if err != nil {
		return nil, err
	}
	out := api.ListRecipes200JSONResponse{Body: make([]api.Recipe, 0, len(ids))}
	ids, more := paging.Trim(ids, limit)
	// The page's recipes and everything they use, read once.
	if len(ids) > 0 {
		heads, err := q.GetRecipes(ctx, db.GetRecipesParams{OrgID: a.OrgID, Ids: ids})
		if err != nil {
			return nil, err
		}
		byID := make(map[uuid.UUID]db.GetRecipesRow, len(heads))
		for _, h := range heads {
			byID[h.ID] = h
		}
		forest, err := loadForest(ctx, q, a.OrgID, ids, nil)
		if err != nil {
			return nil, err
		}
		if err := forest.loadFoods(ctx, q, a.OrgID); err != nil {
			return nil, err
		}
		for _, id := range ids {
			r, err := recipeToAPI(forest, id, byID[id], uuid.Nil)
			if err != nil {
				return nil, err
			}
			out.Body = append(out.Body, r)
		}
	}
	if more {
		last := out.Body[len(out.Body)-1]
		out.Headers.Link = paging.Next(ctx, recipeCursor{Name: strings.ToLower(last.Name), ID: last.Id})
	}
	return out, nil
}

// readRecipe reads a recipe at version (0: current) with everything derived, costed at site
// (uuid.Nil: across sites).
func readRecipe(ctx context.Context, q *db.Queries, orgID, id uuid.UUID, version int, site uuid.UUID) (api.Recipe, error) {
	rows, err := q.GetRecipes(ctx, db.GetRecipesParams{OrgID: orgID, Ids: []uuid.UUID{id}})
	if err != nil {
		return api.Recipe{}, err
	}
	if len(rows) == 0 {
		return api.Recipe{}, errRecipeNotFound
	}
	head := rows[0]
	if version > int(head.CurrentVersion) {
		return api.Recipe{}, apierr.NotFound("Recipe version")
	}
	t, err := loadTree(ctx, q, orgID, id, version, nil)
	if err != nil {
		return api.Recipe{}, err
	}
	if err := t.loadFoods(ctx, q, orgID); err != nil {
		return api.Recipe{}, err
	}
	return recipeToAPI(t, id, head, site)
}

// recipeToAPI writes the recipe id of the tree (the version loaded there) with everything derived.
func recipeToAPI(t Tree, id uuid.UUID, head db.GetRecipesRow, site uuid.UUID) (api.Recipe, error) {
	v := t.Recipes[id]
	b := v.Body
	out := api.Recipe{
		Id: id, Name: b.Name, Category: b.Category, Version: v.Version, Archived: head.ArchivedAt != nil,
		Yield: amountToAPI(b.Yield), Portion: amountToAPI(b.Portion), ShelfLifeHours: b.ShelfLifeHours, Station: b.Station,
		CriticalLimits: limitsToAPI(b.CriticalLimits), Steps: b.Steps, Ingredients: make([]api.RecipeIngredient, 0, len(b.Ingredients)),
		MayContain: []api.Allergen{}, Allergens: api.RecipeAllergens{}, UncostedItems: []api.UncostedItem{},
		CreatedAt: head.CreatedAt, UpdatedAt: head.UpdatedAt,
	}
	if out.Steps == nil {
		out.Steps = []string{}
	}
	if b.MinBatch != nil {
		s := api.Quantity(quantity.Format(*b.MinBatch))
		out.MinBatch = &s
	}
	out.IddsiLevel = b.IDDSILevel
	if b.Nutrition != nil || t.Foods != nil {
		n, err := nutritionToAPI(t, id)
		if err != nil {
			return api.Recipe{}, err
		}
		out.Nutrition = n
	}
	if b.YieldGrams != nil {
		s := api.Quantity(quantity.Format(*b.YieldGrams))
		out.YieldGrams = &s
	}
	if b.MaxBatch != nil {
		s := api.Quantity(quantity.Format(*b.MaxBatch))
		out.MaxBatch = &s
	}
	for _, in := range b.Ingredients {
		l := api.RecipeIngredient{ItemId: in.ItemID, RecipeId: in.RecipeID, Quantity: api.Quantity(quantity.Format(in.Quantity)), Unit: in.Unit}
		if in.Note != "" {
			n := in.Note
			l.Note = &n
		}
		if in.TrimYieldPercent != nil {
			s := api.Quantity(quantity.Format(*in.TrimYieldPercent))
			l.TrimYieldPercent = &s
		}
		if in.ItemID != nil {
			l.Name = t.Items[*in.ItemID].Name
		} else {
			l.Name = t.Recipes[*in.RecipeID].Body.Name
		}
		out.Ingredients = append(out.Ingredients, l)
	}
	for _, m := range t.MayContain(id) {
		out.MayContain = append(out.MayContain, api.Allergen(m))
	}
	for k, s := range t.RollUpAllergens(id) {
		out.Allergens[k] = api.AllergenPresence(s)
	}
	c, err := t.CostOf(id, site)
	if err != nil {
		return api.Recipe{}, err
	}
	out.CostCents, out.PortionCostCents, out.CostComplete = c.YieldCents, c.PortionCents, len(c.Missing) == 0
	for _, m := range c.Missing {
		out.UncostedItems = append(out.UncostedItems, api.UncostedItem{ItemId: m, Name: t.Items[m].Name})
	}
	return out, nil
}

func amountToAPI(a Amount) api.Amount {
	return api.Amount{Quantity: api.Quantity(quantity.Format(a.Quantity)), Unit: a.Unit}
}

func limitsToAPI(l Limits) api.CriticalLimits {
	out := api.CriticalLimits{}
	if l.CookMinTempF != nil {
		s := api.TemperatureF(quantity.Format(*l.CookMinTempF))
		out.CookMinTempF = &s
	}
	if l.HoldHotMinTempF != nil {
		s := api.TemperatureF(quantity.Format(*l.HoldHotMinTempF))
		out.HoldHotMinTempF = &s
	}
	if l.HoldColdMaxTempF != nil {
		s := api.TemperatureF(quantity.Format(*l.HoldColdMaxTempF))
		out.HoldColdMaxTempF = &s
	}
	return out
}

func nonBlank(s *string) *string {
	if s == nil || strings.TrimSpace(*s) == "" {
		return nil
	}
	t := strings.TrimSpace(*s)
	return &t
}
