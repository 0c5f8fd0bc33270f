package inventory_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

func TestReceiptsMoveTheAverageIssuesDoNot(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	it := k.lemons()
	cooler := k.location(k.site, "Walk-in cooler")
	// 2 cases (3 lb) at 1899 cents a case: 1266 cents per lb.
	a := k.adjust(line(it, cooler, "2", "case", "receipt", map[string]any{"unitCostCents": 1899}))
	if len(a.Txns) != 1 {
		t.Fatalf("txns %+v", a.Txns)
	}
	r := a.Txns[0]
	if r.Kind != "receipt" || r.Quantity != "3" || r.Unit != "lb" || r.UnitCost != "1266" || r.ValueCents != 3798 ||
		r.AvgCostAfter != "1266" || r.OnHandAfter != "3" || r.Source.Type != "adjustment" || r.Source.ID != a.ID ||
		r.Actor == nil || *r.Actor != k.owner.User.ID || r.LotID == nil {
		t.Fatalf("receipt row %+v", r)
	}
	// Named no lot, it went into one of its own.
	if lots := k.stockLots(it); len(lots) != 1 || lots[0].LotID != *r.LotID || lots[0].Code != "R20260302-1" {
		t.Fatalf("lots %+v", lots)
	}
	// 4 each (1 lb) at 300 cents each = 1200 cents per lb: avg = (3·1266 + 1·1200) / 4 = 1249.5.
	r = k.adjust(line(it, cooler, "4", "each", "receipt", map[string]any{"unitCostCents": 300})).Txns[0]
	if r.AvgCostAfter != "1249.5" || r.OnHandAfter != "4" || r.ValueCents != 1200 {
		t.Fatalf("second receipt %+v", r)
	}
	// An issue of 8 oz (0.5 lb) is valued at the average and leaves it alone.
	r = k.adjust(line(it, cooler, "-8", "oz", "issue")).Txns[0]
	if r.Quantity != "-0.5" || r.UnitCost != "1249.5" || r.ValueCents != -625 || r.AvgCostAfter != "1249.5" || r.OnHandAfter != "3.5" {
		t.Fatalf("issue row %+v", r)
	}
	// A receipt without a cost is valued at the average and leaves it alone.
	r = k.adjust(line(it, cooler, "0.5", "lb", "correction")).Txns[0]
	if r.AvgCostAfter != "1249.5" || r.ValueCents != 625 {
		t.Fatalf("correction row %+v", r)
	}
	levels := k.stock("siteId=" + k.site.String())
	if len(levels) != 1 || levels[0].Quantity != "4" || levels[0].AvgCost != "1249.5" || levels[0].ValueCents != 4998 || levels[0].Unit != "lb" {
		t.Fatalf("stock %+v", levels)
	}

	// The ledger, newest first, with every field.
	var txns []txn
	k.call(http.MethodGet, "stock/txns?siteId="+k.site.String()).Do().Expect(http.StatusOK).Decode(&txns)
	if len(txns) != 4 || txns[0].Kind != "correction" || txns[3].Kind != "receipt" {
		t.Fatalf("ledger %+v", txns)
	}
	k.call(http.MethodGet, "stock/txns?kind=issue&itemId="+it.ID.String()).Do().Expect(http.StatusOK).Decode(&txns)
	if len(txns) != 1 || txns[0].Quantity != "-0.5" {
		t.Fatalf("issues %+v", txns)
	}
	res := k.call(http.MethodGet, "stock/txns?limit=3").Do().Expect(http.StatusOK)
	if !strings.Contains(res.Header.Get("Link"), "cursor=") {
		t.Fatalf("no next page: %q", res.Header.Get("Link"))
	}
	k.env.Clock.Advance(time.Minute)
	k.call(http.MethodGet, "stock/txns?from="+apitestTime(k.env.Clock.Now())).Do().Expect(http.StatusOK).Decode(&txns)
	if len(txns) != 0 {
		t.Fatalf("rows after now: %+v", txns)
	}
}

