package inventory_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/inventory"
)

func TestItemsCreateReadUpdate(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	res := k.call(http.MethodPost, "inventory-items").JSON(map[string]any{
		"name": "Lemons", "sku": "PRD-LEM-115", "category": "produce", "baseUnit": "lb",
		"units":     []itemUnit{{"each", "0.25"}, {"case", "28.75"}},
		"parLevels": []parLevel{{k.site, "40", "15.5"}}, "shelfLifeDays": 21,
		"allergens": map[string]string{"citrus": "contains", "peanuts": "free"},
	}).Do().Expect(http.StatusCreated)
	var it item
	res.Decode(&it)
	if loc := res.Header.Get("Location"); !strings.HasSuffix(loc, "/inventory-items/"+it.ID.String()) {
		t.Errorf("Location %q", loc)
	}
	if it.BaseUnit != "lb" || len(it.Units) != 2 || it.Units[1] != (itemUnit{"case", "28.75"}) || !it.Active ||
		it.Allergens["citrus"] != "contains" || it.Allergens["peanuts"] != "free" || len(it.ParLevels) != 1 || it.ParLevels[0].ReorderPoint != "15.5" {
		t.Fatalf("created %+v", it)
	}
	var got item
	k.call(http.MethodGet, "inventory-items/"+it.ID.String()).Do().Expect(http.StatusOK).Decode(&got)
	if got.Name != "Lemons" || *got.SKU != "PRD-LEM-115" || *got.ShelfLifeDays != 21 {
		t.Fatalf("read %+v", got)
	}
	// PUT replaces the whole state: what is left out is cleared.
	got = item{}
	k.call(http.MethodPut, "inventory-items/"+it.ID.String()).JSON(map[string]any{
		"name": "Meyer lemons", "category": "produce", "baseUnit": "kg", "active": false,
	}).Do().Expect(http.StatusOK).Decode(&got)
	if got.Name != "Meyer lemons" || got.SKU != nil || got.ShelfLifeDays != nil || len(got.Units) != 0 || len(got.ParLevels) != 0 ||
		len(got.Allergens) != 0 || got.Active || got.BaseUnit != "kg" {
		t.Fatalf("replaced %+v", got)
	}
	k.call(http.MethodGet, "inventory-items/"+uuid.NewString()).Do().ExpectError(http.StatusNotFound, "Inventory item not found")
	k.call(http.MethodPut, "inventory-items/"+uuid.NewString()).JSON(map[string]any{"name": "X", "category": "x", "baseUnit": "g"}).
		Do().ExpectError(http.StatusNotFound, "Inventory item not found")

	// Another organization's item does not exist for this one.
	other, otherOrg := k.env.NewOwner("Elsewhere")
	k.env.Call(http.MethodGet, "orgs/"+otherOrg.String()+"/inventory-items/"+it.ID.String()).Token(other.AccessToken).
		Do().ExpectError(http.StatusNotFound, "Inventory item not found")
}

func TestItemValidation(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	base := func(extra map[string]any) map[string]any {
		b := map[string]any{"name": "Flour", "category": "dry goods", "baseUnit": "lb"}
		for key, v := range extra {
			b[key] = v
		}
		return b
	}
	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"unknown base unit", base(map[string]any{"baseUnit": "bushel"}), "baseUnit"},
		{"declared unit of the base family", base(map[string]any{"units": []itemUnit{{"kg", "2.2"}}}), "units.0.name"},
		{"zero factor", base(map[string]any{"units": []itemUnit{{"bag", "0"}}}), "units.0.factor"},
		{"seven places", base(map[string]any{"units": []itemUnit{{"bag", "1.0000001"}}}), "units.0.factor"},
		{"duplicate unit", base(map[string]any{"units": []itemUnit{{"bag", "50"}, {"Bag", "25"}}}), "units.1.name"},
		{"unknown allergen", base(map[string]any{"allergens": map[string]string{"pollen": "contains"}}), "allergens"},
		{"bad allergen statement", base(map[string]any{"allergens": map[string]string{"milk": "maybe"}}), "allergens.milk"},
		{"par at an unknown site", base(map[string]any{"parLevels": []parLevel{{uuid.New(), "1", "0"}}}), "parLevels.0.siteId"},
		{"negative par", base(map[string]any{"parLevels": []parLevel{{k.site, "-1", "0"}}}), "parLevels.0.par"},
		{"par site twice", base(map[string]any{"parLevels": []parLevel{{k.site, "1", "0"}, {k.site, "2", "0"}}}), "parLevels.1.siteId"},
		{"blank name", base(map[string]any{"name": "  "}), "name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := k.env.With(t).Call(http.MethodPost, "orgs/"+k.org.String()+"/inventory-items").Token(k.owner.AccessToken).
				JSON(c.body).Do().ExpectCode(http.StatusBadRequest, apierr.CodeValidationFailed)
			if len(e.Details) == 0 || !strings.HasPrefix(e.Details[0].Field, c.field) {
				t.Fatalf("details %+v, want field %s", e.Details, c.field)
			}
		})
	}
	var n int
	if err := k.env.Pool.QueryRow(t.Context(), `SELECT count(*) FROM inventory_items WHERE org_id = $1`, k.org).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d items written by refused requests (%v)", n, err)
	}
	k.item(base(map[string]any{"sku": "FLR-1"}))
	k.call(http.MethodPost, "inventory-items").JSON(base(map[string]any{"sku": "flr-1"})).Do().ExpectError(http.StatusConflict, "SKU")
}

