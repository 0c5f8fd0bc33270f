package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/sous-app/sous/gen/api"
)

// quoteOnly answers one quote, so the benchmark measures the page's own work: building the view
// and executing the template.
type quoteOnly struct{ Quotes }

func (quoteOnly) GetSharedQuote(context.Context, api.GetSharedQuoteRequestObject) (api.GetSharedQuoteResponseObject, error) {
	venue := "Lakeview Pavilion"
	start := time.Date(2026, 6, 13, 23, 0, 0, 0, time.UTC)
	q := api.SharedQuote{
		Brand:      api.PublicBrand{Name: "Harborview Kitchens", Primary: "#1F2937", Accent: "#F59E0B"},
		ClientName: "Maya Chen", EventName: "Chen–Ortiz wedding reception", EventStartsAt: start, EventEndsAt: start.Add(5 * time.Hour),
		Timezone: "America/Chicago", Venue: &venue, GuestCount: 140, Version: 1, Status: api.QuoteStatusSent,
		ServiceChargeBps: 2000, TaxRateBps: 1025, DepositPercent: 30, Terms: "30% deposit secures the date.",
		Totals:     api.QuoteTotals{SubtotalCents: 575000, ServiceChargeCents: 115000, TaxCents: 68572, TotalCents: 758572, DepositCents: 227572},
		ValidUntil: openapi_types.Date{Time: time.Date(2026, 3, 20, 0, 0, 0, 0, time.UTC)},
	}
	for i := 0; i < 8; i++ {
		q.Lines = append(q.Lines, api.SharedQuoteLine{Kind: "food", Description: "Braised short rib, plated", Quantity: "140", UnitPriceCents: 3450, Taxable: true, TotalCents: 483000})
	}
	return api.GetSharedQuote200JSONResponse{Body: q}, nil
}

func BenchmarkQuotePageRender(b *testing.B) {
	p, err := New(Deps{Quotes: quoteOnly{}})
	if err != nil {
		b.Fatal(err)
	}
	e := echo.New()
	for b.Loop() {
		rec := httptest.NewRecorder()
		c := e.NewContext(httptest.NewRequest(http.MethodGet, "/share/q/x", nil), rec)
		c.SetParamNames("token")
		c.SetParamValues("x")
		if err := p.quotePage(c); err != nil || rec.Code != http.StatusOK {
			b.Fatalf("%v %d", err, rec.Code)
		}
	}
}