func apitestTime(t time.Time) string { return strings.ReplaceAll(t.Format(time.RFC3339), "+", "%2B") }

func TestLedgerIsAppendOnly(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	it := k.lemons()
	cooler := k.location(k.site, "Walk-in cooler")
	k.adjust(line(it, cooler, "1", "lb", "opening_balance"))
	for _, stmt := range []string{`UPDATE stock_txns SET quantity = 2`, `DELETE FROM stock_txns`, `TRUNCATE stock_txns`} {
		if _, err := k.env.Pool.Exec(t.Context(), stmt); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s: %v", stmt, err)
		}
	}
}

func TestInsufficientStockWritesNothing(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	it := k.lemons()
	cooler := k.location(k.site, "Walk-in cooler")
	dry := k.location(k.site, "Dry store")
	k.adjust(line(it, cooler, "3", "lb", "receipt", map[string]any{"unitCostCents": 100}))
	before := k.txnCount()
	// The first line alone would succeed; the second takes more than there is: nothing is written.
	var body struct {
		Error string `json:"error"`
		Code  string `json:"code"`
		Stock struct {
			ItemID     uuid.UUID `json:"itemId"`
			LocationID uuid.UUID `json:"locationId"`
			Available  string    `json:"available"`
			Unit       string    `json:"unit"`
		} `json:"stock"`
	}
	k.adjustReq(line(it, cooler, "-1", "lb", "transfer_out"), line(it, dry, "1", "lb", "transfer_in"),
		line(it, cooler, "-3", "each", "issue"), line(it, cooler, "-9", "each", "issue")).Expect(http.StatusConflict).Decode(&body)
	if body.Error != "Insufficient stock" || body.Code != apierr.CodeInsufficientStock || body.Stock.ItemID != it.ID ||
		body.Stock.LocationID != cooler.ID || body.Stock.Available != "1.25" || body.Stock.Unit != "lb" {
		t.Fatalf("409 %+v", body)
	}
	if n := k.txnCount(); n != before {
		t.Fatalf("%d ledger rows written by a refused adjustment", n-before)
	}
	if got := k.onHand(it, cooler); got != "3" {
		t.Fatalf("on hand %s", got)
	}
	if got := k.onHand(it, dry); got != "0" {
		t.Fatalf("dry on hand %s", got)
	}
	// Down to exactly zero is fine.
	k.adjust(line(it, cooler, "-12", "each", "issue"))
	if got := k.onHand(it, cooler); got != "0" {
		t.Fatalf("on hand %s", got)
	}
}

