package kitchen

import (
	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/internal/quantity"
)

// factorPlaces is how many decimal places a scale factor keeps.
const factorPlaces = 18

// Scaled is a recipe scaled to a need: every ingredient multiplied once by Factor, sub-recipes
// as their own sections scaled to the quantity of them actually needed.
type Scaled struct {
	RecipeID uuid.UUID
	Version  int
	Name     string
	// Requested is the need as asked, in the yield unit; Need what is made: raised to minBatch
	// when below it (RaisedToMin).
	Requested   decimal.Decimal
	Need        decimal.Decimal
	Unit        string // the yield unit
	RaisedToMin bool
	// Batches splits Need into the fewest equal batches within maxBatch; BatchQuantity is one.
	Batches       int
	BatchQuantity decimal.Decimal
	// Factor = Need / yield; BatchFactor = BatchQuantity / yield.
	Factor, BatchFactor decimal.Decimal
	Lines               []Line
}

// Line is one scaled ingredient, for the whole need (Quantity) and per batch (BatchQuantity).
type Line struct {
	ItemID, RecipeID *uuid.UUID
	Name             string
	Quantity         decimal.Decimal // edible portion, in Unit
	BatchQuantity    decimal.Decimal
	Unit             string
	TrimYieldPercent *decimal.Decimal
	// AsPurchased is Quantity / (trim yield / 100) for items, in Unit; BaseQuantity the same in
	// the item's base unit (BaseUnit).
	AsPurchased  decimal.Decimal
	BaseQuantity decimal.Decimal
	BaseUnit     string
	Note         string
	// Sub is the sub-recipe scaled to Quantity of it.
	Sub *Scaled
}

// Scale scales the tree's root recipe to need (any unit convertible to its yield unit). With
// batching, maxBatch splits the need into the fewest equal batches each within it and minBatch
// raises a smaller need to it; sub-recipes are scaled to what the parent needs, unbatched.
func Scale(t Tree, need Amount, batching bool) (Scaled, error) {
	return t.scale(t.Root, need, batching)
}

func (t Tree) scale(id uuid.UUID, need Amount, batching bool) (Scaled, error) {
	v := t.Recipes[id]
	b := v.Body
	q, err := toYield(b, need)
	if err != nil {
		return Scaled{}, err
	}
	s := Scaled{RecipeID: id, Version: v.Version, Name: b.Name, Requested: q, Need: q, Unit: b.Yield.Unit, Batches: 1}
	if batching && b.MinBatch != nil && q.LessThan(*b.MinBatch) && q.IsPositive() {
		s.Need, s.RaisedToMin = *b.MinBatch, true
	}
	s.BatchQuantity = s.Need
	if batching && b.MaxBatch != nil && b.MaxBatch.IsPositive() && s.Need.GreaterThan(*b.MaxBatch) {
		n := s.Need.Div(*b.MaxBatch).Ceil()
		s.Batches = int(n.IntPart())
		s.BatchQuantity = s.Need.DivRound(n, quantity.Scale)
	}
	s.Factor = s.Need.DivRound(b.Yield.Quantity, factorPlaces)
	s.BatchFactor = s.BatchQuantity.DivRound(b.Yield.Quantity, factorPlaces)
	for _, in := range b.Ingredients {
		l := Line{ItemID: in.ItemID, RecipeID: in.RecipeID, Unit: in.Unit, Note: in.Note, TrimYieldPercent: in.TrimYieldPercent}
		l.Quantity = in.Quantity.Mul(s.Factor).Round(quantity.Scale)
		l.BatchQuantity = in.Quantity.Mul(s.BatchFactor).Round(quantity.Scale)
		switch {
		case in.ItemID != nil:
			it := t.Items[*in.ItemID]
			l.Name = it.Name
			l.AsPurchased = asPurchased(Ingredient{Quantity: in.Quantity.Mul(s.Factor), TrimYieldPercent: in.TrimYieldPercent}).Round(quantity.Scale)
			base, err := it.Units.ToBase(l.AsPurchased, in.Unit)
			if err != nil {
				return Scaled{}, err
			}
			l.BaseQuantity, l.BaseUnit = base, it.Units.Base
		case in.RecipeID != nil:
			sub, err := t.scale(*in.RecipeID, Amount{in.Quantity.Mul(s.Factor), in.Unit}, false)
			if err != nil {
				return Scaled{}, err
			}
			l.Name, l.Sub = sub.Name, &sub
		}
		s.Lines = append(s.Lines, l)
	}
	return s, nil
}

// ItemNeeds sums the base quantities of every item of the scaled tree (sub-recipes included).
func (s Scaled) ItemNeeds(out map[uuid.UUID]decimal.Decimal) map[uuid.UUID]decimal.Decimal {
	if out == nil {
		out = map[uuid.UUID]decimal.Decimal{}
	}
	for _, l := range s.Lines {
		switch {
		case l.ItemID != nil:
			out[*l.ItemID] = out[*l.ItemID].Add(l.BaseQuantity)
		case l.Sub != nil:
			l.Sub.ItemNeeds(out)
		}
	}
	return out
}

// displayLadders are the units a cook reads, per measuring system, smallest first.
var displayLadders = [][]string{
	{"g", "kg"},
	{"oz", "lb"},
	{"ml", "l"},
	{"tsp", "tbsp", "cup", "qt", "gal"},
}

// Display writes a quantity for a cook: in the largest unit of the same family and measuring
// system that keeps it at least 1 (1,500 g → 1.5 kg; 0.0625 gal → 1 cup), rounded to 3
// significant digits. Units outside the ladders (each, declared units) keep their unit.
func Display(q decimal.Decimal, unit string) (decimal.Decimal, string) {
	for _, ladder := range displayLadders {
		in := false
		for _, u := range ladder {
			if u == unit {
				in = true
			}
		}
		if !in {
			continue
		}
		best, bestQ := ladder[0], q
		if c, err := quantity.Convert(q, unit, ladder[0]); err == nil {
			bestQ = c
		}
		for _, u := range ladder[1:] {
			c, err := quantity.Convert(q, unit, u)
			if err == nil && c.Abs().GreaterThanOrEqual(decimal.NewFromInt(1)) {
				best, bestQ = u, c
			}
		}
		return sig3(bestQ), best
	}
	return sig3(q), unit
}

// sig3 rounds to 3 significant digits, half-even.
func sig3(q decimal.Decimal) decimal.Decimal {
	if q.IsZero() {
		return q
	}
	digits := len(q.Abs().Truncate(0).String())
	if q.Abs().LessThan(decimal.NewFromInt(1)) {
		// 0.0625: the first significant digit is after the zeros that follow the point.
		digits = 0
		for x := q.Abs(); x.LessThan(decimal.NewFromInt(1)); x = x.Mul(decimal.NewFromInt(10)) {
			digits--
		}
		digits++
	}
	return q.RoundBank(int32(3 - digits))
}
