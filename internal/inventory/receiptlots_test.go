package inventory_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/sous-app/sous/db/migrations"
)

// lotsOf lists the item's lots (empty ones included) by expiry, as code → lot.
func (k *kitchen) lotsOf(it item) map[string]lotRow {
	k.t.Helper()
	var lots []lotRow
	k.call(http.MethodGet, "lots?includeEmpty=true&itemId="+it.ID.String()).Do().Expect(http.StatusOK).Decode(&lots)
	out := map[string]lotRow{}
	for _, l := range lots {
		out[l.Code] = l
	}
	return out
}

type lotRow struct {
	ID         uuid.UUID `json:"id"`
	Code       string    `json:"code"`
	ExpiresOn  *string   `json:"expiresOn"`
	ReceivedAt time.Time `json:"receivedAt"`
	Quantity   string    `json:"quantity"`
	Locations  []struct {
		LocationID uuid.UUID `json:"locationId"`
		Quantity   string    `json:"quantity"`
	} `json:"locations"`
}

func expiry(l lotRow) string {
	if l.ExpiresOn == nil {
		return "none"
	}
	return *l.ExpiresOn
}

func TestAdjustedReceiptsGoIntoLots(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	cooler := k.location(k.site, "Walk-in cooler")
	milk := k.item(map[string]any{"name": "Milk", "category": "dairy", "baseUnit": "lb", "shelfLifeDays": 3})
	lemons := k.lemons()
	// Two lines of milk without a lot share the adjustment's lot, expiring March 2 + 3; lemons
	// with an expiry and no code get a lot of their own with that expiry; an opening balance
	// stays outside any lot.
	a := k.adjust(line(milk, cooler, "4", "lb", "receipt"), line(milk, cooler, "2", "lb", "receipt"),
		line(lemons, cooler, "3", "lb", "receipt", map[string]any{"lot": map[string]any{"expiresOn": "2026-03-04"}}),
		line(lemons, cooler, "1", "lb", "opening_balance"))
	if len(a.Txns) != 4 || a.Txns[0].LotID == nil || a.Txns[1].LotID == nil || *a.Txns[0].LotID != *a.Txns[1].LotID || a.Txns[3].LotID != nil {
		t.Fatalf("txns %+v", a.Txns)
	}
	ml, ll := k.lotsOf(milk), k.lotsOf(lemons)
	if len(ml) != 1 || ml["R20260302-1"].Quantity != "6" || expiry(ml["R20260302-1"]) != "2026-03-05" {
		t.Fatalf("milk lots %+v", ml)
	}
	if len(ll) != 1 || ll["R20260302-1"].Quantity != "3" || expiry(ll["R20260302-1"]) != "2026-03-04" || ll["R20260302-1"].ID != *a.Txns[2].LotID {
		t.Fatalf("lemon lots %+v", ll)
	}
	// A named lot expiring March 10, then in one request a receipt (its lot expiring March 5)
	// and an issue: the issue takes the new lot first, as it expires first.
	k.adjust(line(milk, cooler, "1", "lb", "receipt", map[string]any{"lot": map[string]any{"code": "OLD", "expiresOn": "2026-03-10"}}))
	a = k.adjust(line(milk, cooler, "2", "lb", "receipt"), line(milk, cooler, "-8.5", "lb", "issue"))
	ml = k.lotsOf(milk)
	first, second, old := ml["R20260302-1"].ID, ml["R20260302-2"].ID, ml["OLD"].ID
	if len(a.Txns) != 4 || *a.Txns[0].LotID != second || *a.Txns[1].LotID != first || a.Txns[1].Quantity != "-6" ||
		*a.Txns[2].LotID != second || a.Txns[2].Quantity != "-2" || *a.Txns[3].LotID != old || a.Txns[3].Quantity != "-0.5" {
		t.Fatalf("txns %+v", a.Txns)
	}
	if ml["OLD"].Quantity != "0.5" || ml["R20260302-2"].Quantity != "0" || expiry(ml["OLD"]) != "2026-03-10" {
		t.Fatalf("milk lots %+v", ml)
	}
	// The emptied lot topped up by id: its bucket (at zero, not read by postings) takes it.
	k.adjust(line(milk, cooler, "1.25", "lb", "receipt", map[string]any{"lotId": second}))
	if ml = k.lotsOf(milk); ml["R20260302-2"].Quantity != "1.25" || len(ml) != 3 {
		t.Fatalf("milk lots %+v", ml)
	}
	// Taking from a lot needs its code; nothing is written.
	before := k.txnCount()
	e := k.adjustReq(line(milk, cooler, "-0.5", "lb", "issue", map[string]any{"lot": map[string]any{"expiresOn": "2026-03-10"}})).Expect(http.StatusBadRequest).Err()
	if len(e.Details) != 1 || e.Details[0].Field != "lines.0.lot.code" || k.txnCount() != before {
		t.Fatalf("error %+v", e)
	}
	checkLedgerSums(t, k)
}

