package purchasing_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/inventory"
)

type lot struct {
	ID         uuid.UUID `json:"id"`
	ItemID     uuid.UUID `json:"itemId"`
	Code       string    `json:"code"`
	ExpiresOn  *string   `json:"expiresOn"`
	ReceivedAt time.Time `json:"receivedAt"`
	Quantity   string    `json:"quantity"`
	Locations  []struct {
		LocationID uuid.UUID `json:"locationId"`
		Quantity   string    `json:"quantity"`
	} `json:"locations"`
}

// lots lists the item's lots, empty ones included, by expiry.
func (b *buyer) lots(it item) []lot {
	b.t.Helper()
	var out []lot
	b.call(http.MethodGet, "lots?includeEmpty=true&itemId="+it.ID.String()).Do().Expect(http.StatusOK).Decode(&out)
	return out
}

// setClock moves the clock and signs the owner in again (the access token lives 15 minutes).
func (b *buyer) setClock(t time.Time) {
	b.t.Helper()
	b.env.Clock.Set(t)
	b.owner = b.env.SignIn(b.owner.User.Email)
}

// bagged is an item kept in lb and bought by the case of perCase lb, with extra fields.
func (b *buyer) bagged(name, perCase string, extra map[string]any) item {
	b.t.Helper()
	extra["units"] = []map[string]string{{"name": "case", "factor": perCase}}
	return b.item(name, "", extra)
}

// receiveOne receives packs of a new submitted order of one vendor item, with the line's extra fields.
func (b *buyer) receiveOne(v vendor, vi vendorItem, packs string, extra map[string]any) receipt {
	b.t.Helper()
	p := b.submit(b.createPO(v, map[string]any{"vendorItemId": vi.ID, "packs": packs}))
	ln := map[string]any{"lineId": p.Lines[0].ID, "packs": packs, "locationId": b.loc}
	for k, x := range extra {
		ln[k] = x
	}
	var r receipt
	b.receive(p, map[string]any{"lines": []any{ln}}).Expect(http.StatusOK).Decode(&r)
	return r
}

