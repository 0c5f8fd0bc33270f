package records_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
)

type workOrder struct {
	ID             uuid.UUID  `json:"id"`
	SiteID         uuid.UUID  `json:"siteId"`
	EquipmentID    uuid.UUID  `json:"equipmentId"`
	Title          string     `json:"title"`
	Status         string     `json:"status"`
	Priority       string     `json:"priority"`
	ResolutionNote *string    `json:"resolutionNote"`
	AlertID        *uuid.UUID `json:"alertId"`
}

func (k *kitchen) equipment() uuid.UUID {
	k.t.Helper()
	var e struct {
		ID uuid.UUID `json:"id"`
	}
	k.create("equipment", map[string]any{"siteId": k.site, "name": "Walk-in cooler", "kind": "walk_in_cooler", "make": "Kolpak"}, &e)
	return e.ID
}

func TestWorkOrderStateMachine(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	rcv := k.receiver("work_order.resolved")
	staff := k.env.Member(k.org, "inspector", k.site)
	viewer := k.env.Member(k.org, "viewer", k.site)
	eq := k.equipment()
	var w workOrder
	k.call(http.MethodPost, "work-orders", viewer.AccessToken).JSON(map[string]any{"equipmentId": eq, "title": "Gasket"}).Do().ExpectError(http.StatusForbidden, "")
	k.call(http.MethodPost, "work-orders", staff.AccessToken).JSON(map[string]any{"equipmentId": uuid.New(), "title": "Gasket"}).Do().ExpectError(http.StatusNotFound, "Equipment not found")
	k.call(http.MethodPost, "work-orders", staff.AccessToken).JSON(map[string]any{"equipmentId": eq, "title": "Door gasket torn"}).Do().Expect(http.StatusCreated).Decode(&w)
	if w.Status != "open" || w.Priority != "medium" || w.SiteID != k.site {
		t.Fatalf("new %+v", w)
	}
	move := func(body map[string]any) *workOrder {
		var out workOrder
		k.call(http.MethodPost, "work-orders/"+w.ID.String()+"/status", staff.AccessToken).JSON(body).Do().Expect(http.StatusOK).Decode(&out)
		return &out
	}
	// open cannot jump to resolved; resolving needs a note.
	k.call(http.MethodPost, "work-orders/"+w.ID.String()+"/status", staff.AccessToken).JSON(map[string]any{"status": "resolved", "resolutionNote": "x"}).
		Do().ExpectCode(http.StatusConflict, "conflict")
	if got := move(map[string]any{"status": "in_progress"}); got.Status != "in_progress" {
		t.Fatalf("%+v", got)
	}
	k.call(http.MethodPost, "work-orders/"+w.ID.String()+"/status", staff.AccessToken).JSON(map[string]any{"status": "resolved"}).
		Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	got := move(map[string]any{"status": "resolved", "resolutionNote": "Gasket replaced."})
	if got.Status != "resolved" || *got.ResolutionNote != "Gasket replaced." {
		t.Fatalf("%+v", got)
	}
	k.call(http.MethodPost, "work-orders/"+w.ID.String()+"/status", staff.AccessToken).JSON(map[string]any{"status": "cancelled"}).
		Do().ExpectCode(http.StatusConflict, "conflict")
	d := rcv.deliveries("work_order.resolved")
	if len(d) != 1 || d[0]["workOrderId"] != w.ID.String() || d[0]["equipmentId"] != eq.String() || d[0]["siteId"] != k.site.String() {
		t.Fatalf("work_order.resolved %+v", d)
	}
}

// Of parallel moves from one state exactly one wins; the others are 409, and one event fires.
func TestParallelWorkOrderTransitions(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	rcv := k.receiver("work_order.resolved")
	eq := k.equipment()
	var w workOrder
	k.create("work-orders", map[string]any{"equipmentId": eq, "title": "Compressor noise", "priority": "high"}, &w)
	k.call(http.MethodPost, "work-orders/"+w.ID.String()+"/status", k.owner.AccessToken).JSON(map[string]any{"status": "in_progress"}).Do().Expect(http.StatusOK)
	const n = 12
	var wg sync.WaitGroup
	statuses := make([]int, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := map[string]any{"status": "resolved", "resolutionNote": "Fan replaced."}
			if i%2 == 1 {
				body = map[string]any{"status": "cancelled"}
			}
			statuses[i] = k.call(http.MethodPost, "work-orders/"+w.ID.String()+"/status", k.owner.AccessToken).JSON(body).Do().Status
		}()
	}
	wg.Wait()
	wins := 0
	for _, s := range statuses {
		switch s {
		case http.StatusOK:
			wins++
		case http.StatusConflict:
		default:
			t.Fatalf("status %d", s)
		}
	}
	if wins != 1 {
		t.Fatalf("%d winners of %d: %v", wins, n, statuses)
	}
	var final workOrder
	k.call(http.MethodGet, "work-orders/"+w.ID.String(), k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&final)
	want := 0
	if final.Status == "resolved" {
		want = 1
	}
	if d := rcv.deliveries("work_order.resolved"); len(d) != want {
		t.Fatalf("%d events for a work order %s", len(d), final.Status)
	}
}

