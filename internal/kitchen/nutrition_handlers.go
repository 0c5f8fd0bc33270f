package kitchen

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/attachment"
	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/nutrition"
	"github.com/sous-app/sous/internal/quantity"
	"github.com/sous-app/sous/internal/reqinfo"
)

// GetRecipeNutrition analyses a recipe (at a version) now, from its ingredients' current foods:
// per portion, per 100 g and the label as JSON, or the printable panel when Accept prefers PDF.
func (h *Handlers) GetRecipeNutrition(ctx context.Context, req api.GetRecipeNutritionRequestObject) (api.GetRecipeNutritionResponseObject, error) {
	a, err := authz.MustFromContext(ctx)
	if err != nil {
		return nil, err
	}
	version := 0
	if req.Params.Version != nil {
		version = *req.Params.Version
	}
	// The recipe, its sub-recipes, items and foods in one round trip.
	t, err := loadNutritionTree(ctx, db.New(h.pool), a.OrgID, req.Id, version)
	if err != nil {
		return nil, err
	}
	an, err := t.analyse(req.Id)
	if err != nil {
		return nil, analysisError(err)
	}
	label := t.label(req.Id, an)
	if wantsPDF(reqinfo.Accept(ctx)) {
		var buf bytes.Buffer
		if err := nutrition.RenderLabelPDF(&buf, label); err != nil {
			return nil, labelError(err)
		}
		// Dated the day it was analysed (UTC): the panel is the recipe's foods as of now.
		now := h.clock.Now().UTC()
		disposition := attachment.Disposition("nutrition facts "+label.Name, now, now, "pdf")
		return api.GetRecipeNutrition200ApplicationpdfResponse{Body: &buf, ContentLength: int64(buf.Len()),
			Headers: api.GetRecipeNutrition200ResponseHeaders{ContentDisposition: &disposition}}, nil
	}
	v := t.Recipes[req.Id]
	return recipeNutritionResponse{RecipeID: req.Id, Version: v.Version, Name: v.Body.Name, Portion: amountToAPI(v.Body.Portion),
		Portions: quantity.Format(portions(v.Body)), YieldGrams: an.Grams, PortionGrams: an.PortionGrams,
		PerPortion: an.PerPortion, Per100g: an.Per100g, Label: label}, nil
}

// recipeNutritionResponse is the body of GET /recipes/{id}/nutrition as api.RecipeNutrition
// encodes it, written once from the analysis: the nutrition package's JSON is the contract's
// (see convert), and converting the analysis into the API's types only to encode them again was
// a tenth of the request's CPU with the allocations it made.
// TestRecipeNutritionResponseIsTheGeneratedEncoding holds the two equal.
type recipeNutritionResponse struct {
	Label        nutrition.Label `json:"label"`
	Name         string          `json:"name"`
	Per100g      nutrition.Set   `json:"per100g"`
	PerPortion   nutrition.Set   `json:"perPortion"`
	Portion      api.Amount      `json:"portion"`
	PortionGrams nutrition.Value `json:"portionGrams"`
	Portions     string          `json:"portions"`
	RecipeID     uuid.UUID       `json:"recipeId"`
	Version      int             `json:"version"`
	YieldGrams   nutrition.Value `json:"yieldGrams"`
}

func (r recipeNutritionResponse) VisitGetRecipeNutritionResponse(w http.ResponseWriter) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(append(b, '\n')) // as json.Encoder ends a value
	return err
}

// convert writes one of the nutrition package's values as its API type: the package's JSON is
// the contract's (values as decimal strings with their state), so one encoding serves both.
func convert(from, to any) error {
	raw, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, to)
}

// analysisError is a recipe the analysis cannot walk: sub-recipes nested deeper than the
// analysis follows (writes refuse cycles, so only depth reaches here).
func analysisError(err error) error {
	var de *nutrition.DepthError
	if errors.As(err, &de) {
		return apierr.Conflict("The recipe's sub-recipes nest deeper than nutrition analysis follows (" + strconv.Itoa(nutrition.MaxDepth) + " levels): " + strings.Join(de.Path, " → "))
	}
	return err
}