func TestItemListFilters(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	k.item(map[string]any{"name": "All-purpose flour", "sku": "FLR-AP", "category": "Dry goods", "baseUnit": "lb"})
	k.item(map[string]any{"name": "Bread flour", "category": "dry goods", "baseUnit": "lb", "active": false})
	k.item(map[string]any{"name": "Lemons", "sku": "PRD-LEM", "category": "produce", "baseUnit": "lb"})
	names := func(query string) string {
		var items []item
		k.call(http.MethodGet, "inventory-items"+query).Do().Expect(http.StatusOK).Decode(&items)
		var out []string
		for _, it := range items {
			out = append(out, it.Name)
		}
		return strings.Join(out, ",")
	}
	for query, want := range map[string]string{
		"":                                   "All-purpose flour,Bread flour,Lemons",
		"?q=FLOUR":                           "All-purpose flour,Bread flour",
		"?q=prd-":                            "Lemons",
		"?category=dry%20goods":              "All-purpose flour,Bread flour",
		"?active=true":                       "All-purpose flour,Lemons",
		"?active=false&category=DRY%20GOODS": "Bread flour",
		"?q=nothing":                         "",
	} {
		if got := names(query); got != want {
			t.Errorf("%q: %q, want %q", query, got, want)
		}
	}
	// Pages follow the Link header.
	res := k.call(http.MethodGet, "inventory-items?limit=2").Do().Expect(http.StatusOK)
	link := res.Header.Get("Link")
	start, end := strings.Index(link, "<"), strings.Index(link, ">")
	if start < 0 || end < 0 {
		t.Fatalf("Link %q", link)
	}
	next, err := url.Parse(link[start+1 : end])
	if err != nil {
		t.Fatal(err)
	}
	var page2 []item
	k.env.Call(http.MethodGet, next.RequestURI()).Token(k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&page2)
	if len(page2) != 1 || page2[0].Name != "Lemons" {
		t.Fatalf("page 2: %+v", page2)
	}
}

func TestItemReadAPI(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	it := k.item(map[string]any{"name": "Lemons", "category": "produce", "baseUnit": "lb",
		"units": []itemUnit{{"each", "0.25"}, {"case", "1.5"}}, "allergens": map[string]string{"citrus": "contains"},
		"parLevels": []parLevel{{k.site, "40", "15"}}})
	got, err := inventory.GetItem(t.Context(), db.New(k.env.Pool), k.org, it.ID)
	if err != nil {
		t.Fatal(err)
	}
	q, err := got.Units.ToBase(decimal.RequireFromString("2"), "case")
	if err != nil || !q.Equal(decimal.NewFromInt(3)) {
		t.Fatalf("2 case = %s lb, %v", q, err)
	}
	if _, err := got.Units.ToBase(decimal.NewFromInt(1), "cup"); err == nil || !strings.Contains(err.Error(), "Lemons") {
		t.Fatalf("cup of lemons: %v", err)
	}
	if got.Allergens["citrus"] != inventory.AllergenContains || len(got.ParLevels) != 1 || !got.AvgCost(k.site).IsZero() {
		t.Fatalf("item %+v", got)
	}
	if _, err := inventory.GetItem(t.Context(), db.New(k.env.Pool), uuid.New(), it.ID); err != inventory.ErrItemNotFound {
		t.Fatalf("another organization's item: %v", err)
	}
}

