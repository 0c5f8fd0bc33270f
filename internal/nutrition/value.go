package nutrition

import (
	"bytes"
	"encoding/json"

	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/internal/quantity"
)

// Reason says why an ingredient's contribution to a nutrient is unknown.
type Reason string

const (
	// NoFood: the ingredient is linked to no food, so nothing is known of its nutrients.
	NoFood Reason = "no_food"
	// NoConversion: the ingredient's quantity cannot be turned into grams (see Line.Grams).
	NoConversion Reason = "no_conversion"
	// NotAnalysed: the food has no value for the nutrient (SR28 has no row for it, or no food
	// states added sugars).
	NotAnalysed Reason = "not_analysed"
)

// Source says where a value comes from: computed from the ingredients, or stated on the recipe
// (which overrides the computed one).
type Source string

const (
	Computed Source = "computed"
	Stated   Source = "stated"
)

// Missing names one ingredient whose contribution a value lacks, and why.
type Missing struct {
	// ID is the caller's id of the ingredient's item or food (Line.ID), when it gave one.
	ID string `json:"id,omitempty"`
	// Ingredient is the line's name.
	Ingredient string `json:"ingredient"`
	Reason     Reason `json:"reason"`
	// Via lists the sub-recipes the ingredient was reached through, outermost first; empty for
	// a line of the recipe itself.
	Via []string `json:"via,omitempty"`
}

func (m Missing) same(o Missing) bool {
	if m.ID != o.ID || m.Ingredient != o.Ingredient || m.Reason != o.Reason || len(m.Via) != len(o.Via) {
		return false
	}
	for i := range m.Via {
		if m.Via[i] != o.Via[i] {
			return false
		}
	}
	return true
}

// Value is one nutrient amount with its state. When Complete, Amount is the amount. When not,
// Amount is the sum of the contributions that are known (a lower bound, zero when none is) and
// Missing lists every ingredient whose contribution is unknown, with the reason: an incomplete
// value never stands for its amount, and a sum with an unknown part stays incomplete.
type Value struct {
	Amount   decimal.Decimal
	Complete bool
	Missing  []Missing
	Source   Source
}

// Known is a complete computed value.
func Known(d decimal.Decimal) Value { return Value{Amount: d, Complete: true, Source: Computed} }

// StatedValue is a complete value stated on a recipe.
func StatedValue(d decimal.Decimal) Value { return Value{Amount: d, Complete: true, Source: Stated} }

// Unknown is a value nothing is known of, lacking what ms name.
func Unknown(ms ...Missing) Value {
	return Value{Amount: decimal.Zero, Missing: appendMissing(nil, ms...), Source: Computed}
}

// zero is the empty sum: complete, nothing added yet.
func zero() Value { return Known(decimal.Zero) }

// Plus is the sum of two values: complete only if both are; the missing lists are united.
// The source is computed: a sum is never stated.
func (v Value) Plus(w Value) Value {
	out := Value{Amount: v.Amount, Complete: v.Complete && w.Complete, Source: Computed}
	// Adding zero (an unknown's amount, an empty sum) would allocate a new decimal for nothing.
	switch {
	case v.Amount.IsZero():
		out.Amount = w.Amount
	case !w.Amount.IsZero():
		out.Amount = v.Amount.Add(w.Amount)
	}
	if !out.Complete {
		// The lists are shared, never written in place (Via copies): capped, so that an append
		// to one copies it rather than writing into the other's spare capacity.
		switch {
		case len(w.Missing) == 0:
			out.Missing = v.Missing[:len(v.Missing):len(v.Missing)]
		case len(v.Missing) == 0:
			out.Missing = appendMissing(nil, w.Missing...)
		default:
			out.Missing = appendMissing(v.Missing[:len(v.Missing):len(v.Missing)], w.Missing...)
		}
	}
	return out
}

// Times multiplies the amount exactly by f, keeping the state.
func (v Value) Times(f decimal.Decimal) Value {
	v.Amount = v.Amount.Mul(f)
	return v
}

// Over divides the amount by d (not zero), keeping Scale places, and the state.
func (v Value) Over(d decimal.Decimal) Value {
	v.Amount = v.Amount.DivRound(d, Scale)
	return v
}

// Via returns the value with name prepended to every missing entry's Via: the sub-recipe name
// a parent sees its unknowns through.
func (v Value) Via(name string) Value {
	if len(v.Missing) == 0 {
		return v
	}
	ms := make([]Missing, len(v.Missing))
	for i, m := range v.Missing {
		m.Via = append([]string{name}, m.Via...)
		ms[i] = m
	}
	v.Missing = ms
	return v
}

func appendMissing(list []Missing, ms ...Missing) []Missing {
next:
	for _, m := range ms {
		for _, have := range list {
			if have.same(m) {
				continue next
			}
		}
		list = append(list, m)
	}
	return list
}

// valueJSON is a Value as the API writes it: {"value": "12.5", "complete": true, "source":
// "computed"}, with "missing" (never empty) when it is not complete.
type valueJSON struct {
	Value    string    `json:"value"`
	Complete bool      `json:"complete"`
	Source   Source    `json:"source"`
	Missing  []Missing `json:"missing,omitempty"`
}

// MarshalJSON writes the value with its amount as a decimal string.
func (v Value) MarshalJSON() ([]byte, error) {
	src := v.Source
	if src == "" {
		src = Computed
	}
	out := valueJSON{Value: quantity.Format(v.Amount), Complete: v.Complete, Source: src}
	if !v.Complete {
		out.Missing = v.Missing
		if out.Missing == nil {
			out.Missing = []Missing{}
		}
	}
	return json.Marshal(out)
}

// Set holds one value per nutrient, indexed by Nutrient.
type Set [Count]Value

// Get returns the value of one nutrient.
func (s *Set) Get(n Nutrient) Value { return s[n] }

// Complete reports whether every nutrient is complete.
func (s *Set) Complete() bool {
	for _, v := range s {
		if !v.Complete {
			return false
		}
	}
	return true
}

// Missing unites the missing lists of every nutrient, in nutrient order.
func (s *Set) Missing() []Missing {
	var out []Missing
	for _, v := range s {
		out = appendMissing(out, v.Missing...)
	}
	return out
}

func (s Set) plus(o *Set) Set {
	for i := range s {
		s[i] = s[i].Plus(o[i])
	}
	return s
}

func (s Set) times(f decimal.Decimal) Set {
	for i := range s {
		s[i] = s[i].Times(f)
	}
	return s
}

func (s Set) over(d decimal.Decimal) Set {
	for i := range s {
		s[i] = s[i].Over(d)
	}
	return s
}

func (s Set) via(name string) Set {
	for i := range s {
		s[i] = s[i].Via(name)
	}
	return s
}

func zeroSet() Set {
	var s Set
	for i := range s {
		s[i] = zero()
	}
	return s
}

func unknownSet(m Missing) Set {
	var s Set
	for i := range s {
		s[i] = Unknown(m)
	}
	return s
}

// MarshalJSON writes the set as one object keyed by the nutrients' names, in the fixed order.
func (s Set) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, v := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + Nutrient(i).Key() + `":`)
		vb, err := v.MarshalJSON()
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
