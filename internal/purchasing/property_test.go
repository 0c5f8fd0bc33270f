package purchasing_test

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"net/http"
	"testing"

	"github.com/google/uuid"
)

// TestReceiptsKeepLedgerInvariants: random purchase orders received in random parts, at random
// invoice prices, into random locations and lots, interleaved with issues, keep Supply I's
// invariants: every bucket is the sum of its ledger rows and never negative, each site total is
// the sum of its buckets, the average is the exact rational weighted average of the receipts
// (issues leave it), and each line's received packs are what its receipt rows add up to.
func TestReceiptsKeepLedgerInvariants(t *testing.T) {
	b, v, it, vi := setupPO(t)
	locs := []uuid.UUID{b.loc, b.location(b.site, "Dry store")}
	r := rand.New(rand.NewPCG(15, 2026))
	perCase := big.NewRat(2875, 100) // lb in a case
	onHand, value := new(big.Rat), new(big.Rat)
	lines := map[uuid.UUID]*big.Rat{} // received packs per line, by the model
	for round := range 12 {
		ordered := 1 + r.IntN(6)
		p := b.submit(b.createPO(v, map[string]any{"vendorItemId": vi.ID, "packs": fmt.Sprint(ordered)}))
		lid := p.Lines[0].ID
		lines[lid] = new(big.Rat)
		left := big.NewRat(int64(ordered), 1)
		for part := 0; left.Sign() > 0 && part < 3; part++ {
			// Half packs now and then; at most what is left (the last part takes the rest).
			packs := big.NewRat(int64(1+r.IntN(4)), 2)
			if packs.Cmp(left) > 0 || part == 2 {
				packs.Set(left)
			}
			price := int64(3000 + r.IntN(3000))
			line := map[string]any{"lineId": lid, "packs": packs.FloatString(1), "locationId": locs[r.IntN(2)], "priceCents": price}
			if r.IntN(2) == 0 {
				line["lot"] = map[string]any{"code": fmt.Sprintf("R%d", round)}
			}
			var rc receipt
			b.receive(p, map[string]any{"lines": []any{line}}).Expect(http.StatusOK).Decode(&rc)
			qty := new(big.Rat).Mul(packs, perCase)
			onHand.Add(onHand, qty)
			value.Add(value, new(big.Rat).Mul(packs, big.NewRat(price, 1)))
			lines[lid].Add(lines[lid], packs)
			left.Sub(left, packs)
			avg := new(big.Rat).Quo(value, onHand)
			if !near(rc.Txns[0].AvgCostAfter, avg) {
				t.Fatalf("round %d: avg %s, model %s", round, rc.Txns[0].AvgCostAfter, avg.FloatString(12))
			}
		}
		// An issue at the average: on hand falls, the average stays.
		if onHand.Cmp(big.NewRat(10, 1)) > 0 && r.IntN(2) == 0 {
			issue := big.NewRat(int64(1+r.IntN(5)), 1)
			res := b.call(http.MethodPost, "stock/adjust").JSON(map[string]any{"siteId": b.site, "lines": []any{map[string]any{
				"itemId": it.ID, "locationId": locs[0], "quantity": "-" + issue.FloatString(0), "unit": "lb", "reason": "issue"}}}).Do()
			if res.Status == http.StatusOK {
				avg := new(big.Rat).Quo(value, onHand)
				onHand.Sub(onHand, issue)
				value.Mul(avg, onHand)
			}
		}
		checkLedger(t, b)
	}
	var got string
	if err := b.env.Pool.QueryRow(t.Context(), `SELECT on_hand::text FROM stock_costs WHERE org_id = $1 AND item_id = $2`, b.org, it.ID).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if g, _ := new(big.Rat).SetString(got); g.Cmp(onHand) != 0 {
		t.Fatalf("on hand %s, model %s", got, onHand.FloatString(6))
	}
	for lid, want := range lines {
		var received string
		if err := b.env.Pool.QueryRow(t.Context(), `SELECT received_packs::text FROM purchase_order_lines WHERE org_id = $1 AND id = $2`, b.org, lid).Scan(&received); err != nil {
			t.Fatal(err)
		}
		if g, _ := new(big.Rat).SetString(received); g.Cmp(want) != 0 {
			t.Fatalf("line received %s, model %s", received, want.FloatString(2))
		}
	}
	// All receipt rows together are every received pack.
	var rows string
	if err := b.env.Pool.QueryRow(t.Context(), `SELECT (sum(quantity) / 28.75)::text FROM stock_txns WHERE org_id = $1 AND kind = 'receipt'`, b.org).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	total := new(big.Rat)
	for _, w := range lines {
		total.Add(total, w)
	}
	if g, _ := new(big.Rat).SetString(rows); g.Cmp(total) != 0 {
		t.Fatalf("receipt rows hold %s packs, lines %s", rows, total.FloatString(2))
	}
}

// near: within 0.0001 cent per base unit.
func near(got string, want *big.Rat) bool {
	g, ok := new(big.Rat).SetString(got)
	if !ok {
		return false
	}
	d := new(big.Rat).Sub(g, want)
	return d.Abs(d).Cmp(big.NewRat(1, 10000)) <= 0
}

func checkLedger(t *testing.T, b *buyer) {
	t.Helper()
	if bad := b.count(`
		SELECT count(*) FROM (
		  SELECT b.item_id FROM stock_balances b
		  FULL JOIN (SELECT item_id, location_id, lot_id, sum(quantity) AS q FROM stock_txns WHERE org_id = $1 GROUP BY 1, 2, 3) l
		    ON l.item_id = b.item_id AND l.location_id = b.location_id AND l.lot_id IS NOT DISTINCT FROM b.lot_id
		  WHERE (b.org_id = $1 OR b.org_id IS NULL) AND (coalesce(b.quantity, 0) <> coalesce(l.q, 0) OR b.quantity < 0)
		  UNION ALL
		  SELECT c.item_id FROM stock_costs c
		  WHERE c.org_id = $1 AND c.on_hand <> (SELECT coalesce(sum(quantity), 0) FROM stock_balances b WHERE b.org_id = c.org_id AND b.item_id = c.item_id AND b.site_id = c.site_id)
		) x`, b.org); bad != 0 {
		t.Fatalf("%d buckets or site totals differ from the ledger", bad)
	}
}