func TestWorkOrderFromATemperatureAlert(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	staff := k.env.Member(k.org, "inspector", k.site)
	eq := k.equipment()
	alert := func(kind string) uuid.UUID {
		id := uuid.Must(uuid.NewV7())
		if _, err := k.env.Pool.Exec(t.Context(),
			`INSERT INTO alerts (id, org_id, site_id, kind, severity, message, subject_type, subject_id, occurrence, opened_at)
			 VALUES ($1, $2, $3, $4, 'warning', 'Walk-in cooler at 47°F', 'task', $5, $6, $6)`,
			id, k.org, k.site, kind, uuid.New(), k.env.Clock.Now()); err != nil {
			t.Fatal(err)
		}
		return id
	}
	ex := alert("temperature_excursion")
	var w workOrder
	k.call(http.MethodPost, "alerts/"+ex.String()+"/work-order", staff.AccessToken).JSON(map[string]any{"equipmentId": eq}).Do().Expect(http.StatusCreated).Decode(&w)
	if w.AlertID == nil || *w.AlertID != ex || w.EquipmentID != eq || w.Priority != "high" || w.Title != "Repair: Walk-in cooler at 47°F" {
		t.Fatalf("from alert %+v", w)
	}
	var again workOrder
	k.call(http.MethodPost, "alerts/"+ex.String()+"/work-order", staff.AccessToken).JSON(map[string]any{"equipmentId": eq}).Do().Expect(http.StatusOK).Decode(&again)
	if again.ID != w.ID {
		t.Fatalf("second work order %+v", again)
	}
	off := alert("sensor_offline")
	k.call(http.MethodPost, "alerts/"+off.String()+"/work-order", staff.AccessToken).JSON(map[string]any{"equipmentId": eq}).Do().ExpectCode(http.StatusConflict, "conflict")
	k.call(http.MethodPost, "alerts/"+uuid.NewString()+"/work-order", staff.AccessToken).JSON(map[string]any{"equipmentId": eq}).Do().ExpectError(http.StatusNotFound, "Alert not found")
	other := k.env.Site(k.owner.AccessToken, k.org, "Pastry")
	var e2 struct {
		ID uuid.UUID `json:"id"`
	}
	k.create("equipment", map[string]any{"siteId": other, "name": "Reach-in", "kind": "cooler"}, &e2)
	ex2 := alert("temperature_excursion")
	k.call(http.MethodPost, "alerts/"+ex2.String()+"/work-order", staff.AccessToken).JSON(map[string]any{"equipmentId": e2.ID}).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
}

func TestEquipmentSiteScope(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	pastry := k.env.Site(k.owner.AccessToken, k.org, "Pastry")
	mgr := k.env.Member(k.org, "manager", pastry)
	eq := k.equipment()
	k.call(http.MethodGet, "equipment/"+eq.String(), mgr.AccessToken).Do().ExpectError(http.StatusNotFound, "Equipment not found")
	k.call(http.MethodPut, "equipment/"+eq.String(), mgr.AccessToken).JSON(map[string]any{"siteId": pastry, "name": "Mine", "kind": "x"}).
		Do().ExpectError(http.StatusNotFound, "Equipment not found")
	var list []struct {
		ID uuid.UUID `json:"id"`
	}
	k.call(http.MethodGet, "equipment", mgr.AccessToken).Do().Expect(http.StatusOK).Decode(&list)
	if len(list) != 0 {
		t.Fatalf("list %+v", list)
	}
	var e struct {
		Name  string  `json:"name"`
		Model *string `json:"model"`
	}
	k.call(http.MethodPut, "equipment/"+eq.String(), k.owner.AccessToken).JSON(map[string]any{"siteId": k.site, "name": "Walk-in 1", "kind": "walk_in_cooler", "model": "P7"}).
		Do().Expect(http.StatusOK).Decode(&e)
	if e.Name != "Walk-in 1" || *e.Model != "P7" {
		t.Fatalf("updated %+v", e)
	}
}

