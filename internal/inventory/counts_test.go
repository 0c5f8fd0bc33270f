package inventory_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/inventory"
)

type countLine struct {
	ItemID       uuid.UUID  `json:"itemId"`
	LocationID   uuid.UUID  `json:"locationId"`
	LotID        *uuid.UUID `json:"lotId"`
	Quantity     string     `json:"quantity"`
	Unit         string     `json:"unit"`
	QuantityBase string     `json:"quantityBase"`
	Expected     *string    `json:"expected"`
	Counted      *string    `json:"counted"`
	Variance     *string    `json:"variance"`
	ValueCents   *int64     `json:"valueCents"`
	Flagged      *bool      `json:"flagged"`
}

type countSheet struct {
	ID     uuid.UUID   `json:"id"`
	Status string      `json:"status"`
	Lines  []countLine `json:"lines"`
}

func (k *kitchen) count(countedAt time.Time, locs ...location) countSheet {
	k.t.Helper()
	ids := make([]uuid.UUID, 0, len(locs))
	for _, l := range locs {
		ids = append(ids, l.ID)
	}
	var c countSheet
	k.call(http.MethodPost, "counts").JSON(map[string]any{"siteId": k.site, "name": "Month end", "locationIds": ids, "countedAt": countedAt}).
		Do().Expect(http.StatusCreated).Decode(&c)
	return c
}

func TestCountVariancesReplayTheBookAtCountedAt(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	lemons, flour, eggs := k.lemons(), k.item(map[string]any{"name": "Flour", "category": "dry", "baseUnit": "lb"}), k.item(map[string]any{"name": "Eggs", "category": "dairy", "baseUnit": "each"})
	cooler := k.location(k.site, "Walk-in cooler")
	// Lemons: 10 lb at 200 cents; flour 50 lb at 100; eggs 30 at 25.
	k.adjust(line(lemons, cooler, "10", "lb", "receipt", map[string]any{"unitCostCents": 200}),
		line(flour, cooler, "50", "lb", "receipt", map[string]any{"unitCostCents": 100}),
		line(eggs, cooler, "30", "each", "receipt", map[string]any{"unitCostCents": 25}))
	countedAt := k.env.Clock.Now()
	k.env.Clock.Advance(time.Minute)
	sheet := k.count(countedAt, cooler)
	// After the count was taken, 2 lb of lemons are issued: that movement stays.
	k.adjust(line(lemons, cooler, "-2", "lb", "issue"))
	// Counted: 6 lb of lemons (book at countedAt 10: variance −4), flour an explicit 0 (−50),
	// eggs not counted at all (unchanged).
	k.call(http.MethodPut, "counts/"+sheet.ID.String()+"/lines").JSON(map[string]any{"lines": []map[string]any{
		{"itemId": lemons.ID, "locationId": cooler.ID, "quantity": "4", "unit": "case"},
		{"itemId": flour.ID, "locationId": cooler.ID, "quantity": "12", "unit": "lb"},
		{"itemId": eggs.ID, "locationId": cooler.ID, "quantity": "30", "unit": "each"},
	}}).Do().Expect(http.StatusOK).Decode(&sheet)
	// Upsert by item × location: flour is set again to 0; eggs removed with null.
	k.call(http.MethodPut, "counts/"+sheet.ID.String()+"/lines").JSON(map[string]any{"lines": []map[string]any{
		{"itemId": flour.ID, "locationId": cooler.ID, "quantity": "0", "unit": "lb"},
		{"itemId": eggs.ID, "locationId": cooler.ID, "quantity": nil},
	}}).Do().Expect(http.StatusOK).Decode(&sheet)
	if len(sheet.Lines) != 2 || sheet.Lines[0].Expected != nil {
		t.Fatalf("lines %+v", sheet.Lines)
	}
	var res struct {
		Count              countSheet `json:"count"`
		VarianceValueCents int64      `json:"varianceValueCents"`
		FlaggedLines       int        `json:"flaggedLines"`
	}
	k.call(http.MethodPost, "counts/"+sheet.ID.String()+"/close").Do().Expect(http.StatusOK).Decode(&res)
	byItem := map[uuid.UUID]countLine{}
	for _, l := range res.Count.Lines {
		byItem[l.ItemID] = l
	}
	l := byItem[lemons.ID]
	if *l.Expected != "10" || l.QuantityBase != "6" || *l.Counted != "6" || *l.Variance != "-4" || *l.ValueCents != -800 || *l.Flagged {
		t.Fatalf("lemons %+v (−800 cents is under $50: not flagged)", l)
	}
	f := byItem[flour.ID]
	if *f.Expected != "50" || *f.Variance != "-50" || *f.ValueCents != -5000 || *f.Flagged {
		t.Fatalf("flour %+v (exactly $50 is not over)", f)
	}
	if res.Count.Status != "closed" || res.VarianceValueCents != -5800 || res.FlaggedLines != 0 {
		t.Fatalf("close %+v", res)
	}
	if got := k.onHand(lemons, cooler); got != "4" { // 10 − 2 issued − 4 variance
		t.Fatalf("lemons on hand %s", got)
	}
	if got := k.onHand(flour, cooler); got != "0" {
		t.Fatalf("flour on hand %s", got)
	}
	if got := k.onHand(eggs, cooler); got != "30" {
		t.Fatalf("eggs on hand %s (no line: unchanged)", got)
	}
	var txns []txn
	k.call(http.MethodGet, "stock/txns?kind=count_variance").Do().Expect(http.StatusOK).Decode(&txns)
	if len(txns) != 2 || txns[0].Source.Type != "count" || txns[0].Source.ID != sheet.ID || txns[0].UnitCost == "" {
		t.Fatalf("variance rows %+v", txns)
	}
	// Closed is final.
	k.call(http.MethodPost, "counts/"+sheet.ID.String()+"/close").Do().ExpectError(http.StatusConflict, "closed")
	k.call(http.MethodPut, "counts/"+sheet.ID.String()+"/lines").JSON(map[string]any{"lines": []map[string]any{
		{"itemId": flour.ID, "locationId": cooler.ID, "quantity": "1", "unit": "lb"}}}).Do().ExpectError(http.StatusConflict, "closed")
	checkLedgerSums(t, k)
}