func TestEveryPurchaseOrderReceiptGoesIntoALot(t *testing.T) {
	b := newBuyer(t)
	v := b.vendor("Freshline")
	// 21:30 on March 2 in Chicago, already March 3 in UTC: the received date is the site's.
	b.setClock(time.Date(2026, 3, 3, 3, 30, 0, 0, time.UTC))
	flour := b.bagged("Flour", "50", map[string]any{})
	milk := b.bagged("Milk", "4", map[string]any{"shelfLifeDays": 3})
	lemons := b.bagged("Lemons", "28.75", map[string]any{"shelfLifeDays": 10})
	flourVI := b.vendorItem(v, flour, "FL-FLR", 4000, true)
	milkVI := b.vendorItem(v, milk, "FL-MLK", 1000, true)
	lemonVI := b.vendorItem(v, lemons, "FL-LEM", 4250, true)

	// One order: 2 cases of flour, 3 of milk in two lines, 1 of lemons into a named lot.
	p := b.submit(b.createPO(v, map[string]any{"vendorItemId": flourVI.ID, "packs": "2"},
		map[string]any{"vendorItemId": milkVI.ID, "packs": "3"}, map[string]any{"vendorItemId": lemonVI.ID, "packs": "1"}))
	var r receipt
	b.receive(p, map[string]any{"lines": []any{
		map[string]any{"lineId": p.Lines[0].ID, "packs": "2", "locationId": b.loc},
		map[string]any{"lineId": p.Lines[1].ID, "packs": "1", "locationId": b.loc},
		map[string]any{"lineId": p.Lines[1].ID, "packs": "2", "locationId": b.loc},
		map[string]any{"lineId": p.Lines[2].ID, "packs": "1", "locationId": b.loc, "lot": map[string]any{"code": "L-77", "expiresOn": "2026-03-20"}},
	}}).Expect(http.StatusOK).Decode(&r)
	if len(r.Txns) != 4 {
		t.Fatalf("txns = %+v", r.Txns)
	}
	for _, x := range r.Txns {
		if x.LotID == nil {
			t.Fatalf("a receipt row outside any lot: %+v", x)
		}
	}
	// The milk's two lines share the receipt's lot of milk.
	if *r.Txns[1].LotID != *r.Txns[2].LotID {
		t.Fatalf("milk lines in two lots: %+v", r.Txns)
	}
	// Flour (no shelf life): a lot without expiry holding 2 × 50 lb.
	fl := b.lots(flour)
	if len(fl) != 1 || fl[0].Code != "R20260302-1" || fl[0].ExpiresOn != nil || fl[0].Quantity != "100" || fl[0].ID != *r.Txns[0].LotID ||
		!fl[0].ReceivedAt.Equal(b.env.Clock.Now()) || len(fl[0].Locations) != 1 || fl[0].Locations[0].LocationID != b.loc {
		t.Fatalf("flour lots = %+v", fl)
	}
	// Milk (3 days): received March 2 local, expires March 2 + 3 = March 5; 3 × 4 l.
	ml := b.lots(milk)
	if len(ml) != 1 || ml[0].Code != "R20260302-1" || ml[0].ExpiresOn == nil || *ml[0].ExpiresOn != "2026-03-05" || ml[0].Quantity != "12" {
		t.Fatalf("milk lots = %+v", ml)
	}
	// Lemons: the named lot keeps its code and expiry (not the shelf life's March 12).
	ll := b.lots(lemons)
	if len(ll) != 1 || ll[0].Code != "L-77" || *ll[0].ExpiresOn != "2026-03-20" || ll[0].Quantity != "28.75" {
		t.Fatalf("lemon lots = %+v", ll)
	}

	// A second receipt of flour the same day makes its own lot, numbered next; an expiry given
	// without a code is the generated lot's; the next day starts again at 1.
	r2 := b.receiveOne(v, flourVI, "1", nil)
	r3 := b.receiveOne(v, flourVI, "1", map[string]any{"lot": map[string]any{"expiresOn": "2026-04-30"}})
	b.setClock(time.Date(2026, 3, 3, 15, 0, 0, 0, time.UTC))
	r4 := b.receiveOne(v, flourVI, "1", nil)
	fl = b.lots(flour)
	codes := []string{}
	for _, l := range fl {
		exp := "none"
		if l.ExpiresOn != nil {
			exp = *l.ExpiresOn
		}
		codes = append(codes, l.Code+"/"+exp+"/"+l.Quantity)
	}
	// By expiry (none last), then receipt.
	if got := strings.Join(codes, ","); got != "R20260302-3/2026-04-30/50,R20260302-1/none/100,R20260302-2/none/50,R20260303-1/none/50" {
		t.Fatalf("flour lots = %s", got)
	}
	if *r2.Txns[0].LotID != fl[2].ID || *r3.Txns[0].LotID != fl[0].ID || *r4.Txns[0].LotID != fl[3].ID {
		t.Fatal("receipt rows name other lots than listed")
	}
	// A blank code is refused rather than generated; nothing is written.
	before := b.count(`SELECT count(*) FROM stock_txns WHERE org_id = $1`, b.org)
	p5 := b.submit(b.createPO(v, map[string]any{"vendorItemId": flourVI.ID, "packs": "1"}))
	e := b.receive(p5, map[string]any{"lines": []any{map[string]any{"lineId": p5.Lines[0].ID, "packs": "1", "locationId": b.loc, "lot": map[string]any{"code": " "}}}}).
		Expect(http.StatusBadRequest).Err()
	if len(e.Details) != 1 || e.Details[0].Field != "lines.0.lot.code" {
		t.Fatalf("error = %+v", e)
	}
	if after := b.count(`SELECT count(*) FROM stock_txns WHERE org_id = $1`, b.org); after != before {
		t.Fatal("a refused receipt wrote ledger rows")
	}
	checkLedger(t, b)
}

