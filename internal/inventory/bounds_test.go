package inventory_test

import (
	"net/http"
	"testing"
)

// A stock movement whose value passes the server's bound on money is refused (422, nothing
// written) rather than stored wrapped; a stock value read beyond it is a clear 422, never negative.
func TestStockValueDoesNotWrap(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	loc := k.location(k.site, "Walk-in")
	it := k.lemons()
	cost := func(c int64) map[string]any { return map[string]any{"unitCostCents": c} }
	k.adjustReq(line(it, loc, "999999999999999", "lb", "opening_balance", cost(100_000_000))).ExpectCode(http.StatusUnprocessableEntity, "unprocessable")
	k.adjustReq(line(it, loc, "1", "lb", "opening_balance", cost(100_000_001))).ExpectError(http.StatusBadRequest, "")
	k.adjustReq(line(it, loc, "1", "lb", "opening_balance", cost(9223372036854775807))).ExpectError(http.StatusBadRequest, "")
	if n := k.txnCount(); n != 0 {
		t.Fatalf("txns written: %d", n)
	}
	// At the bound exactly: ten thousand pounds at a million dollars a pound.
	a := k.adjust(line(it, loc, "10000", "lb", "opening_balance", cost(100_000_000)))
	if a.Txns[0].ValueCents != 1_000_000_000_000 {
		t.Fatalf("value = %d", a.Txns[0].ValueCents)
	}
	if s := k.stock("siteId=" + k.site.String()); len(s) != 1 || s[0].ValueCents != 1_000_000_000_000 {
		t.Fatalf("stock = %+v", s)
	}
	// An average beyond anything a posting allows (written directly): the value would wrap.
	if _, err := k.env.Pool.Exec(t.Context(), `UPDATE stock_costs SET avg_cost = 10000000000000000 WHERE org_id = $1`, k.org); err != nil {
		t.Fatal(err)
	}
	k.call(http.MethodGet, "stock?siteId="+k.site.String()).Do().ExpectCode(http.StatusUnprocessableEntity, "unprocessable")
}
