package trayline

import (
	"context"
	"sort"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/kitchen"
)

// MenuDiets tells the kitchen's menu nutrient summary which recipes each diet may eat: every
// diet with rules (NPO left out) and `regular`, each alone and with each IDDSI food texture below
// 7 (the diet × texture rows of a daily nutrient summary). Allowed is what the tray line's check
// allows for a patient on those diets with no allergy, nutrient limits aside (those judge a
// tray's sums, not a recipe). Installed with kitchen.SetDietHook.
type MenuDiets struct{}

var textures = []string{"iddsi_food_6", "iddsi_food_5", "iddsi_food_4", "iddsi_food_3"}

func (MenuDiets) MenuDiets(ctx context.Context, q *db.Queries, orgID uuid.UUID, facts map[uuid.UUID]kitchen.RecipeFacts) ([]kitchen.DietView, error) {
	rules, err := loadRules(ctx, q, orgID)
	if err != nil {
		return nil, err
	}
	// Without the stated per-meal limits: one item is not a meal.
	plain := make(map[string]Rules, len(rules))
	for d, r := range rules {
		r.Limits = Limits{}
		plain[d] = r
	}
	diets := []string{"regular"}
	for d, r := range rules {
		if d != "regular" && !r.NPO && d != "npo" {
			diets = append(diets, d)
		}
	}
	sort.Strings(diets[1:])
	var out []kitchen.DietView
	for _, d := range diets {
		for i, tex := range append([]string{""}, textures...) {
			p := Patient{Diets: []string{d}}
			if tex != "" {
				p.Diets = append(p.Diets, tex)
			}
			v := kitchen.DietView{Diet: d, Allowed: map[uuid.UUID]bool{}}
			if level, limited := Texture(p, plain); limited {
				if i > 0 && level != *builtInLevel(tex) {
					continue // the diet's own texture is stricter: the row would repeat another
				}
				v.Texture = &level
			}
			for id, f := range facts {
				if len(checkCoded(p, plain, f, Totals{})) == 0 {
					v.Allowed[id] = true
				}
			}
			out = append(out, v)
		}
	}
	return out, nil
}

func builtInLevel(code string) *int {
	l, _ := builtInTexture(code)
	return &l
}