func TestIssuesAndAlertsReachGeneratedLots(t *testing.T) {
	b := newBuyer(t)
	v := b.vendor("Freshline")
	milk := b.bagged("Milk", "4", map[string]any{"shelfLifeDays": 3})
	flour := b.bagged("Flour", "50", map[string]any{})
	milkVI := b.vendorItem(v, milk, "FL-MLK", 1000, true)
	flourVI := b.vendorItem(v, flour, "FL-FLR", 4000, true)
	// March 2 (09:00 UTC, 03:00 in Chicago): milk expiring March 5; an hour later a second
	// receipt, expiring the same day; flour twice, without expiry.
	m1 := b.receiveOne(v, milkVI, "2", nil)
	f1 := b.receiveOne(v, flourVI, "1", nil)
	b.setClock(b.env.Clock.Now().Add(time.Hour))
	m2 := b.receiveOne(v, milkVI, "1", nil)
	f2 := b.receiveOne(v, flourVI, "1", nil)

	issue := func(it item, qty string) []txn {
		t.Helper()
		var a struct {
			Txns []txn `json:"txns"`
		}
		b.call(http.MethodPost, "stock/adjust").JSON(map[string]any{"siteId": b.site, "lines": []any{
			map[string]any{"itemId": it.ID, "locationId": b.loc, "quantity": qty, "unit": "lb", "reason": "issue"}}}).
			Do().Expect(http.StatusOK).Decode(&a)
		return a.Txns
	}
	// 10 lb of milk's 12: all 8 of the first lot (same expiry, received first), 2 of the second.
	got := issue(milk, "-10")
	if len(got) != 2 || *got[0].LotID != *m1.Txns[0].LotID || got[0].Quantity != "-8" || *got[1].LotID != *m2.Txns[0].LotID || got[1].Quantity != "-2" {
		t.Fatalf("milk issue = %+v", got)
	}
	// 60 lb of flour: 50 from the older lot, 10 from the newer.
	got = issue(flour, "-60")
	if len(got) != 2 || *got[0].LotID != *f1.Txns[0].LotID || got[0].Quantity != "-50" || *got[1].LotID != *f2.Txns[0].LotID || got[1].Quantity != "-10" {
		t.Fatalf("flour issue = %+v", got)
	}

	// The expiring-lot alert: nothing on March 2 (March 5 is three days out); on March 3 the
	// milk lot still holding stock (the second: 4 − 2 = 2 lb) opens one; the emptied one none.
	task := inventory.ExpiringLotsTask(b.env.Pool, b.env.Clock)
	run := func() {
		t.Helper()
		if err := task.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	type alert struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
		Subject struct {
			Type string    `json:"type"`
			ID   uuid.UUID `json:"id"`
		} `json:"subject"`
	}
	var open []alert
	run()
	b.call(http.MethodGet, "alerts").Do().Expect(http.StatusOK).Decode(&open)
	if len(open) != 0 {
		t.Fatalf("alerts on March 2: %+v", open)
	}
	b.setClock(time.Date(2026, 3, 3, 12, 0, 0, 0, time.UTC))
	run()
	b.call(http.MethodGet, "alerts").Do().Expect(http.StatusOK).Decode(&open)
	if len(open) != 1 || open[0].Kind != "lot_expiring" || open[0].Subject.ID != *m2.Txns[0].LotID ||
		open[0].Message != "Lot R20260302-2 of Milk (2 lb on hand) expires Thu Mar 5" {
		t.Fatalf("alerts on March 3: %+v", open)
	}
}