func TestItemScopeAndRoles(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	other := k.env.Site(k.owner.AccessToken, k.org, "Pastry")
	it := k.item(map[string]any{"name": "Lemons", "category": "produce", "baseUnit": "lb",
		"parLevels": []parLevel{{k.site, "40", "15"}, {other, "10", "5"}}})
	limited := k.env.Member(k.org, "manager", other)
	var got item
	k.as(limited, http.MethodGet, "inventory-items/"+it.ID.String()).Do().Expect(http.StatusOK).Decode(&got)
	if len(got.ParLevels) != 1 || got.ParLevels[0].SiteID != other {
		t.Fatalf("a member limited to Pastry sees par levels %+v", got.ParLevels)
	}
	// The catalog is organization-wide: members limited to some sites do not change it.
	k.as(limited, http.MethodPost, "inventory-items").JSON(map[string]any{"name": "X", "category": "x", "baseUnit": "g"}).
		Do().ExpectError(http.StatusForbidden, "")
	inspector := k.env.Member(k.org, "inspector")
	k.as(inspector, http.MethodPost, "inventory-items").JSON(map[string]any{"name": "X", "category": "x", "baseUnit": "g"}).
		Do().ExpectError(http.StatusForbidden, "")
	viewer := k.env.Member(k.org, "viewer")
	k.as(viewer, http.MethodGet, "inventory-items").Do().Expect(http.StatusOK)
	k.env.Call(http.MethodGet, "orgs/"+k.org.String()+"/inventory-items").Do().ExpectError(http.StatusUnauthorized, "")
}

func TestStorageLocations(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	pastry := k.env.Site(k.owner.AccessToken, k.org, "Pastry")
	var cooler location
	res := k.call(http.MethodPost, "storage-locations").JSON(map[string]any{"siteId": k.site, "name": "Walk-in cooler", "kind": "cooler", "minTempF": "33", "maxTempF": "41.5"}).
		Do().Expect(http.StatusCreated)
	res.Decode(&cooler)
	if cooler.Kind != "cooler" || *cooler.MinTempF != "33" || *cooler.MaxTempF != "41.5" || !cooler.Active || cooler.SiteID != k.site {
		t.Fatalf("created %+v", cooler)
	}
	k.location(pastry, "Walk-in cooler") // the same name at another site
	k.call(http.MethodPost, "storage-locations").JSON(map[string]any{"siteId": k.site, "name": "walk-in COOLER", "kind": "dry"}).
		Do().ExpectError(http.StatusConflict, "already exists")
	k.call(http.MethodPost, "storage-locations").JSON(map[string]any{"siteId": k.site, "name": "Freezer", "kind": "freezer", "minTempF": "10", "maxTempF": "0"}).
		Do().ExpectCode(http.StatusBadRequest, apierr.CodeValidationFailed)
	k.call(http.MethodPost, "storage-locations").JSON(map[string]any{"siteId": uuid.New(), "name": "Nowhere", "kind": "dry"}).
		Do().ExpectError(http.StatusNotFound, "Site not found")

	var locs []location
	k.call(http.MethodGet, "storage-locations?siteId="+k.site.String()).Do().Expect(http.StatusOK).Decode(&locs)
	if len(locs) != 1 || locs[0].ID != cooler.ID {
		t.Fatalf("site list %+v", locs)
	}
	k.call(http.MethodPut, "storage-locations/"+cooler.ID.String()).JSON(map[string]any{"name": "Cooler 1", "kind": "cooler", "active": false}).
		Do().Expect(http.StatusOK).Decode(&cooler)
	if cooler.Name != "Cooler 1" || cooler.Active || cooler.MinTempF != nil {
		t.Fatalf("updated %+v", cooler)
	}
	k.call(http.MethodGet, "storage-locations?active=true&siteId="+k.site.String()).Do().Expect(http.StatusOK).Decode(&locs)
	if len(locs) != 0 {
		t.Fatalf("active list %+v", locs)
	}

	// A member limited to Pastry sees Pastry's locations only; Main Kitchen's do not exist for them.
	limited := k.env.Member(k.org, "manager", pastry)
	k.as(limited, http.MethodGet, "storage-locations").Do().Expect(http.StatusOK).Decode(&locs)
	if len(locs) != 1 || locs[0].SiteID != pastry {
		t.Fatalf("limited list %+v", locs)
	}
	k.as(limited, http.MethodGet, "storage-locations/"+cooler.ID.String()).Do().ExpectError(http.StatusNotFound, "Storage location not found")
	k.as(limited, http.MethodPut, "storage-locations/"+cooler.ID.String()).JSON(map[string]any{"name": "Mine", "kind": "dry"}).
		Do().ExpectError(http.StatusNotFound, "Storage location not found")
	k.as(limited, http.MethodPost, "storage-locations").JSON(map[string]any{"siteId": k.site, "name": "Mine", "kind": "dry"}).
		Do().ExpectError(http.StatusNotFound, "")
	inspector := k.env.Member(k.org, "inspector")
	k.as(inspector, http.MethodPost, "storage-locations").JSON(map[string]any{"siteId": k.site, "name": "Mine", "kind": "dry"}).
		Do().ExpectError(http.StatusForbidden, "")
}