func TestFEFOAndExpiredLots(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	it := k.lemons()
	cooler := k.location(k.site, "Walk-in cooler")
	// Received in this order: an opening balance (outside any lot), a lot without expiry, a late
	// lot, an early lot.
	k.adjust(
		line(it, cooler, "1", "lb", "opening_balance"),
		line(it, cooler, "1", "lb", "receipt", map[string]any{"lot": map[string]any{"code": "NOEXP"}}),
		line(it, cooler, "1", "lb", "receipt", map[string]any{"lot": map[string]any{"code": "LATE", "expiresOn": "2026-03-20"}}),
		line(it, cooler, "1", "lb", "receipt", map[string]any{"lot": map[string]any{"code": "EARLY", "expiresOn": "2026-03-05"}}),
	)
	k.env.Clock.Advance(time.Minute)
	k.adjust(line(it, cooler, "1", "lb", "receipt", map[string]any{"lot": map[string]any{"code": "LATE2", "expiresOn": "2026-03-20"}}))
	lotsOf := func(a adjustment) []string {
		var codes []string
		for _, r := range a.Txns {
			code := "none"
			if r.LotID != nil {
				for _, l := range k.stockLots(it) {
					if l.LotID == *r.LotID {
						code = l.Code
					}
				}
			}
			codes = append(codes, code+":"+r.Quantity)
		}
		return codes
	}
	// 1.5 lb: all of EARLY, then half of LATE (same expiry as LATE2, received first).
	a := k.adjust(line(it, cooler, "-1.5", "lb", "issue"))
	if got := strings.Join(lotsOf(a), ","); got != "EARLY:-1,LATE:-0.5" {
		t.Fatalf("FEFO took %s", got)
	}
	// The rest of LATE, LATE2, then the lot without expiry, then the stock outside any lot.
	a = k.adjust(line(it, cooler, "-3", "lb", "issue"))
	if got := strings.Join(lotsOf(a), ","); got != "LATE:-0.5,LATE2:-1,NOEXP:-1,none:-0.5" {
		t.Fatalf("FEFO took %s", got)
	}

	// Expired lots are not issued, but can be wasted or corrected.
	k.adjust(line(it, cooler, "2", "lb", "receipt", map[string]any{"lot": map[string]any{"code": "SOON", "expiresOn": "2026-03-03"}}))
	k.adjust(line(it, cooler, "-0.5", "lb", "issue")) // the opening balance's 0.5 left
	k.setClock(time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC))
	e := k.adjustReq(line(it, cooler, "-1", "lb", "issue")).ExpectCode(http.StatusConflict, apierr.CodeInsufficientStock)
	_ = e
	var lotID uuid.UUID
	for _, l := range k.stockLots(it) {
		if l.Code == "SOON" {
			lotID = l.LotID
		}
	}
	k.adjustReq(line(it, cooler, "-1", "lb", "issue", map[string]any{"lotId": lotID})).ExpectCode(http.StatusConflict, apierr.CodeInsufficientStock)
	k.adjust(line(it, cooler, "-1", "lb", "correction"))
	if got := k.onHand(it, cooler); got != "1" {
		t.Fatalf("on hand %s", got)
	}
}

// stockLots lists the item's lots at the kitchen's site, empty ones included.
func (k *kitchen) stockLots(it item) []stockLot {
	k.t.Helper()
	var lots []struct {
		ID   uuid.UUID `json:"id"`
		Code string    `json:"code"`
	}
	k.call(http.MethodGet, "lots?includeEmpty=true&itemId="+it.ID.String()).Do().Expect(http.StatusOK).Decode(&lots)
	out := make([]stockLot, 0, len(lots))
	for _, l := range lots {
		out = append(out, stockLot{LotID: l.ID, Code: l.Code})
	}
	return out
}

func TestTransfersKeepLots(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	it := k.lemons()
	cooler := k.location(k.site, "Walk-in cooler")
	line2 := k.location(k.site, "Line cooler")
	k.adjust(
		line(it, cooler, "1", "lb", "receipt", map[string]any{"lot": map[string]any{"code": "A", "expiresOn": "2026-03-05"}, "unitCostCents": 400}),
		line(it, cooler, "2", "lb", "receipt", map[string]any{"lot": map[string]any{"code": "B", "expiresOn": "2026-03-09"}, "unitCostCents": 100}),
	)
	a := k.adjust(line(it, cooler, "-2", "lb", "transfer_out"), line(it, line2, "2", "lb", "transfer_in"))
	if len(a.Txns) != 4 {
		t.Fatalf("transfer rows %+v", a.Txns)
	}
	levels := k.stock("locationId=" + line2.ID.String())
	if len(levels) != 1 || levels[0].Quantity != "2" || len(levels[0].Lots) != 2 || levels[0].Lots[0].Code != "A" || levels[0].Lots[1].Quantity != "1" {
		t.Fatalf("line cooler %+v", levels)
	}
	// Transfers never move the average (200 cents per lb).
	for _, r := range a.Txns {
		if r.AvgCostAfter != "200" || r.UnitCost != "200" {
			t.Fatalf("transfer row %+v", r)
		}
	}
	var lots []struct {
		Code      string `json:"code"`
		Quantity  string `json:"quantity"`
		Locations []struct {
			LocationID uuid.UUID `json:"locationId"`
			Quantity   string    `json:"quantity"`
		} `json:"locations"`
	}
	k.call(http.MethodGet, "lots?siteId="+k.site.String()).Do().Expect(http.StatusOK).Decode(&lots)
	if len(lots) != 2 || lots[0].Code != "A" || len(lots[0].Locations) != 1 || lots[0].Locations[0].LocationID != line2.ID ||
		lots[1].Quantity != "2" || len(lots[1].Locations) != 2 {
		t.Fatalf("lots %+v", lots)
	}
	k.call(http.MethodGet, "lots?expiresBefore=2026-03-06").Do().Expect(http.StatusOK).Decode(&lots)
	if len(lots) != 1 || lots[0].Code != "A" {
		t.Fatalf("expiring lots %+v", lots)
	}
}