// TestParallelReceiptsWithoutACodeEachMakeALot: receipts of one item without a lot code, by
// purchase order and by adjustment (which may share a posting), all at once: each makes its own
// lot, numbered 1…N without a gap or a repeat, holding what it received; a request that fails
// in a shared posting leaves no lot behind.
func TestParallelReceiptsWithoutACodeEachMakeALot(t *testing.T) {
	b := newBuyer(t)
	v := b.vendor("Freshline")
	flour := b.bagged("Flour", "50", map[string]any{})
	vi := b.vendorItem(v, flour, "FL-FLR", 4000, true)
	const n = 6
	var orders []po
	for range n {
		orders = append(orders, b.submit(b.createPO(v, map[string]any{"vendorItemId": vi.ID, "packs": "1"})))
	}
	var wg sync.WaitGroup
	statuses := make(chan int, 3*n)
	for i := range n {
		wg.Add(3)
		go func() {
			defer wg.Done()
			res := b.env.With(t).Call(http.MethodPost, "orgs/"+b.org.String()+"/purchase-orders/"+orders[i].ID.String()+"/receive").Token(b.owner.AccessToken).
				JSON(map[string]any{"lines": []any{map[string]any{"lineId": orders[i].Lines[0].ID, "packs": "1", "locationId": b.loc}}}).Do()
			statuses <- res.Status
		}()
		adjust := func(lines ...map[string]any) {
			defer wg.Done()
			res := b.env.With(t).Call(http.MethodPost, "orgs/"+b.org.String()+"/stock/adjust").Token(b.owner.AccessToken).
				JSON(map[string]any{"siteId": b.site, "lines": lines}).Do()
			statuses <- res.Status
		}
		// 2 lb received; and a receipt of 1 lb with an issue of 10,000 lb, refused whole.
		go adjust(map[string]any{"itemId": flour.ID, "locationId": b.loc, "quantity": "2", "unit": "lb", "reason": "receipt", "unitCostCents": 90})
		go adjust(map[string]any{"itemId": flour.ID, "locationId": b.loc, "quantity": "1", "unit": "lb", "reason": "receipt"},
			map[string]any{"itemId": flour.ID, "locationId": b.loc, "quantity": "-10000", "unit": "lb", "reason": "issue"})
	}
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for s := range statuses {
		count[s]++
	}
	if count[http.StatusOK] != 2*n || count[http.StatusConflict] != n {
		t.Fatalf("statuses = %v", count)
	}
	lots := b.lots(flour)
	if len(lots) != 2*n {
		t.Fatalf("%d lots, want %d", len(lots), 2*n)
	}
	seen := map[string]bool{}
	fifty, two := 0, 0
	for _, l := range lots {
		seen[l.Code] = true
		switch l.Quantity {
		case "50":
			fifty++
		case "2":
			two++
		}
	}
	for i := 1; i <= 2*n; i++ {
		if !seen[fmt.Sprintf("R20260302-%d", i)] {
			t.Fatalf("lot R20260302-%d missing: %+v", i, lots)
		}
	}
	if fifty != n || two != n {
		t.Fatalf("lots of 50 lb: %d, of 2 lb: %d", fifty, two)
	}
	checkLedger(t, b)
}