func TestCountFlagsAndLots(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	lemons := k.lemons()
	cooler := k.location(k.site, "Walk-in cooler")
	dry := k.location(k.site, "Dry store")
	k.adjust(line(lemons, cooler, "100", "lb", "receipt", map[string]any{"unitCostCents": 100, "lot": map[string]any{"code": "A", "expiresOn": "2026-03-10"}}),
		line(lemons, cooler, "20", "lb", "receipt", map[string]any{"unitCostCents": 100}))
	lotA := k.stockLots(lemons)[0].LotID
	sheet := k.count(k.env.Clock.Now(), cooler)
	// Lot A counted 40 (−60 lb, $60, 60 %: flagged); the rest (the second receipt's own lot, 20)
	// counted 25 (+5).
	k.call(http.MethodPut, "counts/"+sheet.ID.String()+"/lines").JSON(map[string]any{"lines": []map[string]any{
		{"itemId": lemons.ID, "locationId": cooler.ID, "lotId": lotA, "quantity": "40", "unit": "lb"},
		{"itemId": lemons.ID, "locationId": cooler.ID, "quantity": "25", "unit": "lb"},
	}}).Do().Expect(http.StatusOK)
	// A location outside the sheet, a unit the item cannot convert: 400.
	k.call(http.MethodPut, "counts/"+sheet.ID.String()+"/lines").JSON(map[string]any{"lines": []map[string]any{
		{"itemId": lemons.ID, "locationId": dry.ID, "quantity": "1", "unit": "lb"}}}).Do().ExpectCode(http.StatusBadRequest, apierr.CodeValidationFailed)
	e := k.call(http.MethodPut, "counts/"+sheet.ID.String()+"/lines").JSON(map[string]any{"lines": []map[string]any{
		{"itemId": lemons.ID, "locationId": cooler.ID, "quantity": "1", "unit": "cup"}}}).Do().ExpectCode(http.StatusBadRequest, apierr.CodeValidationFailed)
	if !strings.Contains(e.Details[0].Message, "cup") {
		t.Fatalf("details %+v", e.Details)
	}
	// A viewer cannot count, an inspector can, only a manager closes.
	viewer, inspector := k.env.Member(k.org, "viewer"), k.env.Member(k.org, "inspector")
	k.as(viewer, http.MethodPut, "counts/"+sheet.ID.String()+"/lines").JSON(map[string]any{"lines": []map[string]any{
		{"itemId": lemons.ID, "locationId": cooler.ID, "quantity": "25", "unit": "lb"}}}).Do().ExpectError(http.StatusForbidden, "")
	k.as(inspector, http.MethodPut, "counts/"+sheet.ID.String()+"/lines").JSON(map[string]any{"lines": []map[string]any{
		{"itemId": lemons.ID, "locationId": cooler.ID, "quantity": "25", "unit": "lb"}}}).Do().Expect(http.StatusOK)
	k.as(inspector, http.MethodPost, "counts/"+sheet.ID.String()+"/close").Do().ExpectError(http.StatusForbidden, "")

	var res struct {
		Count        countSheet `json:"count"`
		FlaggedLines int        `json:"flaggedLines"`
	}
	k.call(http.MethodPost, "counts/"+sheet.ID.String()+"/close").Do().Expect(http.StatusOK).Decode(&res)
	if res.FlaggedLines != 1 {
		t.Fatalf("close %+v", res)
	}
	for _, l := range res.Count.Lines {
		switch {
		case l.LotID != nil && (*l.Variance != "-60" || !*l.Flagged || *l.ValueCents != -6000):
			t.Fatalf("lot line %+v", l)
		case l.LotID == nil && (*l.Expected != "20" || *l.Variance != "5" || *l.Flagged):
			t.Fatalf("rest line %+v", l)
		}
	}
	levels := k.stock("locationId=" + cooler.ID.String())
	if levels[0].Quantity != "65" || levels[0].Lots[0].Quantity != "40" {
		t.Fatalf("stock %+v", levels)
	}

	// The thresholds are the organization's.
	k.call(http.MethodPut, "supply-settings").JSON(map[string]any{"varianceFlagPercent": "1", "varianceFlagCents": 100}).Do().Expect(http.StatusOK)
	var settings struct {
		Percent string `json:"varianceFlagPercent"`
		Cents   int64  `json:"varianceFlagCents"`
	}
	k.call(http.MethodGet, "supply-settings").Do().Expect(http.StatusOK).Decode(&settings)
	if settings.Percent != "1" || settings.Cents != 100 {
		t.Fatalf("settings %+v", settings)
	}
	sheet = k.count(k.env.Clock.Now(), cooler)
	k.call(http.MethodPut, "counts/"+sheet.ID.String()+"/lines").JSON(map[string]any{"lines": []map[string]any{
		{"itemId": lemons.ID, "locationId": cooler.ID, "quantity": "23", "unit": "lb"}}}).Do().Expect(http.StatusOK)
	k.call(http.MethodPost, "counts/"+sheet.ID.String()+"/close").Do().Expect(http.StatusOK).Decode(&res)
	if res.FlaggedLines != 1 {
		t.Fatalf("counting the whole location at 23 lb (book 65: −42 lb, $42) is over 1 %% and $1: %+v", res)
	}
	// A future countedAt is refused.
	k.call(http.MethodPost, "counts").JSON(map[string]any{"siteId": k.site, "name": "Later", "locationIds": []uuid.UUID{cooler.ID},
		"countedAt": k.env.Clock.Now().Add(time.Hour)}).Do().ExpectCode(http.StatusBadRequest, apierr.CodeValidationFailed)
	var sheets []countSheet
	k.call(http.MethodGet, "counts?status=closed&siteId="+k.site.String()).Do().Expect(http.StatusOK).Decode(&sheets)
	if len(sheets) != 2 {
		t.Fatalf("closed sheets %+v", sheets)
	}
	checkLedgerSums(t, k)
}