func TestAdjustValidation(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	it := k.lemons()
	flour := k.item(map[string]any{"name": "Flour", "category": "dry goods", "baseUnit": "lb"})
	cooler := k.location(k.site, "Walk-in cooler")
	pastry := k.env.Site(k.owner.AccessToken, k.org, "Pastry")
	pastryCooler := k.location(pastry, "Pastry cooler")
	k.adjust(line(flour, cooler, "1", "lb", "receipt", map[string]any{"lot": map[string]any{"code": "F1"}}))
	var flourLot uuid.UUID
	for _, l := range k.stockLots(flour) {
		flourLot = l.LotID
	}
	pastryLot := k.pastryLot(it, pastry, pastryCooler)
	before := k.txnCount()
	cases := []struct {
		name, field, message string
		line                 map[string]any
	}{
		{"unknown unit", "lines.0.unit", `cannot convert cup to lb for "` + it.Name + `"`, line(it, cooler, "1", "cup", "receipt")},
		{"unknown named unit", "lines.0.unit", "cannot convert bag to lb", line(it, cooler, "1", "bag", "receipt")},
		{"zero receipt", "lines.0.quantity", "must not be zero", line(it, cooler, "0", "lb", "receipt")},
		{"negative receipt", "lines.0.quantity", "must be positive", line(it, cooler, "-1", "lb", "receipt")},
		{"positive issue", "lines.0.quantity", "must be negative", line(it, cooler, "1", "lb", "issue")},
		{"seven places", "lines.0.quantity", "more than 6 decimal places", line(it, cooler, "1.0000001", "lb", "receipt")},
		{"lot of another item", "lines.0.lotId", "another item", line(it, cooler, "1", "lb", "receipt", map[string]any{"lotId": flourLot})},
		{"location of another site", "lines.0.locationId", "another site", line(it, pastryCooler, "1", "lb", "receipt")},
		{"lot of another site", "lines.0.lotId", "another site", line(it, cooler, "-1", "lb", "issue", map[string]any{"lotId": pastryLot})},
		{"unknown location", "lines.0.locationId", "no storage location", map[string]any{"itemId": it.ID, "locationId": uuid.New(), "quantity": "1", "unit": "lb", "reason": "receipt"}},
		{"unknown item", "lines.0.itemId", "no inventory item", map[string]any{"itemId": uuid.New(), "locationId": cooler.ID, "quantity": "1", "unit": "lb", "reason": "receipt"}},
		{"expiry in the past", "lines.0.lot.expiresOn", "in the past", line(it, cooler, "1", "lb", "receipt", map[string]any{"lot": map[string]any{"code": "OLD", "expiresOn": "2026-03-01"}})},
		{"cost on an issue", "lines.0.unitCostCents", "receipts", line(it, cooler, "-1", "lb", "issue", map[string]any{"unitCostCents": 5})},
		{"lot by id and code", "lines.0.lot", "not both", line(it, cooler, "1", "lb", "receipt", map[string]any{"lotId": flourLot, "lot": map[string]any{"code": "X"}})},
		{"unknown lot code on an issue", "lines.0.lot.code", "no lot", line(it, cooler, "-1", "lb", "issue", map[string]any{"lot": map[string]any{"code": "NOPE"}})},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := k.env.With(t)
			// A valid line first: the whole request is refused, nothing written.
			res := env.Call(http.MethodPost, "orgs/"+k.org.String()+"/stock/adjust").Token(k.owner.AccessToken).
				JSON(map[string]any{"siteId": k.site, "lines": []map[string]any{line(it, cooler, "1", "lb", "receipt"), c.line}}).Do()
			e := res.ExpectCode(http.StatusBadRequest, apierr.CodeValidationFailed)
			want := strings.Replace(c.field, "lines.0", "lines.1", 1)
			if len(e.Details) != 1 || e.Details[0].Field != want || !strings.Contains(e.Details[0].Message, c.message) {
				t.Fatalf("details %+v, want %s: %s", e.Details, want, c.message)
			}
		})
	}
	if n := k.txnCount(); n != before {
		t.Fatalf("%d rows written by refused adjustments", n-before)
	}
	var lots int
	if err := k.env.Pool.QueryRow(t.Context(), `SELECT count(*) FROM lots WHERE code = 'OLD'`).Scan(&lots); err != nil || lots != 0 {
		t.Fatalf("lot written: %d %v", lots, err)
	}
	// A site outside the organization, or outside a member's sites, is not found.
	k.call(http.MethodPost, "stock/adjust").JSON(map[string]any{"siteId": uuid.New(), "lines": []map[string]any{line(it, cooler, "1", "lb", "receipt")}}).
		Do().ExpectError(http.StatusNotFound, "Site not found")
	limited := k.env.Member(k.org, "manager", pastry)
	k.as(limited, http.MethodPost, "stock/adjust").JSON(map[string]any{"siteId": k.site, "lines": []map[string]any{line(it, cooler, "1", "lb", "receipt")}}).
		Do().ExpectError(http.StatusNotFound, "Site not found")
	k.as(limited, http.MethodGet, "stock?siteId="+k.site.String()).Do().ExpectError(http.StatusNotFound, "")
	var levels []stockLevel
	k.as(limited, http.MethodGet, "stock").Do().Expect(http.StatusOK).Decode(&levels)
	if len(levels) != 1 || levels[0].LocationID != pastryCooler.ID {
		t.Fatalf("a member limited to Pastry reads %+v", levels)
	}
	inspector := k.env.Member(k.org, "inspector")
	k.as(inspector, http.MethodPost, "stock/adjust").JSON(map[string]any{"siteId": k.site, "lines": []map[string]any{line(it, cooler, "1", "lb", "receipt")}}).
		Do().ExpectError(http.StatusForbidden, "")
	viewer := k.env.Member(k.org, "viewer")
	k.as(viewer, http.MethodGet, "stock/txns").Do().Expect(http.StatusOK)
	k.as(viewer, http.MethodGet, "lots").Do().Expect(http.StatusOK)
}

