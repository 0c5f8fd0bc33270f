package clinical_test

import (
	"slices"
	"testing"
	"time"
)

func TestDietOrdersFromOrderMessages(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	tok := h.owner.AccessToken
	const mrn = "110000001"
	h.ingest(visit{Event: "A01", Control: "ORD-0", MRN: mrn, Unit: "4W", Room: "412", Bed: "A", ODS: []string{odsNPO}}.epic())
	p, _ := byMRN(h.census(tok, ""), mrn)
	if !slices.Equal(p.Diets, []string{"npo"}) {
		t.Fatalf("diets %v", p.Diets)
	}

	// ORM^O01: a new regular diet with thin liquids and a supplement; the new diet supersedes NPO.
	r := h.ingest(dietOrderMsg("ORD-1", mrn, false,
		"ORC|NW|DIET-5566^EPIC|||||^^^20260302120000||20260302115900",
		"ODS|D|B~L~D|REG^Regular Diet^EPICDIET~THIN^Thin Liquids^EPICDIET|Patient prefers \\T\\ requests decaf",
		"ODS|S||ENSURE^Ensure Plus TID^EPICDIET",
	))
	if res := r.Results[0]; res.Outcome != "applied" || res.Detail.Action != "diet_ordered" || !*res.Detail.OrderCreated {
		t.Fatalf("order %+v", res)
	}
	p, _ = byMRN(h.census(tok, ""), mrn)
	if !slices.Equal(p.Diets, []string{"regular", "iddsi_drink_0", "oral_supplement"}) || len(p.DietOrders) != 2 || slices.Contains(p.Flags, "npo") {
		t.Fatalf("after NW: diets %v orders %+v flags %v", p.Diets, p.DietOrders, p.Flags)
	}
	o := p.DietOrders[0]
	if o.Source != "order" || o.Placer == nil || *o.Placer != "DIET-5566" || o.StartAt == nil ||
		!o.StartAt.Equal(time.Date(2026, 3, 2, 18, 0, 0, 0, time.UTC)) || !slices.Equal(o.Instructions, []string{"Patient prefers & requests decaf"}) {
		t.Fatalf("order %+v", o)
	}

	// OMD^O03 with TQ1: a dysphagia diet replaces the regular one; the supplement stays.
	r = h.ingest(dietOrderMsg("ORD-2", mrn, true,
		"ORC|NW|ORD-9911|||||||20260303065500",
		"TQ1|1||||||20260303080000",
		"ODS|D|B~L~D|DYS6^Dysphagia Soft \\T\\ Bite Sized^LOCAL~NECTAR^Nectar Thick Liquids^LOCAL~RENAL^Renal 2gm Na 2gm K^LOCAL|Cut meat small",
		"ODT|EARLY^Early tray^LOCAL|B|Dialysis at 0700",
	))
	if r.Results[0].Outcome != "applied" {
		t.Fatalf("omd %+v", r.Results[0])
	}
	p, _ = byMRN(h.census(tok, ""), mrn)
	if !slices.Equal(p.Diets, []string{"oral_supplement", "iddsi_food_6", "iddsi_drink_2", "renal", "low_sodium", "low_potassium"}) {
		t.Fatalf("after OMD: %v", p.Diets)
	}

	// Discontinuing an order by its placer number removes it.
	h.ingest(dietOrderMsg("ORD-3", mrn, false, "ORC|DC|DIET-5566^EPIC", "ODS|S||ENSURE^Ensure Plus TID^EPICDIET"))
	p, _ = byMRN(h.census(tok, ""), mrn)
	if len(p.DietOrders) != 1 || p.DietOrders[0].Placer == nil || *p.DietOrders[0].Placer != "ORD-9911" {
		t.Fatalf("after DC: %+v", p.DietOrders)
	}

	// An order for a patient the census does not know yet is kept for when the admission arrives.
	h.ingest(dietOrderMsg("ORD-4", "110000002", false, "ORC|NW|DIET-7|", "ODS|D||CCHO^Consistent carbohydrate^EPICDIET"))
	if _, ok := byMRN(h.census(tok, ""), "110000002"); ok {
		t.Fatal("an order alone does not admit")
	}
	h.ingest(visit{Event: "A01", Control: "ORD-5", MRN: "110000002", Unit: "4W", Room: "420", Bed: "B"}.epic())
	p, _ = byMRN(h.census(tok, ""), "110000002")
	if !slices.Equal(p.Diets, []string{"consistent_carbohydrate"}) {
		t.Fatalf("orders before the admission: %v", p.Diets)
	}
}
