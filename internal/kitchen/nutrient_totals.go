package kitchen

import (
	"bytes"
	"encoding/json"

	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/internal/nutrition"
	"github.com/sous-app/sous/internal/quantity"
)

// FluidKey names fluid among the nutrient keys: menus and trays sum it beside the nutrients of
// the fixed set, from what recipes state (no food composition table gives a dish's fluid).
const FluidKey = "fluidMl"

// TotalKeys are the keys menus and trays sum: the fixed set in its order, then fluid.
var TotalKeys = func() []string {
	out := make([]string, 0, nutrition.Count+1)
	for _, n := range nutrition.Nutrients {
		out = append(out, n.Key())
	}
	return append(out, FluidKey)
}()

// Totals are summed nutrient values: the fixed set and fluid, each with its state. The zero
// value is not usable; start from NoTotals.
type Totals struct {
	Set   nutrition.Set
	Fluid nutrition.Value
}

// NoTotals is the empty sum: every value complete at zero.
func NoTotals() Totals {
	var t Totals
	for i := range t.Set {
		t.Set[i] = nutrition.Known(decimal.Zero)
	}
	t.Fluid = nutrition.Known(decimal.Zero)
	return t
}

// PortionTotals are one portion of a recipe: its computed nutrients and its stated fluid,
// unknown (not_analysed) when it states none.
func PortionTotals(f RecipeFacts) Totals {
	t := Totals{Set: f.Nutrients}
	if f.Nutrition != nil && f.Nutrition.FluidMl != nil {
		t.Fluid = nutrition.StatedValue(*f.Nutrition.FluidMl)
	} else {
		t.Fluid = nutrition.Unknown(nutrition.Missing{ID: f.ID.String(), Ingredient: f.Name, Reason: nutrition.NotAnalysed})
	}
	return t
}

// Plus sums two totals, unknowns carried forward.
func (t Totals) Plus(o Totals) Totals {
	for i := range t.Set {
		t.Set[i] = t.Set[i].Plus(o.Set[i])
	}
	t.Fluid = t.Fluid.Plus(o.Fluid)
	return t
}

// Get is the value of a key of TotalKeys; ok is false for any other key.
func (t Totals) Get(key string) (nutrition.Value, bool) {
	if key == FluidKey {
		return t.Fluid, true
	}
	n, ok := nutrition.ParseNutrient(key)
	if !ok {
		return nutrition.Value{}, false
	}
	return t.Set[n], true
}

// Compact are totals as stored and as the API writes them: by key, the amount as a decimal
// string and whether it is complete (the missing lists stay with the recipe's analysis).
type Compact map[string]CompactValue

// CompactValue is one compact total.
type CompactValue struct {
	Value    string `json:"value"`
	Complete bool   `json:"complete"`
}

// Compact writes the totals by key.
func (t Totals) Compact() Compact {
	out := make(Compact, len(TotalKeys))
	for _, k := range TotalKeys {
		v, _ := t.Get(k)
		out[k] = CompactValue{Value: quantity.Format(v.Amount), Complete: v.Complete}
	}
	return out
}

// Totals reads compact totals back; a key absent is unknown.
func (c Compact) Totals() Totals {
	t := NoTotals()
	for _, k := range TotalKeys {
		cv, ok := c[k]
		v := nutrition.Unknown()
		if ok {
			if d, err := decimal.NewFromString(cv.Value); err == nil {
				v.Amount, v.Complete = d, cv.Complete
			}
		}
		if k == FluidKey {
			t.Fluid = v
		} else if n, ok := nutrition.ParseNutrient(k); ok {
			t.Set[n] = v
		}
	}
	return t
}

// MarshalJSON writes the totals in the fixed key order.
func (t Totals) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range TotalKeys {
		if i > 0 {
			b.WriteByte(',')
		}
		v, _ := t.Get(k)
		raw, err := json.Marshal(CompactValue{Value: quantity.Format(v.Amount), Complete: v.Complete})
		if err != nil {
			return nil, err
		}
		b.WriteString(`"` + k + `":`)
		b.Write(raw)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