func TestBaseUnitFixedOnceStocked(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	it := k.lemons()
	cooler := k.location(k.site, "Walk-in cooler")
	k.adjust(line(it, cooler, "1", "lb", "receipt"))
	k.call(http.MethodPut, "inventory-items/"+it.ID.String()).JSON(map[string]any{"name": it.Name, "category": "produce", "baseUnit": "kg"}).
		Do().ExpectError(http.StatusConflict, "base unit")
}

func TestConcurrentIssuesOfTheLastUnits(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	it := k.lemons()
	cooler := k.location(k.site, "Walk-in cooler")
	k.adjust(line(it, cooler, "5", "lb", "receipt", map[string]any{"unitCostCents": 100}))
	const n = 8
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = k.env.With(t).Call(http.MethodPost, "orgs/"+k.org.String()+"/stock/adjust").Token(k.owner.AccessToken).
				JSON(map[string]any{"siteId": k.site, "lines": []map[string]any{line(it, cooler, "-5", "lb", "issue")}}).Do().Status
		}()
	}
	wg.Wait()
	won, refused := 0, 0
	for _, s := range statuses {
		switch s {
		case http.StatusOK:
			won++
		case http.StatusConflict:
			refused++
		default:
			t.Fatalf("status %d", s)
		}
	}
	if won != 1 || refused != n-1 {
		t.Fatalf("%d succeeded, %d refused", won, refused)
	}
	if got := k.onHand(it, cooler); got != "0" {
		t.Fatalf("on hand %s", got)
	}
}

