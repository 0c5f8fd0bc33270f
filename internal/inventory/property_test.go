package inventory_test

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// rat reads a decimal string exactly.
func rat(t testing.TB, s string) *big.Rat {
	t.Helper()
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("not a decimal: %q", s)
	}
	return r
}

// within reports whether got (a decimal string) is within tol of want.
func within(t testing.TB, got string, want *big.Rat, tol string) bool {
	d := new(big.Rat).Sub(rat(t, got), want)
	return d.Abs(d).Cmp(rat(t, tol)) <= 0
}

// unitFactor is how many lb one unit of the lemons holds.
var unitFactor = map[string]string{"lb": "1", "oz": "0.0625", "each": "0.25", "case": "1.5"}

// ledgerModel is the reference: on-hand per location and lot ("" for stock outside any lot)
// and the moving-average cost, in exact rationals.
type ledgerModel struct {
	onHand map[uuid.UUID]map[string]*big.Rat
	lotIDs map[string]uuid.UUID
	avg    *big.Rat
	// generated are the codes of the lots receipts naming none made, in the order made.
	generated []string
}

func (m *ledgerModel) siteOnHand() *big.Rat {
	s := new(big.Rat)
	for _, lots := range m.onHand {
		for _, q := range lots {
			s.Add(s, q)
		}
	}
	return s
}

func (m *ledgerModel) bucket(loc uuid.UUID, lot string) *big.Rat {
	if m.onHand[loc] == nil {
		m.onHand[loc] = map[string]*big.Rat{}
	}
	if m.onHand[loc][lot] == nil {
		m.onHand[loc][lot] = new(big.Rat)
	}
	return m.onHand[loc][lot]
}

// receive applies a receipt of q lb at cost cents per lb (nil: no cost).
func (m *ledgerModel) receive(loc uuid.UUID, lot string, q, cost *big.Rat) {
	if cost != nil {
		oh := m.siteOnHand()
		if oh.Sign() <= 0 {
			m.avg = new(big.Rat).Set(cost)
		} else {
			num := new(big.Rat).Add(new(big.Rat).Mul(oh, m.avg), new(big.Rat).Mul(q, cost))
			m.avg = num.Quo(num, new(big.Rat).Add(oh, q))
		}
	}
	b := m.bucket(loc, lot)
	b.Add(b, q)
}

// fefo is the order lots are taken in: A (expires first), B, the generated lots (no expiry) in
// the order received, then the stock outside any lot.
func (m *ledgerModel) fefo() []string {
	return append(append([]string{"A", "B"}, m.generated...), "")
}

// take removes q lb from a lot, or in FEFO order; false (nothing changed) when short. It returns
// what it took per lot.
func (m *ledgerModel) take(loc uuid.UUID, lot string, q *big.Rat) (map[string]*big.Rat, bool) {
	order := m.fefo()
	if lot != "" {
		order = []string{lot}
	}
	avail := new(big.Rat)
	for _, l := range order {
		avail.Add(avail, m.bucket(loc, l))
	}
	if avail.Cmp(q) < 0 {
		return nil, false
	}
	took := map[string]*big.Rat{}
	need := new(big.Rat).Set(q)
	for _, l := range order {
		b := m.bucket(loc, l)
		if need.Sign() == 0 || b.Sign() == 0 {
			continue
		}
		x := new(big.Rat).Set(b)
		if x.Cmp(need) > 0 {
			x.Set(need)
		}
		b.Sub(b, x)
		need.Sub(need, x)
		took[l] = x
	}
	return took, true
}

// randomQty is a random quantity in a random unit, as sent and in lb.
func randomQty(r *rand.Rand) (qty, unit string, lb *big.Rat) {
	switch r.IntN(4) {
	case 0:
		qty, unit = fmt.Sprintf("%d.%03d", r.IntN(20), r.IntN(1000)), "lb"
	case 1:
		qty, unit = fmt.Sprint(1+r.IntN(40)), "oz"
	case 2:
		qty, unit = fmt.Sprint(1+r.IntN(30)), "each"
	default:
		qty, unit = fmt.Sprint(1+r.IntN(5)), "case"
	}
	lb = new(big.Rat).Mul(mustRat(qty), mustRat(unitFactor[unit]))
	if lb.Sign() == 0 {
		return randomQty(r)
	}
	return qty, unit, lb
}

func mustRat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic(s)
	}
	return r
}

