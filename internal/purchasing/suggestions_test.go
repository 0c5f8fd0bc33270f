package purchasing_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"
)

type suggestion struct {
	ItemID         uuid.UUID  `json:"itemId"`
	OnHand         string     `json:"onHand"`
	OnOrder        string     `json:"onOrder"`
	Requisitioned  string     `json:"requisitioned"`
	Projected      string     `json:"projected"`
	Needed         string     `json:"needed"`
	VendorItemID   *uuid.UUID `json:"vendorItemId"`
	PackQuantity   *string    `json:"packQuantity"`
	Packs          int64      `json:"packs"`
	LineTotalCents int64      `json:"lineTotalCents"`
}

type suggestions struct {
	Vendors []struct {
		VendorID    *uuid.UUID   `json:"vendorId"`
		TotalCents  int64        `json:"totalCents"`
		Suggestions []suggestion `json:"suggestions"`
	} `json:"vendors"`
}

func TestOrderSuggestions(t *testing.T) {
	b := newBuyer(t)
	par := func(p, rp string) map[string]any {
		return map[string]any{"parLevels": []map[string]any{{"siteId": b.site, "par": p, "reorderPoint": rp}}}
	}
	lemons := b.item("Lemons", "LEM", par("100", "60"))
	limes := b.item("Limes", "LIM", par("10", "0"))
	b.item("Kiwi", "KIW", par("5", "0")) // no stock, no vendor, below par: suggested without packs
	flush := b.item("Flush", "FLU", par("1", "0"))
	v := b.vendor("Freshline")
	vi := b.vendorItem(v, lemons, "FL-LEM", 4250, true)
	fvi := b.vendorItem(v, flush, "FL-FLU", 100, true)
	p := b.submit(b.createPO(v, map[string]any{"vendorItemId": vi.ID, "packs": "1"}, map[string]any{"vendorItemId": fvi.ID, "packs": "1"}))
	b.receive(p, map[string]any{"lines": []any{
		map[string]any{"lineId": p.Lines[0].ID, "packs": "1", "locationId": b.loc},
		map[string]any{"lineId": p.Lines[1].ID, "packs": "1", "locationId": b.loc},
	}}).Expect(http.StatusOK)
	b.submit(b.createPO(v, map[string]any{"vendorItemId": vi.ID, "packs": "1"}))
	b.createPO(v, map[string]any{"vendorItemId": vi.ID, "packs": "5"}) // a draft is not on order
	line := b.location(b.site, "Line")
	r := b.requisition(lemons, b.loc, line, "5", "lb")
	b.reqStep(r, "submit", http.StatusOK)
	b.reqStep(r, "approve", http.StatusOK)

	var s suggestions
	b.call(http.MethodGet, "order-suggestions?siteId="+b.site.String()).Do().Expect(http.StatusOK).Decode(&s)
	if len(s.Vendors) != 2 || s.Vendors[0].VendorID == nil || *s.Vendors[0].VendorID != v.ID || s.Vendors[1].VendorID != nil {
		t.Fatalf("groups = %+v", s)
	}
	got := s.Vendors[0].Suggestions
	// 28.75 on hand + 28.75 on order − 5 requisitioned = 52.5 ≤ 60; needed 47.5 → 2 cases.
	if len(got) != 1 || got[0].ItemID != lemons.ID || got[0].OnHand != "28.75" || got[0].OnOrder != "28.75" || got[0].Requisitioned != "5" ||
		got[0].Projected != "52.5" || got[0].Needed != "47.5" || got[0].Packs != 2 || got[0].LineTotalCents != 8500 || s.Vendors[0].TotalCents != 8500 {
		t.Fatalf("lemons = %+v", got)
	}
	none := s.Vendors[1].Suggestions
	if len(none) != 2 || none[0].Packs != 0 || none[0].VendorItemID != nil || none[1].ItemID != limes.ID || none[1].Needed != "10" {
		t.Fatalf("without vendor = %+v", none)
	}
	b.call(http.MethodGet, "order-suggestions?siteId="+b.site.String()+"&vendorId="+v.ID.String()).Do().Expect(http.StatusOK).Decode(&s)
	if len(s.Vendors) != 1 {
		t.Fatalf("vendor filter = %+v", s)
	}
	b.call(http.MethodGet, "order-suggestions?siteId="+uuid.NewString()).Do().Expect(http.StatusNotFound)
	scoped := b.env.Member(b.org, "viewer", b.env.Site(b.owner.AccessToken, b.org, "Annex"))
	b.as(scoped, http.MethodGet, "order-suggestions?siteId="+b.site.String()).Do().Expect(http.StatusNotFound)
}