func TestStockPagesAndBelowPar(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	a, b := k.location(k.site, "A"), k.location(k.site, "B")
	var items []item
	for _, name := range []string{"Cherries", "apples", "Bananas"} {
		items = append(items, k.item(map[string]any{"name": name, "category": "produce", "baseUnit": "lb",
			"parLevels": []parLevel{{k.site, "5", "2"}}}))
	}
	for i, it := range items {
		k.adjust(line(it, a, fmt.Sprint(2+i*3), "lb", "receipt"), line(it, b, "1", "lb", "receipt"))
	}
	var got []string
	next := "stock?limit=4&siteId=" + k.site.String()
	for next != "" {
		res := k.call(http.MethodGet, next).Do().Expect(http.StatusOK)
		var page []struct {
			ItemName     string `json:"itemName"`
			LocationName string `json:"locationName"`
		}
		res.Decode(&page)
		for _, r := range page {
			got = append(got, r.ItemName)
		}
		next = ""
		if link := res.Header.Get("Link"); link != "" {
			u, err := url.Parse(link[strings.Index(link, "<")+1 : strings.Index(link, ">")])
			if err != nil {
				t.Fatal(err)
			}
			next = strings.TrimPrefix(u.RequestURI(), "/v1/orgs/"+k.org.String()+"/")
		}
	}
	if strings.Join(got, ",") != "apples,apples,Bananas,Bananas,Cherries,Cherries" {
		t.Fatalf("pages %v", got)
	}
	// Site on-hand: Cherries 3, apples 6, Bananas 9; par 5: only Cherries are below.
	below := k.stock("belowPar=true")
	if len(below) != 2 || below[0].ItemID != items[0].ID || !below[0].BelowPar || *below[0].Par != "5" {
		t.Fatalf("below par %+v", below)
	}
}

// pastryLot receives the item at another site into a lot and returns the lot's id.
func (k *kitchen) pastryLot(it item, site uuid.UUID, loc location) uuid.UUID {
	k.t.Helper()
	k.call(http.MethodPost, "stock/adjust").JSON(map[string]any{"siteId": site, "lines": []map[string]any{
		line(it, loc, "1", "lb", "receipt", map[string]any{"lot": map[string]any{"code": "P1"}})}}).Do().Expect(http.StatusOK)
	var lots []struct {
		ID     uuid.UUID `json:"id"`
		SiteID uuid.UUID `json:"siteId"`
	}
	k.call(http.MethodGet, "lots?siteId="+site.String()+"&itemId="+it.ID.String()).Do().Expect(http.StatusOK).Decode(&lots)
	if len(lots) != 1 {
		k.t.Fatalf("lots %+v", lots)
	}
	return lots[0].ID
}