// TestMigrationMovesUnlottedReceiptsIntoLots writes stock as the code before 0025 did (receipts
// without a lot, unlotted balances), then migrates: the receipts' stock still on hand is in
// lots of their own, every bucket still equals its ledger rows, and migrating again moves
// nothing twice.
func TestMigrationMovesUnlottedReceiptsIntoLots(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	ctx := t.Context()
	walkIn, line2 := k.location(k.site, "Walk-in"), k.location(k.site, "Line")
	flour := k.item(map[string]any{"name": "Flour", "category": "dry", "baseUnit": "lb"})
	milk := k.item(map[string]any{"name": "Milk", "category": "dairy", "baseUnit": "l", "shelfLifeDays": 3})
	db := stdlib.OpenDBFromPool(k.env.Pool)
	defer db.Close()
	p, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.DownTo(ctx, 24); err != nil {
		t.Fatal(err)
	}

	// The old shape: rows as the old poster wrote them, balances and costs beside them.
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := k.env.Pool.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	row := func(at string, kind string, it item, loc location, lot *uuid.UUID, qty string, source uuid.UUID) {
		t.Helper()
		exec(`INSERT INTO stock_txns (id, org_id, site_id, at, kind, item_id, location_id, lot_id, quantity, unit_cost, value_cents,
		        avg_cost_after, on_hand_after, reason, source_type, source_id)
		      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 80, ($9::numeric * 80)::bigint, 80, 0, $5, 'adjustment', $10)`,
			uuid.Must(uuid.NewV7()), k.org, k.site, at, kind, it.ID, loc.ID, lot, qty, source)
	}
	balance := func(it item, loc location, lot *uuid.UUID, qty string) {
		t.Helper()
		exec(`INSERT INTO stock_balances (org_id, site_id, item_id, location_id, lot_id, quantity, updated_at) VALUES ($1, $2, $3, $4, $5, $6, now())`,
			k.org, k.site, it.ID, loc.ID, lot, qty)
	}
	// Flour at the walk-in: received 50 lb on Feb 27 and 30 lb on Feb 28 (20:00 in Chicago, March 1
	// in UTC), 40 lb issued, then a 5 lb opening balance. Of the 45 lb on hand, the newest 5 are
	// the opening balance, the next 30 the second receipt, the last 10 the first receipt.
	// A lot named R20260227-1 by hand already exists: the first receipt's lot is numbered after it.
	named := uuid.Must(uuid.NewV7())
	exec(`INSERT INTO lots (id, org_id, site_id, item_id, code, expires_on, received_at) VALUES ($1, $2, $3, $4, 'R20260227-1', NULL, '2026-02-27T12:00:00Z')`,
		named, k.org, k.site, flour.ID)
	r1, r2, milkReceipt := uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7())
	row("2026-02-27T12:00:00Z", "receipt", flour, walkIn, &named, "7", uuid.Must(uuid.NewV7()))
	row("2026-02-27T15:00:00Z", "receipt", flour, walkIn, nil, "50", r1)
	row("2026-03-01T02:00:00Z", "receipt", flour, walkIn, nil, "30", r2)
	row("2026-03-01T12:00:00Z", "issue", flour, walkIn, nil, "-40", uuid.Must(uuid.NewV7()))
	row("2026-03-01T13:00:00Z", "opening_balance", flour, walkIn, nil, "5", uuid.Must(uuid.NewV7()))
	balance(flour, walkIn, &named, "7")
	balance(flour, walkIn, nil, "45")
	// Milk, one receipt into two locations on March 1 (10:00 local), 2 l issued at the line.
	row("2026-03-01T16:00:00Z", "receipt", milk, walkIn, nil, "12", milkReceipt)
	row("2026-03-01T16:00:00Z", "receipt", milk, line2, nil, "6", milkReceipt)
	row("2026-03-01T18:00:00Z", "issue", milk, line2, nil, "-2", uuid.Must(uuid.NewV7()))
	balance(milk, walkIn, nil, "12")
	balance(milk, line2, nil, "4")
	exec(`INSERT INTO stock_costs (org_id, item_id, site_id, on_hand, avg_cost, updated_at) VALUES ($1, $2, $3, 52, 80.5, now()), ($1, $4, $3, 16, 33.333333333333, now())`,
		k.org, flour.ID, k.site, milk.ID)

	// Up to the current version, not just 25: the API the test reads through needs the later
	// migrations too (the authorization reads orgs.sites_version, 0071).
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	fl, ml := k.lotsOf(flour), k.lotsOf(milk)
	want := []struct {
		lots           map[string]lotRow
		code, qty, exp string
		received       string
	}{
		{fl, "R20260227-1", "7", "none", "2026-02-27T12:00:00Z"},  // the named lot, untouched
		{fl, "R20260227-2", "10", "none", "2026-02-27T15:00:00Z"}, // the first receipt's last 10 lb
		{fl, "R20260228-1", "30", "none", "2026-03-01T02:00:00Z"}, // the second, whole, on its local date
		{ml, "R20260301-1", "16", "2026-03-04", "2026-03-01T16:00:00Z"},
	}
	for _, w := range want {
		l, ok := w.lots[w.code]
		if !ok || l.Quantity != w.qty || expiry(l) != w.exp || l.ReceivedAt.Format(time.RFC3339) != w.received {
			t.Fatalf("lot %s = %+v (present %v), want %s, expiring %s", w.code, l, ok, w.qty, w.exp)
		}
	}
	if len(fl) != 3 || len(ml) != 1 || len(ml["R20260301-1"].Locations) != 2 {
		t.Fatalf("lots: flour %+v, milk %+v", fl, ml)
	}
	// What stayed outside any lot: the opening balance's 5 lb of flour, no milk.
	levels := k.stock("itemId=" + flour.ID.String())
	if len(levels) != 1 || levels[0].Quantity != "52" || len(levels[0].Lots) != 3 {
		t.Fatalf("flour stock %+v", levels)
	}
	var outside string
	if err := k.env.Pool.QueryRow(ctx, `SELECT coalesce(sum(quantity), 0)::text FROM stock_balances WHERE org_id = $1 AND lot_id IS NULL AND quantity > 0`, k.org).Scan(&outside); err != nil || outside != "5" {
		t.Fatalf("outside any lot: %s %v", outside, err)
	}
	// Each move is a pair of corrections at the average: 10 × 80.5 = 805 cents, 30 × 80.5 = 2415,
	// 12 × 33.333333333333 = 399.999999999996 → 400, 4 × 33.333333333333 = 133.333… → 133.
	var pairs []struct {
		Qty   string
		Value int64
	}
	rows, err := k.env.Pool.Query(ctx, `SELECT quantity::text, value_cents FROM stock_txns WHERE org_id = $1 AND source_type = 'lot_assignment'
		AND kind = 'correction' AND reason = 'lot_assignment' AND lot_id IS NOT NULL ORDER BY value_cents`, k.org)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var q string
		var v int64
		if err := rows.Scan(&q, &v); err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, struct {
			Qty   string
			Value int64
		}{q, v})
	}
	if len(pairs) != 4 || pairs[0].Value != 133 || pairs[1].Value != 400 || pairs[2].Value != 805 || pairs[3].Value != 2415 {
		t.Fatalf("moves %+v", pairs)
	}
	var netValue, netQty int64
	if err := k.env.Pool.QueryRow(ctx, `SELECT sum(value_cents), sum(quantity)::bigint FROM stock_txns WHERE org_id = $1 AND source_type = 'lot_assignment'`, k.org).Scan(&netValue, &netQty); err != nil || netValue != 0 || netQty != 0 {
		t.Fatalf("the pairs net to %d cents, %d: %v", netValue, netQty, err)
	}
	checkLedgerSums(t, k)

	// Down and up again: nothing moves twice.
	txns := k.txnCount()
	if _, err := p.DownTo(ctx, 24); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	if k.txnCount() != txns || len(k.lotsOf(flour)) != 3 {
		t.Fatalf("migrating again wrote %d rows", k.txnCount()-txns)
	}
	checkLedgerSums(t, k)
	// After it, the migrated lots are issued first-expiry-first like any other: milk's lot
	// before anything, flour's oldest receipt first, the opening balance last.
	a := k.adjust(line(flour, walkIn, "-49", "lb", "issue"))
	got := []string{}
	for _, r := range a.Txns {
		code := "none"
		for c, l := range k.lotsOf(flour) {
			if r.LotID != nil && l.ID == *r.LotID {
				code = c
			}
		}
		got = append(got, code+":"+r.Quantity)
	}
	if len(got) != 4 || got[0] != "R20260227-1:-7" || got[1] != "R20260227-2:-10" || got[2] != "R20260228-1:-30" || got[3] != "none:-2" {
		t.Fatalf("issue took %v", got)
	}
}
