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
