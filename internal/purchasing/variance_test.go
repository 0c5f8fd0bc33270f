package purchasing_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
)

type varianceLine struct {
	ItemID           uuid.UUID   `json:"itemId"`
	Opening          string      `json:"opening"`
	Receipts         string      `json:"receipts"`
	TransfersIn      string      `json:"transfersIn"`
	TransfersOut     string      `json:"transfersOut"`
	Closing          string      `json:"closing"`
	Actual           string      `json:"actual"`
	Theoretical      string      `json:"theoretical"`
	Waste            string      `json:"waste"`
	Variance         string      `json:"variance"`
	ActualCents      int64       `json:"actualCents"`
	TheoreticalCents int64       `json:"theoreticalCents"`
	WasteCents       int64       `json:"wasteCents"`
	VarianceCents    int64       `json:"varianceCents"`
	LedgerTxnIDs     []uuid.UUID `json:"ledgerTxnIds"`
	RunIDs           []uuid.UUID `json:"runIds"`
	WasteLogIDs      []uuid.UUID `json:"wasteLogIds"`
}

func TestCostVariance(t *testing.T) {
	t.Parallel()
	b := newBuyer(t)
	lemons, sugar, curd := b.lemonCurd()
	clock := b.env.Clock
	day := clock.Now().UTC().Format("2006-01-02")
	q := "reports/cost-variance?siteId=" + b.site.String() + "&from=" + clock.Now().AddDate(0, 0, -1).UTC().Format("2006-01-02") +
		"&to=" + clock.Now().AddDate(0, 0, 1).UTC().Format("2006-01-02")
	adjust := func(qty string, reason string) {
		t.Helper()
		l := map[string]any{"itemId": lemons.ID, "locationId": b.loc, "quantity": qty, "unit": "lb", "reason": reason}
		if reason == "receipt" {
			l["unitCostCents"] = 200
		}
		b.call(http.MethodPost, "stock/adjust").JSON(map[string]any{"siteId": b.site, "lines": []map[string]any{l}}).Do().Expect(http.StatusOK)
		clock.Advance(time.Minute)
	}
	count := func(qty string) uuid.UUID {
		t.Helper()
		var c struct{ ID uuid.UUID }
		b.call(http.MethodPost, "counts").JSON(map[string]any{"siteId": b.site, "name": "Count", "locationIds": []uuid.UUID{b.loc}, "countedAt": clock.Now()}).
			Do().Expect(http.StatusCreated).Decode(&c)
		b.call(http.MethodPut, "counts/"+c.ID.String()+"/lines").JSON(map[string]any{"lines": []map[string]any{
			{"itemId": lemons.ID, "locationId": b.loc, "quantity": qty, "unit": "lb"}}}).Do().Expect(http.StatusOK)
		b.call(http.MethodPost, "counts/"+c.ID.String()+"/close").Do().Expect(http.StatusOK)
		clock.Advance(time.Minute)
		return c.ID
	}
	adjust("10", "receipt") // before the opening count: in the count, not a receipt of the period
	// One closed count only: 409.
	opening := count("10")
	b.call(http.MethodGet, q).Do().ExpectError(http.StatusConflict, "The site needs two closed counts for a cost variance")

	adjust("28.75", "receipt")
	var w struct{ ID uuid.UUID }
	b.call(http.MethodPost, "waste-logs").JSON(map[string]any{"siteId": b.site, "locationId": b.loc, "itemId": lemons.ID,
		"quantity": "2", "unit": "lb", "reason": "spoilage"}).Do().Expect(http.StatusCreated).Decode(&w)
	// A run of 60 portions = 6 kg, factor 1.5: lemons 2.5 lb as purchased × 1.5 = 3.75 lb; sugar 0.5 kg × 1.5 = 0.75 kg.
	var run struct{ ID uuid.UUID }
	b.call(http.MethodPost, "production-runs").JSON(map[string]any{"siteId": b.site, "date": day, "recipeId": curd, "portions": "60"}).
		Do().Expect(http.StatusCreated).Decode(&run)
	b.call(http.MethodPost, "production-runs/"+run.ID.String()+"/status").JSON(map[string]string{"status": "done"}).Do().Expect(http.StatusOK)
	// A run not done records nothing.
	b.call(http.MethodPost, "production-runs").JSON(map[string]any{"siteId": b.site, "date": day, "recipeId": curd, "portions": "600"}).
		Do().Expect(http.StatusCreated)
	// Stock moved between this site and another: 4 lb in, 1 lb out.
	adjust("4", "transfer_in")
	adjust("-1", "transfer_out")
	adjust("-30", "issue")
	closing := count("9")

	viewer := b.env.Member(b.org, "viewer")
	b.as(viewer, http.MethodGet, q).Do().Expect(http.StatusForbidden)
	var r struct {
		OpeningCountID uuid.UUID      `json:"openingCountId"`
		ClosingCountID uuid.UUID      `json:"closingCountId"`
		Lines          []varianceLine `json:"lines"`
		Totals         struct {
			ActualCents, TheoreticalCents, WasteCents, VarianceCents int64
		} `json:"totals"`
	}
	b.call(http.MethodGet, q).Do().Expect(http.StatusOK).Decode(&r)
	if r.OpeningCountID != opening || r.ClosingCountID != closing || len(r.Lines) != 2 {
		t.Fatalf("report = %+v", r)
	}
	// Lemons: actual 10 + 28.75 + 4 − 1 − 9 = 32.75 lb; theoretical 3.75; waste 2; variance 32.75 − 3.75 − 2 = 27.
	// At 200 cents a lb: 6550, 750, 400; variance 6550 − 750 − 400 = 5400.
	lem := r.Lines[0]
	if lem.ItemID != lemons.ID || lem.Opening != "10" || lem.Receipts != "28.75" || lem.TransfersIn != "4" || lem.TransfersOut != "1" || lem.Closing != "9" ||
		lem.Actual != "32.75" || lem.Theoretical != "3.75" || lem.Waste != "2" || lem.Variance != "27" ||
		lem.ActualCents != 6550 || lem.TheoreticalCents != 750 || lem.WasteCents != 400 || lem.VarianceCents != 5400 {
		t.Fatalf("lemons = %+v", lem)
	}
	if len(lem.LedgerTxnIDs) != 3 || len(lem.RunIDs) != 1 || lem.RunIDs[0] != run.ID || len(lem.WasteLogIDs) != 1 || lem.WasteLogIDs[0] != w.ID {
		t.Fatalf("lemons' sources = %+v", lem)
	}
	// Sugar: never counted nor costed: actual 0, theoretical 0.75 kg, variance −0.75, 0 cents.
	sug := r.Lines[1]
	if sug.ItemID != sugar.ID || sug.Actual != "0" || sug.Theoretical != "0.75" || sug.Variance != "-0.75" || sug.VarianceCents != 0 {
		t.Fatalf("sugar = %+v", sug)
	}
	if r.Totals.ActualCents != 6550 || r.Totals.TheoreticalCents != 750 || r.Totals.WasteCents != 400 || r.Totals.VarianceCents != 5400 {
		t.Fatalf("totals = %+v", r.Totals)
	}
}