func TestWasteLogs(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	lemons := k.lemons()
	cooler := k.location(k.site, "Walk-in cooler")
	k.adjust(line(lemons, cooler, "2", "lb", "receipt", map[string]any{"unitCostCents": 300, "lot": map[string]any{"code": "OLD", "expiresOn": "2026-03-03"}}),
		line(lemons, cooler, "2", "lb", "receipt", map[string]any{"unitCostCents": 100}))
	// The lot expires; the clock moves two days on.
	k.setClock(time.Date(2026, 3, 4, 15, 0, 0, 0, time.UTC))
	var w struct {
		ID           uuid.UUID   `json:"id"`
		LotID        *uuid.UUID  `json:"lotId"`
		QuantityBase string      `json:"quantityBase"`
		ValueCents   int64       `json:"valueCents"`
		Reason       string      `json:"reason"`
		TxnIDs       []uuid.UUID `json:"txnIds"`
	}
	// Expired stock can be wasted (FEFO takes the expired lot first); valued at the average 200.
	res := k.call(http.MethodPost, "waste-logs").JSON(map[string]any{"siteId": k.site, "locationId": cooler.ID, "itemId": lemons.ID,
		"quantity": "10", "unit": "each", "reason": "expired", "note": "Past date"}).Do().Expect(http.StatusCreated)
	res.Decode(&w)
	if w.QuantityBase != "2.5" || w.ValueCents != 500 || w.Reason != "expired" || len(w.TxnIDs) != 2 {
		t.Fatalf("waste %+v", w)
	}
	var txns []txn
	k.call(http.MethodGet, "stock/txns?kind=waste").Do().Expect(http.StatusOK).Decode(&txns)
	if len(txns) != 2 || txns[0].Reason != "expired" || txns[0].Source.Type != "waste_log" || txns[0].Source.ID != w.ID {
		t.Fatalf("waste rows %+v", txns)
	}
	var logs []struct {
		ID         uuid.UUID `json:"id"`
		ValueCents int64     `json:"valueCents"`
	}
	k.call(http.MethodGet, "waste-logs?reason=expired").Do().Expect(http.StatusOK).Decode(&logs)
	if len(logs) != 1 || logs[0].ValueCents != 500 {
		t.Fatalf("logs %+v", logs)
	}
	k.call(http.MethodGet, "waste-logs/"+w.ID.String()).Do().Expect(http.StatusOK)
	// More than there is: 409, nothing written.
	before := k.txnCount()
	k.call(http.MethodPost, "waste-logs").JSON(map[string]any{"siteId": k.site, "locationId": cooler.ID, "itemId": lemons.ID,
		"quantity": "2", "unit": "lb", "reason": "dropped"}).Do().ExpectCode(http.StatusConflict, apierr.CodeInsufficientStock)
	if k.txnCount() != before {
		t.Fatal("a refused waste log wrote ledger rows")
	}
	k.call(http.MethodPost, "waste-logs").JSON(map[string]any{"siteId": k.site, "locationId": cooler.ID, "itemId": lemons.ID,
		"quantity": "0", "unit": "lb", "reason": "dropped"}).Do().ExpectCode(http.StatusBadRequest, apierr.CodeValidationFailed)
	inspector := k.env.Member(k.org, "inspector")
	k.as(inspector, http.MethodPost, "waste-logs").JSON(map[string]any{"siteId": k.site, "locationId": cooler.ID, "itemId": lemons.ID,
		"quantity": "1", "unit": "each", "reason": "trim"}).Do().Expect(http.StatusCreated)
	viewer := k.env.Member(k.org, "viewer")
	k.as(viewer, http.MethodPost, "waste-logs").JSON(map[string]any{"siteId": k.site, "locationId": cooler.ID, "itemId": lemons.ID,
		"quantity": "1", "unit": "each", "reason": "trim"}).Do().ExpectError(http.StatusForbidden, "")
	checkLedgerSums(t, k)
}