// TestConcurrentAdjustmentsKeepTheirOwnOutcomes: adjustments of one site arriving together are
// posted together; each keeps its own answer. Failed ones (a short second line, a bad unit)
// leave no trace and never shift the others' on-hand, and the winners' on-hand-after values
// are exactly those of some serial order.
func TestConcurrentAdjustmentsKeepTheirOwnOutcomes(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	it := k.lemons()
	a, b := k.location(k.site, "Walk-in cooler"), k.location(k.site, "Line")
	k.adjust(line(it, a, "10", "lb", "receipt", map[string]any{"unitCostCents": 100}), line(it, b, "100", "lb", "receipt", map[string]any{"unitCostCents": 100}))
	auditBefore := k.auditCount("adjustStock")

	type shape struct {
		lines  []map[string]any
		status int // 0: 200 or 409 (the short location)
	}
	var shapes []shape
	for range 30 { // 10 of these win: location a holds 10 lb
		shapes = append(shapes, shape{lines: []map[string]any{line(it, a, "-1", "lb", "issue")}})
	}
	for range 5 { // the first line would do, the second never: nothing of it is written
		shapes = append(shapes, shape{lines: []map[string]any{line(it, b, "-1", "lb", "issue"), line(it, b, "-1000", "lb", "issue")}, status: http.StatusConflict})
	}
	for range 5 {
		shapes = append(shapes, shape{lines: []map[string]any{line(it, b, "-1", "lb", "issue")}, status: http.StatusOK})
	}
	for range 5 {
		shapes = append(shapes, shape{lines: []map[string]any{line(it, b, "-1", "parsec", "issue")}, status: http.StatusBadRequest})
	}
	answers := make([]*apitest.Response, len(shapes))
	var wg sync.WaitGroup
	for i, s := range shapes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = k.env.With(t).Call(http.MethodPost, "orgs/"+k.org.String()+"/stock/adjust").Token(k.owner.AccessToken).
				JSON(map[string]any{"siteId": k.site, "lines": s.lines}).Do()
		}()
	}
	wg.Wait()

	afterA, afterB := map[string]int{}, map[string]int{}
	ids := map[uuid.UUID]bool{}
	won := 0
	for i, s := range shapes {
		res := answers[i]
		switch {
		case s.status != 0:
			res.Expect(s.status)
		case res.Status == http.StatusConflict:
			continue
		default:
			res.Expect(http.StatusOK)
		}
		if res.Status != http.StatusOK {
			continue
		}
		won++
		var adj adjustment
		res.Decode(&adj)
		if ids[adj.ID] {
			t.Fatalf("two answers share the id %s", adj.ID)
		}
		ids[adj.ID] = true
		if len(adj.Txns) != 1 || adj.Txns[0].Source.ID != adj.ID || adj.Txns[0].Actor == nil || *adj.Txns[0].Actor != k.owner.User.ID {
			t.Fatalf("answer %d: %+v", i, adj)
		}
		if adj.Txns[0].LocationID == a.ID {
			afterA[adj.Txns[0].OnHandAfter]++
		} else {
			afterB[adj.Txns[0].OnHandAfter]++
		}
	}
	for want, after := range map[int]map[string]int{10: afterA, 5: afterB} {
		if len(after) != want {
			t.Fatalf("on-hand-after values %v, want %d distinct", after, want)
		}
	}
	for q := range 10 {
		if afterA[fmt.Sprint(q)] != 1 {
			t.Fatalf("location a: on-hand-after values %v, want 0 to 9 once each", afterA)
		}
	}
	for q := 95; q < 100; q++ {
		if afterB[fmt.Sprint(q)] != 1 {
			t.Fatalf("location b: on-hand-after values %v, want 95 to 99 once each", afterB)
		}
	}
	if won != 15 {
		t.Fatalf("%d adjustments succeeded, want 15", won)
	}
	if got := k.onHand(it, a) + "/" + k.onHand(it, b); got != "0/95" {
		t.Fatalf("on hand %s, want 0/95", got)
	}
	if got := k.auditCount("adjustStock") - auditBefore; got != won {
		t.Fatalf("%d audit rows for %d adjustments", got, won)
	}
	checkLedgerSums(t, k)
}