// labelError is the 409 of a label that cannot be printed, naming what it lacks.
func labelError(err error) error {
	var ie *nutrition.IncompleteLabelError
	if errors.As(err, &ie) {
		msg := ie.Error()
		if len(msg) > 0 {
			msg = strings.ToUpper(msg[:1]) + msg[1:]
		}
		return apierr.Conflict(msg).WithCode(apierr.CodeLabelIncomplete)
	}
	return err
}

// nutritionToAPI is the recipe read's nutrition: what the recipe states, as written, and every
// nutrient per portion computed now (stated ones overriding). The analysis is left out when
// the recipe cannot be analysed (sub-recipes nested too deep); the read itself still answers.
func nutritionToAPI(t Tree, id uuid.UUID) (*api.Nutrition, error) {
	b := t.Recipes[id].Body
	out := &api.Nutrition{}
	if n := b.Nutrition; n != nil {
		qty := func(d *decimal.Decimal) *api.Quantity {
			if d == nil {
				return nil
			}
			s := api.Quantity(quantity.Format(*d))
			return &s
		}
		out.SodiumMg, out.CarbohydrateChoices, out.FluidMl = qty(n.SodiumMg), qty(n.CarbohydrateChoices), qty(n.FluidMl)
		if len(n.Stated) > 0 {
			flat := map[string]string{}
			for k, v := range n.Stated {
				flat[k] = quantity.Format(v)
			}
			if err := convert(flat, out); err != nil {
				return nil, err
			}
			out.SodiumMg, out.CarbohydrateChoices, out.FluidMl = qty(n.SodiumMg), qty(n.CarbohydrateChoices), qty(n.FluidMl)
		}
	}
	if t.Foods == nil {
		return out, nil
	}
	an, err := t.analyse(id)
	if err != nil {
		var de *nutrition.DepthError
		if errors.As(err, &de) {
			return out, nil
		}
		return nil, err
	}
	var per api.NutrientValues
	if err := convert(an.PerPortion, &per); err != nil {
		return nil, err
	}
	out.PerPortion = &per
	return out, nil
}

// statedInput reads the nutrients a recipe body states beyond sodium (and the two stated-only
// fields), by key.
func statedInput(n *api.NutritionInput) map[string]string {
	all := map[string]string{}
	raw, _ := json.Marshal(n)
	_ = json.Unmarshal(raw, &all)
	delete(all, "sodiumMg")
	delete(all, "carbohydrateChoices")
	delete(all, "fluidMl")
	if len(all) == 0 {
		return nil
	}
	return all
}

// Media types the nutrition analysis answers in.
const (
	mediaJSON = "application/json"
	mediaPDF  = "application/pdf"
)

// wantsPDF reports whether Accept ranks the PDF panel above JSON (RFC 9110 §12.5.1: each
// type's quality is that of the most specific range matching it). JSON wins a tie and answers
// when there is no Accept; the negotiation middleware has already answered 406 when Accept
// allows neither.
func wantsPDF(accept string) bool {
	if accept == "" {
		return false
	}
	quality := func(offered string) float64 {
		best, bestSpecific := 0.0, -1
		for _, part := range strings.Split(accept, ",") {
			rng, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			specific := -1
			switch {
			case rng == offered:
				specific = 2
			case strings.HasSuffix(rng, "/*") && strings.HasPrefix(offered, strings.TrimSuffix(rng, "*")):
				specific = 1
			case rng == "*/*":
				specific = 0
			}
			if specific <= bestSpecific {
				continue
			}
			q := 1.0
			if v, ok := params["q"]; ok {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					q = f
				}
			}
			best, bestSpecific = q, specific
		}
		return best
	}
	return quality(mediaPDF) > quality(mediaJSON)
}
