package inventory

import (
	"encoding/json"
	"maps"

	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/internal/memo"
	"github.com/sous-app/sous/internal/quantity"
)

// columnMaxKey bounds the bytes of a column kept decoded: an organization's items repeat a few
// short shapes (the nine allergens stated free, a case of 12); a longer column is decoded each
// time, so the memos hold at most a few megabytes.
const columnMaxKey = 1024

// columnMemo keeps an item column's JSON decoded, by the column's bytes. Decoding the units,
// allergens and grams-per columns was most of reading an item, and a recipe analysis reads
// every item of its tree on every request. The key is the bytes themselves, so an edited item
// is a new key and nothing kept is ever stale. Callers get their own copy (clone): an Item's
// maps and slices are the caller's to change.
type columnMemo[T any] struct {
	m     memo.Map[string, T]
	clone func(T) T
}

func newColumnMemo[T any](clone func(T) T) *columnMemo[T] {
	return &columnMemo[T]{clone: clone}
}

// decode is json.Unmarshal of raw into a new T, from the memo when these bytes were decoded
// before. A column that fails to decode is never kept.
func (c *columnMemo[T]) decode(raw []byte) (T, error) {
	if v, ok := c.m.Get(string(raw)); ok {
		return c.clone(v), nil
	}
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, err
	}
	if len(raw) <= columnMaxKey {
		c.m.Put(string(raw), v)
	}
	return c.clone(v), nil
}

var (
	// The units are copied into quantity's type by declaredUnits, so they need no clone of
	// their own (a decimal is never changed in place).
	unitsMemo = newColumnMemo(func(u []storedUnit) []storedUnit { return u })
	// allergensMemo and gramsPerMemo answer a non-nil map for a JSON null, as decoding into a
	// made map did.
	allergensMemo = newColumnMemo(func(m map[string]string) map[string]string {
		if m == nil {
			return map[string]string{}
		}
		return maps.Clone(m)
	})
	gramsPerMemo = newColumnMemo(func(m map[string]decimal.Decimal) map[string]decimal.Decimal {
		if m == nil {
			return map[string]decimal.Decimal{}
		}
		return maps.Clone(m)
	})
)

// declaredUnits are the units column's units as quantity's, in a new slice (nil for none).
func declaredUnits(units []storedUnit) []quantity.NamedUnit {
	if len(units) == 0 {
		return nil
	}
	out := make([]quantity.NamedUnit, 0, len(units))
	for _, u := range units {
		out = append(out, quantity.NamedUnit{Name: u.Name, Factor: u.Factor})
	}
	return out
}