func TestExpiringLotAlert(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	_, wallboard := k.env.PairDevice(k.owner.AccessToken, k.org, k.site, "wallboard_boh")
	lemons := k.lemons()
	cooler := k.location(k.site, "Walk-in cooler")
	// Today in Chicago is March 2 (03:00 local): a lot expiring March 4 is within two days, one
	// expiring March 5 is not.
	k.adjust(line(lemons, cooler, "2", "lb", "receipt", map[string]any{"lot": map[string]any{"code": "SOON", "expiresOn": "2026-03-04"}}),
		line(lemons, cooler, "2", "lb", "receipt", map[string]any{"lot": map[string]any{"code": "LATER", "expiresOn": "2026-03-05"}}))
	task := inventory.ExpiringLotsTask(k.env.Pool, k.env.Clock)
	run := func() {
		t.Helper()
		if err := task.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	run()
	run() // never twice
	type alert struct {
		ID       uuid.UUID `json:"id"`
		Kind     string    `json:"kind"`
		Severity string    `json:"severity"`
		Message  string    `json:"message"`
		Subject  struct {
			Type string    `json:"type"`
			ID   uuid.UUID `json:"id"`
		} `json:"subject"`
	}
	var open []alert
	k.call(http.MethodGet, "alerts").Do().Expect(http.StatusOK).Decode(&open)
	if len(open) != 1 || open[0].Kind != "lot_expiring" || open[0].Severity != "warning" || open[0].Subject.Type != "lot" ||
		!strings.Contains(open[0].Message, "SOON") || !strings.Contains(open[0].Message, lemons.Name) {
		t.Fatalf("alerts %+v", open)
	}
	var n int
	if err := k.env.Pool.QueryRow(t.Context(), `SELECT count(*) FROM events WHERE org_id = $1 AND name = 'alert.created'`, k.org).Scan(&n); err != nil || n != 1 {
		t.Fatalf("alert.created events: %d %v", n, err)
	}
	var state struct {
		Alerts []struct {
			Kind string `json:"kind"`
		} `json:"alerts"`
	}
	k.env.Call(http.MethodGet, "device/state").DeviceToken(wallboard).Do().Expect(http.StatusOK).Decode(&state)
	if len(state.Alerts) != 1 || state.Alerts[0].Kind != "lot_expiring" {
		t.Fatalf("wallboard alerts %+v", state.Alerts)
	}
	// Resolved by a member, it is not opened again for the same lot.
	k.call(http.MethodPost, "alerts/"+open[0].ID.String()+"/resolve").Do().Expect(http.StatusOK)
	run()
	k.call(http.MethodGet, "alerts").Do().Expect(http.StatusOK).Decode(&open)
	if len(open) != 0 {
		t.Fatalf("reopened %+v", open)
	}
	// A day later the second lot is within two days; once wasted, its alert closes by itself.
	k.setClock(k.env.Clock.Now().Add(24 * time.Hour))
	run()
	k.call(http.MethodGet, "alerts").Do().Expect(http.StatusOK).Decode(&open)
	if len(open) != 1 || !strings.Contains(open[0].Message, "LATER") {
		t.Fatalf("alerts %+v", open)
	}
	var lots []struct {
		ID   uuid.UUID `json:"id"`
		Code string    `json:"code"`
	}
	k.call(http.MethodGet, "lots").Do().Expect(http.StatusOK).Decode(&lots)
	for _, l := range lots {
		if l.Code == "LATER" {
			k.call(http.MethodPost, "waste-logs").JSON(map[string]any{"siteId": k.site, "locationId": cooler.ID, "itemId": lemons.ID, "lotId": l.ID,
				"quantity": "2", "unit": "lb", "reason": "expired"}).Do().Expect(http.StatusCreated)
		}
	}
	run()
	k.call(http.MethodGet, "alerts").Do().Expect(http.StatusOK).Decode(&open)
	if len(open) != 0 {
		t.Fatalf("alert of an emptied lot still open: %+v", open)
	}
}

func TestCountCloseRacesAndShortages(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	lemons := k.lemons()
	cooler := k.location(k.site, "Walk-in cooler")
	k.adjust(line(lemons, cooler, "10", "lb", "receipt", map[string]any{"unitCostCents": 100}))
	countedAt := k.env.Clock.Now()
	k.env.Clock.Advance(time.Minute)
	sheet := k.count(countedAt, cooler)
	// Counted 0 at countedAt (book 10: variance −10), but 8 lb were issued since: only 2 remain,
	// so the variance cannot be posted. 409, nothing written, the sheet stays open.
	k.adjust(line(lemons, cooler, "-8", "lb", "issue"))
	k.call(http.MethodPut, "counts/"+sheet.ID.String()+"/lines").JSON(map[string]any{"lines": []map[string]any{
		{"itemId": lemons.ID, "locationId": cooler.ID, "quantity": "0", "unit": "lb"}}}).Do().Expect(http.StatusOK)
	before := k.txnCount()
	k.call(http.MethodPost, "counts/"+sheet.ID.String()+"/close").Do().ExpectCode(http.StatusConflict, apierr.CodeInsufficientStock)
	if k.txnCount() != before {
		t.Fatal("a refused close wrote ledger rows")
	}
	var got countSheet
	k.call(http.MethodGet, "counts/"+sheet.ID.String()).Do().Expect(http.StatusOK).Decode(&got)
	if got.Status != "open" || got.Lines[0].Expected != nil {
		t.Fatalf("sheet after a refused close %+v", got)
	}
	// Counted 1 instead (variance −9 > 2 on hand): still refused; 9 (variance −1) closes. Two
	// closes at once: one closes it, the other finds it closed.
	k.call(http.MethodPut, "counts/"+sheet.ID.String()+"/lines").JSON(map[string]any{"lines": []map[string]any{
		{"itemId": lemons.ID, "locationId": cooler.ID, "quantity": "9", "unit": "lb"}}}).Do().Expect(http.StatusOK)
	statuses := make(chan int, 2)
	for range 2 {
		go func() {
			statuses <- k.env.With(t).Call(http.MethodPost, "orgs/"+k.org.String()+"/counts/"+sheet.ID.String()+"/close").Token(k.owner.AccessToken).Do().Status
		}()
	}
	a, b := <-statuses, <-statuses
	if a+b != http.StatusOK+http.StatusConflict {
		t.Fatalf("concurrent closes answered %d and %d", a, b)
	}
	if got := k.onHand(lemons, cooler); got != "1" {
		t.Fatalf("on hand %s", got)
	}
	checkLedgerSums(t, k)
}
