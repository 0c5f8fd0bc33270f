package kitchen

import (
	"context"
	"strings"
	"sync/atomic"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/quantity"
)

// DietView is one diet × texture of the menu's nutrient summary and the recipes it may eat.
type DietView struct {
	Diet    string
	Texture *int
	Allowed map[uuid.UUID]bool
}

// DietHook says which of a menu's recipes each diet may eat. The diets' rules are the tray
// line's, which reads the kitchen; the kitchen asks through this hook rather than importing it.
type DietHook interface {
	MenuDiets(ctx context.Context, q *db.Queries, orgID uuid.UUID, facts map[uuid.UUID]RecipeFacts) ([]DietView, error)
}

var dietHook atomic.Pointer[DietHook]

// SetDietHook installs the hook (once, when the server is assembled). Without one the summary
// lists no diets.
func SetDietHook(h DietHook) { dietHook.Store(&h) }

// menuDayPart is one day part of the summary.
type menuDayPart struct {
	DayPart string         `json:"dayPart"`
	Items   []menuItemNutr `json:"items"`
	Totals  Totals         `json:"totals"`
}

type menuItemNutr struct {
	RecipeID         uuid.UUID `json:"recipeId"`
	RecipeName       string    `json:"recipeName"`
	PortionsPerCover string    `json:"portionsPerCover"`
	Nutrients        Totals    `json:"nutrients"`
}

type dietDayPart struct {
	DayPart   string      `json:"dayPart"`
	RecipeIDs []uuid.UUID `json:"recipeIds"`
	Totals    Totals      `json:"totals"`
}

type dietNutr struct {
	Diet     string        `json:"diet"`
	Texture  *int          `json:"texture,omitempty"`
	DayParts []dietDayPart `json:"dayParts"`
	Day      Totals        `json:"day"`
}

// GetEffectiveMenuNutrition is the daily nutrient summary of a site's effective menu: one
// portion of every item, summed per day part (in the site's order) and for the day, and per
// diet × texture over the items it may eat. A recipe on the menu twice in a day part counts once,
// as the tray line serves it once.
func (h *Handlers) GetEffectiveMenuNutrition(ctx context.Context, req api.GetEffectiveMenuNutritionRequestObject) (api.GetEffectiveMenuNutritionResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	q := db.New(h.pool)
	site, err := loadSite(ctx, q, a, req.Params.SiteId)
	if err != nil {
		return nil, err
	}
	e, err := effectiveMenu(ctx, q, a.OrgID, site.ID, pgDate(req.Params.Date).Time, "")
	if err != nil {
		return nil, err
	}
	var ids []uuid.UUID
	for _, it := range e.Items {
		if !contains(ids, it.RecipeID) {
			ids = append(ids, it.RecipeID)
		}
	}
	facts, err := ReadRecipeFacts(ctx, q, a.OrgID, ids)
	if err != nil {
		return nil, err
	}
	var views []DietView
	if hp := dietHook.Load(); hp != nil {
		if views, err = (*hp).MenuDiets(ctx, q, a.OrgID, facts); err != nil {
			return nil, err
		}
	}
	// Day parts in the site's order; a day part the site no longer has comes after, as named.
	var order []string
	for _, p := range site.DayParts {
		order = append(order, p.Name)
	}
	for _, it := range e.Items {
		if _, ok := site.dayPart(it.DayPart); !ok && !containsString(order, it.DayPart) {
			order = append(order, it.DayPart)
		}
	}
	out := struct {
		SiteID   uuid.UUID     `json:"siteId"`
		Date     string        `json:"date"`
		MenuID   *uuid.UUID    `json:"menuId,omitempty"`
		Source   string        `json:"source"`
		Week     *int          `json:"week,omitempty"`
		DayParts []menuDayPart `json:"dayParts"`
		Day      Totals        `json:"day"`
		Diets    []dietNutr    `json:"diets"`
	}{SiteID: site.ID, Date: req.Params.Date.Format("2006-01-02"), MenuID: e.MenuID, Source: e.Source, DayParts: []menuDayPart{}, Day: NoTotals(), Diets: []dietNutr{}}
	if e.Week > 0 {
		w := e.Week
		out.Week = &w
	}
	for _, v := range views {
		out.Diets = append(out.Diets, dietNutr{Diet: v.Diet, Texture: v.Texture, DayParts: []dietDayPart{}, Day: NoTotals()})
	}
	for _, name := range order {
		dp := menuDayPart{DayPart: name, Items: []menuItemNutr{}, Totals: NoTotals()}
		var seen []uuid.UUID
		for _, it := range e.Items {
			f, ok := facts[it.RecipeID]
			if !ok || !strings.EqualFold(it.DayPart, name) || contains(seen, it.RecipeID) {
				continue
			}
			seen = append(seen, it.RecipeID)
			p := PortionTotals(f)
			dp.Items = append(dp.Items, menuItemNutr{RecipeID: f.ID, RecipeName: f.Name, PortionsPerCover: quantity.Format(it.PortionsPerCover), Nutrients: p})
			dp.Totals = dp.Totals.Plus(p)
		}
		if len(dp.Items) == 0 {
			continue
		}
		out.DayParts = append(out.DayParts, dp)
		out.Day = out.Day.Plus(dp.Totals)
		for i, v := range views {
			dd := dietDayPart{DayPart: name, RecipeIDs: []uuid.UUID{}, Totals: NoTotals()}
			for _, it := range dp.Items {
				if v.Allowed[it.RecipeID] {
					dd.RecipeIDs = append(dd.RecipeIDs, it.RecipeID)
					dd.Totals = dd.Totals.Plus(it.Nutrients)
				}
			}
			out.Diets[i].DayParts = append(out.Diets[i].DayParts, dd)
			out.Diets[i].Day = out.Diets[i].Day.Plus(dd.Totals)
		}
	}
	var res api.EffectiveMenuNutrition
	if err := convert(out, &res); err != nil {
		return nil, err
	}
	return api.GetEffectiveMenuNutrition200JSONResponse(res), nil
}
