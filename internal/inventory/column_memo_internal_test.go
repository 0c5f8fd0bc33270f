package inventory

import (
	"fmt"
	"maps"
	"strings"
	"sync"
	"testing"

	"github.com/shopspring/decimal"
)

func TestColumnMemoAnswersWhatDecodingWould(t *testing.T) {
	m := newColumnMemo(maps.Clone[map[string]string])
	first, err := m.decode([]byte(`{"milk":"contains","eggs":"free"}`))
	if err != nil {
		t.Fatal(err)
	}
	first["milk"] = "changed by its caller"
	again, err := m.decode([]byte(`{"milk":"contains","eggs":"free"}`))
	if err != nil {
		t.Fatal(err)
	}
	if again["milk"] != "contains" || len(again) != 2 {
		t.Fatalf("a caller's change reached the memo: %v", again)
	}
	// An edit is other bytes, so another key: nothing kept answers for it.
	edited, err := m.decode([]byte(`{"milk":"free"}`))
	if err != nil {
		t.Fatal(err)
	}
	if edited["milk"] != "free" || len(edited) != 1 {
		t.Fatalf("edited column: %v", edited)
	}
	if _, err := m.decode([]byte(`{"milk":`)); err == nil {
		t.Fatal("a truncated column decoded")
	}
	if m.m.Len() != 2 {
		t.Fatalf("memo holds %d columns, want the 2 that decoded", m.m.Len())
	}
}

// A column longer than columnMaxKey is decoded every time, never kept (the memo's entries are
// bounded by internal/memo).
func TestColumnMemoKeepsOnlyShortColumns(t *testing.T) {
	m := newColumnMemo(func(v []storedUnit) []storedUnit { return v })
	long := []byte(`[{"name":"` + strings.Repeat("x", columnMaxKey) + `","factor":"12"}]`)
	for range 2 {
		u, err := m.decode(long)
		if err != nil {
			t.Fatal(err)
		}
		if len(u) != 1 || !u[0].Factor.Equal(decimal.NewFromInt(12)) {
			t.Fatalf("long column decoded as %v", u)
		}
	}
	if _, err := m.decode([]byte(`[{"name":"case","factor":"12"}]`)); err != nil {
		t.Fatal(err)
	}
	if m.m.Len() != 1 {
		t.Fatalf("memo holds %d columns, want the short one", m.m.Len())
	}
}

// Requests read items at once: the memo is shared by all of them.
func TestColumnMemoUnderParallelReads(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				raw := fmt.Appendf(nil, `{"each":"%d"}`, (g*500+i)%50+1)
				v, err := gramsPerMemo.decode(raw)
				if err != nil {
					t.Error(err)
					return
				}
				want := decimal.NewFromInt(int64((g*500+i)%50 + 1))
				if !v["each"].Equal(want) {
					t.Errorf("%s decoded as %v", raw, v)
					return
				}
				v["each"] = decimal.Zero // the caller's copy
			}
		})
	}
	wg.Wait()
}

func TestDeclaredUnitsOfNoneIsNil(t *testing.T) {
	if u := declaredUnits(nil); u != nil {
		t.Fatalf("declaredUnits(nil) = %v", u)
	}
	if u := declaredUnits([]storedUnit{{Name: "case", Factor: decimal.NewFromInt(12)}}); len(u) != 1 || u[0].Name != "case" {
		t.Fatalf("declaredUnits = %v", u)
	}
}