func TestScanTagNamesEquipmentByID(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	eq := k.equipment()
	var tag struct {
		Code     string     `json:"code"`
		TargetID *uuid.UUID `json:"targetId"`
		SiteID   *uuid.UUID `json:"siteId"`
		Label    string     `json:"label"`
	}
	k.create("tags", map[string]any{"targetType": "equipment", "targetId": eq}, &tag)
	if tag.TargetID == nil || *tag.TargetID != eq || tag.SiteID == nil || *tag.SiteID != k.site || tag.Label != "Walk-in cooler" {
		t.Fatalf("tag %+v", tag)
	}
	var scan struct {
		Target struct {
			Type string    `json:"type"`
			ID   uuid.UUID `json:"id"`
		} `json:"target"`
	}
	k.call(http.MethodGet, "scan/"+tag.Code, k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&scan)
	if scan.Target.Type != "equipment" || scan.Target.ID != eq {
		t.Fatalf("scan %+v", scan)
	}
	k.call(http.MethodPost, "tags", k.owner.AccessToken).JSON(map[string]any{"targetType": "equipment", "targetId": uuid.New()}).Do().ExpectError(http.StatusNotFound, "Equipment not found")
	pastry := k.env.Site(k.owner.AccessToken, k.org, "Pastry")
	k.call(http.MethodPost, "tags", k.owner.AccessToken).JSON(map[string]any{"targetType": "equipment", "targetId": eq, "siteId": pastry}).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
}

func TestWorkOrderListPagesAndFilters(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	eq := k.equipment()
	var ids []uuid.UUID
	for _, title := range []string{"Gasket", "Fan", "Hinge"} {
		var w workOrder
		k.create("work-orders", map[string]any{"equipmentId": eq, "title": title}, &w)
		ids = append(ids, w.ID)
		k.advance(time.Minute)
	}
	k.call(http.MethodPost, "work-orders/"+ids[0].String()+"/status", k.owner.AccessToken).JSON(map[string]any{"status": "cancelled"}).Do().Expect(http.StatusOK)
	var seen []uuid.UUID
	path := "orgs/" + k.org.String() + "/work-orders?equipmentId=" + eq.String() + "&limit=2"
	for path != "" {
		res := k.env.Call(http.MethodGet, path).Token(k.owner.AccessToken).Do().Expect(http.StatusOK)
		var page []workOrder
		res.Decode(&page)
		for _, w := range page {
			seen = append(seen, w.ID)
		}
		path = ""
		if link := res.Header.Get("Link"); link != "" {
			if !strings.Contains(link, "equipmentId=") || !strings.Contains(link, "limit=2") {
				t.Fatalf("Link %q", link)
			}
			path = link[strings.Index(link, "/v1/")+4 : strings.Index(link, ">")]
		}
	}
	if len(seen) != 3 || seen[0] != ids[2] || seen[2] != ids[0] {
		t.Fatalf("pages %v, made %v", seen, ids)
	}
	var open []workOrder
	k.call(http.MethodGet, "work-orders?status=open", k.owner.AccessToken).Do().Expect(http.StatusOK).Decode(&open)
	if len(open) != 2 {
		t.Fatalf("open %+v", open)
	}
	k.call(http.MethodGet, "work-orders?cursor=bogus", k.owner.AccessToken).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
}

func TestEquipmentStandsInAStorageLocationOfItsSite(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	var loc, other struct {
		ID uuid.UUID `json:"id"`
	}
	k.create("storage-locations", map[string]any{"siteId": k.site, "name": "Walk-in", "kind": "cooler"}, &loc)
	pastry := k.env.Site(k.owner.AccessToken, k.org, "Pastry")
	k.create("storage-locations", map[string]any{"siteId": pastry, "name": "Pastry cooler", "kind": "cooler"}, &other)
	var e struct {
		LocationID *uuid.UUID `json:"locationId"`
	}
	k.create("equipment", map[string]any{"siteId": k.site, "name": "Evaporator", "kind": "evaporator", "locationId": loc.ID}, &e)
	if e.LocationID == nil || *e.LocationID != loc.ID {
		t.Fatalf("equipment %+v", e)
	}
	k.call(http.MethodPost, "equipment", k.owner.AccessToken).JSON(map[string]any{"siteId": k.site, "name": "Evaporator", "kind": "evaporator", "locationId": other.ID}).
		Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	k.call(http.MethodPost, "equipment", k.owner.AccessToken).JSON(map[string]any{"siteId": k.site, "name": "Evaporator", "kind": "evaporator", "locationId": uuid.New()}).
		Do().ExpectCode(http.StatusBadRequest, "validation_failed")
}