// TestLedgerMatchesReferenceModel drives random sequences of receipts (random units and costs,
// into lots or not), issues (FEFO or from a lot), corrections and transfers through the API and
// checks each answer against the reference model in exact rationals: which movements are refused
// for lack of stock, the average after each row (rule 1, within 0.0001 cent per lb), and at the
// end on-hand per location and lot, and the ledger's sums (rule 2).
func TestLedgerMatchesReferenceModel(t *testing.T) {
	t.Parallel()
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			t.Parallel()
			k := newKitchen(t)
			r := rand.New(rand.NewPCG(seed, 42))
			it := k.lemons()
			locs := []location{k.location(k.site, "Walk-in"), k.location(k.site, "Line")}
			m := &ledgerModel{onHand: map[uuid.UUID]map[string]*big.Rat{}, lotIDs: map[string]uuid.UUID{}, avg: new(big.Rat)}
			lotRef := func(code string) map[string]any {
				switch code {
				case "A":
					return map[string]any{"lot": map[string]any{"code": "A", "expiresOn": "2026-03-12"}}
				case "B":
					return map[string]any{"lot": map[string]any{"code": "B", "expiresOn": "2026-03-22"}}
				}
				return map[string]any{}
			}
			for step := range 120 {
				loc := locs[r.IntN(2)]
				qty, unit, lb := randomQty(r)
				var res *apitest.Response
				var wantOK bool
				switch op := r.IntN(10); {
				case op < 4: // receipt, mostly with a cost; naming no lot, into a lot of its own
					lot := []string{"A", "B", ""}[r.IntN(3)]
					extra := lotRef(lot)
					if lot == "" {
						m.generated = append(m.generated, fmt.Sprintf("R20260302-%d", len(m.generated)+1))
						lot = m.generated[len(m.generated)-1]
					}
					var cost *big.Rat
					if r.IntN(5) > 0 {
						cents := int64(1 + r.IntN(5000))
						extra["unitCostCents"] = cents
						cost = new(big.Rat).Quo(new(big.Rat).SetInt64(cents), mustRat(unitFactor[unit]))
					}
					res = k.adjustReq(line(it, loc, qty, unit, "receipt", extra))
					m.receive(loc.ID, lot, lb, cost)
					wantOK = true
				case op < 7: // issue, FEFO or from a lot
					lot := ""
					extra := map[string]any{}
					if r.IntN(3) == 0 {
						lot = []string{"A", "B"}[r.IntN(2)]
						extra = map[string]any{"lot": map[string]any{"code": lot}}
						if _, known := m.lotIDs[lot]; !known {
							lot, extra = "", map[string]any{}
						}
					}
					res = k.adjustReq(line(it, loc, "-"+qty, unit, "issue", extra))
					_, wantOK = m.take(loc.ID, lot, lb)
				case op < 8: // correction either way
					if r.IntN(2) == 0 {
						res = k.adjustReq(line(it, loc, qty, unit, "correction"))
						m.receive(loc.ID, "", lb, nil)
						wantOK = true
					} else {
						res = k.adjustReq(line(it, loc, "-"+qty, unit, "correction"))
						_, wantOK = m.take(loc.ID, "", lb)
					}
				default: // transfer to the other location, lots kept
					other := locs[0]
					if other.ID == loc.ID {
						other = locs[1]
					}
					res = k.adjustReq(line(it, loc, "-"+qty, unit, "transfer_out"), line(it, other, qty, unit, "transfer_in"))
					var took map[string]*big.Rat
					if took, wantOK = m.take(loc.ID, "", lb); wantOK {
						for _, l := range m.fefo() {
							if q := took[l]; q != nil {
								m.receive(other.ID, l, q, nil)
							}
						}
					}
				}
				if wantOK != (res.Status == http.StatusOK) || !wantOK && res.Status != http.StatusConflict {
					t.Fatalf("step %d: status %d, model says ok=%v: %s", step, res.Status, wantOK, res.Body)
				}
				if !wantOK {
					continue
				}
				var a adjustment
				res.Decode(&a)
				last := a.Txns[len(a.Txns)-1]
				if !within(t, last.AvgCostAfter, m.avg, "0.0001") {
					t.Fatalf("step %d: average %s, reference %s", step, last.AvgCostAfter, m.avg.FloatString(12))
				}
				for _, l := range k.stockLots(it) {
					m.lotIDs[l.Code] = l.LotID
				}
			}
			// On-hand per location and lot equals the model's.
			for _, loc := range locs {
				levels := k.stock("locationId=" + loc.ID.String())
				want := new(big.Rat)
				for _, q := range m.onHand[loc.ID] {
					want.Add(want, q)
				}
				got := "0"
				if len(levels) == 1 {
					got = levels[0].Quantity
					for _, l := range levels[0].Lots {
						if rat(t, l.Quantity).Cmp(m.bucket(loc.ID, l.Code)) != 0 {
							t.Fatalf("%s lot %s: %s, model %s", loc.Name, l.Code, l.Quantity, m.bucket(loc.ID, l.Code).FloatString(9))
						}
					}
				}
				if rat(t, got).Cmp(want) != 0 {
					t.Fatalf("%s: on hand %s, model %s", loc.Name, got, want.FloatString(9))
				}
			}
			checkLedgerSums(t, k)
		})
	}
}