// TestReceiptLotsWalkThrough follows flour without lot codes from two purchase orders through a
// requisition, waste and an issue; every number is worked out here from the prices and
// quantities.
func TestReceiptLotsWalkThrough(t *testing.T) {
	b := newBuyer(t)
	line := b.location(b.site, "Line")
	v := b.vendor("Freshline")
	const perCase = 50 // lb
	flour := b.bagged("Flour", fmt.Sprint(perCase), map[string]any{})
	vi := b.vendorItem(v, flour, "FL-FLR", 4000, true)
	cents := func(q, costPerLb int) string { return fmt.Sprint(q * costPerLb) }

	// March 2: 3 cases at $40.00, 80 cents a lb.
	r1 := b.receiveOne(v, vi, "3", nil)
	q1, c1 := 3*perCase, 4000/perCase
	if r1.Txns[0].Quantity != fmt.Sprint(q1) || r1.Txns[0].UnitCost != fmt.Sprint(c1) || r1.Txns[0].AvgCostAfter != fmt.Sprint(c1) {
		t.Fatalf("first receipt %+v", r1.Txns)
	}
	// March 3: 2 cases invoiced at $45.00, 90 cents a lb; the average becomes
	// (150·80 + 100·90) / 250 = 84.
	b.setClock(time.Date(2026, 3, 3, 14, 0, 0, 0, time.UTC))
	r2 := b.receiveOne(v, vi, "2", map[string]any{"priceCents": 4500})
	q2, c2 := 2*perCase, 4500/perCase
	avg := (q1*c1 + q2*c2) / (q1 + q2)
	if avg != 84 || r2.Txns[0].Quantity != fmt.Sprint(q2) || r2.Txns[0].UnitCost != fmt.Sprint(c2) || r2.Txns[0].AvgCostAfter != fmt.Sprint(avg) {
		t.Fatalf("second receipt %+v", r2.Txns)
	}
	lot1, lot2 := *r1.Txns[0].LotID, *r2.Txns[0].LotID
	lots := b.lots(flour)
	if len(lots) != 2 || lots[0].ID != lot1 || lots[0].Code != "R20260302-1" || lots[1].ID != lot2 || lots[1].Code != "R20260303-1" {
		t.Fatalf("lots %+v", lots)
	}

	// A requisition moves 60 lb to the line: all from the older lot, at the average.
	const moved = 60
	r := b.requisition(flour, b.loc, line, fmt.Sprint(moved), "lb")
	b.reqStep(r, "submit", http.StatusOK)
	b.reqStep(r, "approve", http.StatusOK)
	var f fulfillment
	b.call(http.MethodPost, "requisitions/"+r.ID.String()+"/fulfill").Do().Expect(http.StatusOK).Decode(&f)
	if len(f.Txns) != 2 || *f.Txns[0].LotID != lot1 || f.Txns[0].Quantity != fmt.Sprint(-moved) || *f.Txns[1].LotID != lot1 ||
		f.Txns[1].Quantity != fmt.Sprint(moved) || f.Txns[1].UnitCost != fmt.Sprint(avg) {
		t.Fatalf("fulfillment %+v", f.Txns)
	}
	// 5 lb wasted at the line, from the lot that came with the transfer: 5 × 84 cents.
	const wasted = 5
	var w struct {
		LotID      *uuid.UUID `json:"lotId"`
		ValueCents int64      `json:"valueCents"`
	}
	b.call(http.MethodPost, "waste-logs").JSON(map[string]any{"siteId": b.site, "locationId": line, "itemId": flour.ID,
		"quantity": fmt.Sprint(wasted), "unit": "lb", "reason": "spoilage"}).Do().Expect(http.StatusCreated).Decode(&w)
	if fmt.Sprint(w.ValueCents) != cents(wasted, avg) {
		t.Fatalf("waste %+v", w)
	}
	// 100 lb issued at the walk-in: the older lot's 90 left there, then 10 of the newer.
	const issued = 100
	var a struct {
		Txns []txn `json:"txns"`
	}
	b.call(http.MethodPost, "stock/adjust").JSON(map[string]any{"siteId": b.site, "lines": []any{
		map[string]any{"itemId": flour.ID, "locationId": b.loc, "quantity": fmt.Sprint(-issued), "unit": "lb", "reason": "issue"}}}).
		Do().Expect(http.StatusOK).Decode(&a)
	fromLot1 := q1 - moved
	if len(a.Txns) != 2 || *a.Txns[0].LotID != lot1 || a.Txns[0].Quantity != fmt.Sprint(-fromLot1) ||
		*a.Txns[1].LotID != lot2 || a.Txns[1].Quantity != fmt.Sprint(-(issued-fromLot1)) || a.Txns[1].UnitCost != fmt.Sprint(avg) {
		t.Fatalf("issue %+v", a.Txns)
	}

	// What is left: the older lot's 55 at the line, the newer lot's 90 at the walk-in, worth
	// 145 × 84 cents.
	left1, left2 := moved-wasted, q2-(issued-fromLot1)
	lots = b.lots(flour)
	if len(lots) != 2 || lots[0].Quantity != fmt.Sprint(left1) || len(lots[0].Locations) != 1 || lots[0].Locations[0].LocationID != line ||
		lots[1].Quantity != fmt.Sprint(left2) || len(lots[1].Locations) != 1 || lots[1].Locations[0].LocationID != b.loc {
		t.Fatalf("lots %+v", lots)
	}
	var stock []struct {
		LocationID uuid.UUID `json:"locationId"`
		Quantity   string    `json:"quantity"`
		ValueCents int64     `json:"valueCents"`
		Lots       []struct {
			LotID    uuid.UUID `json:"lotId"`
			Quantity string    `json:"quantity"`
		} `json:"lots"`
	}
	b.call(http.MethodGet, "stock?itemId="+flour.ID.String()).Do().Expect(http.StatusOK).Decode(&stock)
	var total int64
	for _, s := range stock {
		total += s.ValueCents
		if len(s.Lots) != 1 || s.Lots[0].Quantity != s.Quantity {
			t.Fatalf("stock outside a lot: %+v", s)
		}
	}
	if len(stock) != 2 || fmt.Sprint(total) != cents(left1+left2, avg) {
		t.Fatalf("stock %+v, %d cents", stock, total)
	}
	checkLedger(t, b)
}