// checkLedgerSums checks rule 2 in the database: every bucket equals the sum of its ledger rows,
// none is negative, and each item's site on-hand equals its buckets' sum.
func checkLedgerSums(t *testing.T, k *kitchen) {
	t.Helper()
	var bad int
	if err := k.env.Pool.QueryRow(t.Context(), `
		SELECT count(*) FROM (
		  SELECT b.item_id FROM stock_balances b
		  FULL JOIN (SELECT item_id, location_id, lot_id, sum(quantity) AS q FROM stock_txns WHERE org_id = $1 GROUP BY 1, 2, 3) l
		    ON l.item_id = b.item_id AND l.location_id = b.location_id AND l.lot_id IS NOT DISTINCT FROM b.lot_id
		  WHERE (b.org_id = $1 OR b.org_id IS NULL) AND (coalesce(b.quantity, 0) <> coalesce(l.q, 0) OR b.quantity < 0)
		  UNION ALL
		  SELECT c.item_id FROM stock_costs c
		  WHERE c.org_id = $1 AND c.on_hand <> (SELECT coalesce(sum(quantity), 0) FROM stock_balances b WHERE b.org_id = c.org_id AND b.item_id = c.item_id AND b.site_id = c.site_id)
		) x`, k.org).Scan(&bad); err != nil {
		t.Fatal(err)
	}
	if bad != 0 {
		t.Fatalf("%d buckets or site totals differ from the ledger", bad)
	}
}

// TestThousandReceiptsAverage: a thousand receipts in random units and costs keep the average
// within 0.0001 cent per base unit of the exact rational average (rule 1).
func TestThousandReceiptsAverage(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	r := rand.New(rand.NewPCG(7, 7))
	it := k.lemons()
	cooler := k.location(k.site, "Walk-in")
	m := &ledgerModel{onHand: map[uuid.UUID]map[string]*big.Rat{}, avg: new(big.Rat)}
	for range 5 {
		lines := make([]map[string]any, 0, 200)
		for range 200 {
			qty, unit, lb := randomQty(r)
			cents := int64(1 + r.IntN(99999))
			lines = append(lines, line(it, cooler, qty, unit, "receipt", map[string]any{"unitCostCents": cents}))
			m.receive(cooler.ID, "", lb, new(big.Rat).Quo(new(big.Rat).SetInt64(cents), mustRat(unitFactor[unit])))
		}
		a := k.adjust(lines...)
		last := a.Txns[len(a.Txns)-1]
		if !within(t, last.AvgCostAfter, m.avg, "0.0001") {
			t.Fatalf("average %s, reference %s", last.AvgCostAfter, m.avg.FloatString(12))
		}
	}
	if levels := k.stock("itemId=" + it.ID.String()); !within(t, levels[0].AvgCost, m.avg, "0.0001") {
		t.Fatalf("stock average %s, reference %s", levels[0].AvgCost, m.avg.FloatString(12))
	}
}

// TestConcurrentWritesKeepLedgerSums: many writers moving the same items at once; afterwards
// every bucket equals its ledger rows and nothing is negative (rule 2).
func TestConcurrentWritesKeepLedgerSums(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	items := []item{k.lemons(), k.lemons(), k.lemons()}
	locs := []location{k.location(k.site, "Walk-in"), k.location(k.site, "Line")}
	var wg sync.WaitGroup
	for w := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			env := k.env.With(t)
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for range 15 {
				it, loc := items[r.IntN(3)], locs[r.IntN(2)]
				qty, unit, _ := randomQty(r)
				var lines []map[string]any
				switch r.IntN(3) {
				case 0:
					lines = []map[string]any{line(it, loc, qty, unit, "receipt", map[string]any{"unitCostCents": 1 + r.IntN(900),
						"lot": map[string]any{"code": fmt.Sprint("L", r.IntN(3)), "expiresOn": "2026-04-01"}})}
				case 1:
					lines = []map[string]any{line(it, loc, "-"+qty, unit, "issue")}
				default:
					other := locs[1-indexOf(locs, loc)]
					lines = []map[string]any{line(it, loc, "-"+qty, unit, "transfer_out"), line(it, other, qty, unit, "transfer_in"),
						line(items[r.IntN(3)], other, "1", "lb", "correction")}
				}
				res := env.Call(http.MethodPost, "orgs/"+k.org.String()+"/stock/adjust").Token(k.owner.AccessToken).
					JSON(map[string]any{"siteId": k.site, "lines": lines}).Do()
				if res.Status != http.StatusOK && res.Status != http.StatusConflict {
					t.Errorf("status %d: %s", res.Status, res.Body)
				}
			}
		}()
	}
	wg.Wait()
	checkLedgerSums(t, k)
}

func indexOf(locs []location, l location) int {
	for i, x := range locs {
		if x.ID == l.ID {
			return i
		}
	}
	return -1
}
