package public_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// floorScan is the part of a scan the floor app works from.
type floorScan struct {
	Context struct {
		Tasks *[]struct {
			ID     uuid.UUID `json:"id"`
			Title  string    `json:"title"`
			DueAt  string    `json:"dueAt"`
			Status string    `json:"status"`
		} `json:"tasks"`
		Temperature *struct {
			SensorName string  `json:"sensorName"`
			ValueF     string  `json:"valueF"`
			MinF       *string `json:"minF"`
			MaxF       *string `json:"maxF"`
			InRange    bool    `json:"inRange"`
		} `json:"temperature"`
		Count *struct {
			ID    uuid.UUID `json:"id"`
			Lines []struct {
				ItemID     uuid.UUID `json:"itemId"`
				LocationID uuid.UUID `json:"locationId"`
				Quantity   string    `json:"quantity"`
			} `json:"lines"`
		} `json:"count"`
		Equipment *struct {
			ID         uuid.UUID `json:"id"`
			Name       string    `json:"name"`
			WorkOrders []struct {
				Title  string `json:"title"`
				Status string `json:"status"`
			} `json:"workOrders"`
		} `json:"equipment"`
	} `json:"context"`
}

func floorOf(env *apitest.Env, token string, orgID uuid.UUID, code string) (scanResult, floorScan) {
	env.T.Helper()
	res := env.Call(http.MethodGet, scanPath(orgID, code)).Token(token).Do().Expect(http.StatusOK)
	var r scanResult
	var f floorScan
	res.Decode(&r)
	if err := json.Unmarshal(res.Body, &f); err != nil {
		env.T.Fatal(err)
	}
	return r, f
}

func create(env *apitest.Env, token string, orgID uuid.UUID, path string, body any) uuid.UUID {
	env.T.Helper()
	var out struct {
		ID uuid.UUID `json:"id"`
	}
	env.Call(http.MethodPost, "orgs/"+orgID.String()+"/"+path).Token(token).JSON(body).Do().Expect(http.StatusCreated).Decode(&out)
	return out.ID
}

// A scan of the walk-in's tag answers, in one call, the work there: its tasks due by the end of
// the site's day (overdue first, none of another target's, none done, none due tomorrow), its
// live temperature, the open count sheet's lines for it, and exactly the actions each role may
// take; a scan of equipment answers its open work orders.
func TestScanAnswersTheWorkAtTheTarget(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview")
	tok := owner.AccessToken
	siteID := env.Site(tok, orgID, "Main Kitchen") // America/Chicago: 03:00 on 2 March 2026
	org := "/orgs/" + orgID.String()

	cooler := create(env, tok, orgID, "storage-locations", map[string]any{"siteId": siteID, "name": "Walk-in cooler", "kind": "cooler", "minTempF": "33", "maxTempF": "41"})
	milk := create(env, tok, orgID, "inventory-items", map[string]any{"name": "Whole milk", "category": "dairy", "baseUnit": "gal"})
	env.Call(http.MethodPost, "orgs/"+orgID.String()+"/stock/adjust").Token(tok).JSON(map[string]any{"siteId": siteID, "lines": []map[string]any{
		{"itemId": milk, "locationId": cooler, "quantity": "6", "unit": "gal", "reason": "opening_balance"}}}).Do().Expect(http.StatusOK)
	walkIn := createTag(env, tok, orgID, map[string]any{"targetType": "storage_location", "targetId": cooler, "label": "Walk-in cooler"})
	dry := createTag(env, tok, orgID, map[string]any{"targetType": "storage_location", "label": "Dry store", "siteId": siteID})

	task := func(title, due string, tagID uuid.UUID) uuid.UUID {
		return create(env, tok, orgID, "tasks", map[string]any{"siteId": siteID, "title": title, "kind": "temperature_log", "dueAt": due,
			"requiresScan": true, "requiresTemp": true, "tempRange": map[string]string{"minF": "33", "maxF": "41"}, "targetTagId": tagID})
	}
	overdue := task("Log the walk-in (yesterday)", "2026-03-01 18:00:00-06:00", walkIn.ID)
	today := task("Log the walk-in", "2026-03-02 06:00:00-06:00", walkIn.ID)
	late := task("Log the walk-in (close)", "2026-03-02 23:59:00-06:00", walkIn.ID)
	task("Log the walk-in (tomorrow)", "2026-03-03 00:00:00-06:00", walkIn.ID)
	task("Log the dry store", "2026-03-02 06:00:00-06:00", dry.ID)
	done := task("Log the walk-in (done)", "2026-03-02 05:00:00-06:00", walkIn.ID)
	env.Call(http.MethodPost, "orgs/"+orgID.String()+"/tasks/"+done.String()+"/complete").Token(tok).
		JSON(map[string]any{"scanCode": walkIn.Code, "temperature": map[string]string{"value": "38", "unit": "F"}}).Do().Expect(http.StatusOK)

	// The probe in the walk-in read 45 °F five minutes ago.
	gateway, gwToken := env.PairDevice(tok, orgID, siteID, "sensor_gateway")
	create(env, tok, orgID, "sensors", map[string]any{"name": "Walk-in probe", "gatewayDeviceId": gateway, "externalId": "probe-1",
		"kind": "temperature", "siteId": siteID, "storageLocationId": cooler})
	env.Call(http.MethodPost, "device/readings").DeviceToken(gwToken).JSON(map[string]any{"readings": []map[string]any{
		{"sensor": "probe-1", "at": env.Clock.Now().Add(-5 * time.Minute), "value": "45", "unit": "F"}}}).Do().Expect(http.StatusOK)

	count := create(env, tok, orgID, "counts", map[string]any{"siteId": siteID, "name": "Morning count", "locationIds": []uuid.UUID{cooler},
		"countedAt": env.Clock.Now().Add(-time.Hour)})
	env.Call(http.MethodPut, "orgs/"+orgID.String()+"/counts/"+count.String()+"/lines").Token(tok).JSON(map[string]any{"lines": []map[string]any{
		{"itemId": milk, "locationId": cooler, "quantity": "5", "unit": "gal"}}}).Do().Expect(http.StatusOK)

	viewer, staff, manager, admin := env.Member(orgID, "viewer"), env.Member(orgID, "inspector"), env.Member(orgID, "manager"), env.Member(orgID, "admin")
	r, f := floorOf(env, viewer.AccessToken, orgID, walkIn.Code)
	var titles []string
	for _, tk := range *f.Context.Tasks {
		titles = append(titles, tk.Title)
	}
	if got := len(titles); got != 3 || (*f.Context.Tasks)[0].ID != overdue || (*f.Context.Tasks)[1].ID != today || (*f.Context.Tasks)[2].ID != late {
		t.Fatalf("tasks %v", titles)
	}
	if tp := f.Context.Temperature; tp == nil || tp.SensorName != "Walk-in probe" || tp.ValueF != "45" || tp.InRange || *tp.MinF != "33" || *tp.MaxF != "41" {
		t.Fatalf("temperature %+v", tp)
	}
	if c := f.Context.Count; c == nil || c.ID != count || len(c.Lines) != 1 || c.Lines[0].ItemID != milk || c.Lines[0].Quantity != "5" {
		t.Fatalf("count %+v", c)
	}
	if r.actions() != "listStock,getSite" {
		t.Fatalf("viewer actions %s", r.actions())
	}

	tasks := "completeTask,addTaskPhoto,completeTask,addTaskPhoto,completeTask,addTaskPhoto,"
	for name, c := range map[string]struct {
		token, want string
	}{
		"staff":   {staff.AccessToken, tasks + "listStock,createCount,createWasteLog,setCountLines,getSite"},
		"manager": {manager.AccessToken, tasks + "listStock,createCount,createWasteLog,adjustStock,updateStorageLocation,setCountLines,closeCount,getSite,deleteTag"},
		"admin":   {admin.AccessToken, tasks + "listStock,createCount,createWasteLog,adjustStock,updateStorageLocation,setCountLines,closeCount,getSite,deleteTag"},
		"owner":   {tok, tasks + "listStock,createCount,createWasteLog,adjustStock,updateStorageLocation,setCountLines,closeCount,getSite,deleteTag"},
	} {
		r, _ := floorOf(env, c.token, orgID, walkIn.Code)
		if got := r.actions(); got != c.want {
			t.Errorf("%s: actions %s\nwant %s", name, got, c.want)
		}
		for _, a := range r.Actions {
			switch a.Action {
			case "completeTask":
				if a.Method != http.MethodPost || (a.Path != org+"/tasks/"+overdue.String()+"/complete" && a.Path != org+"/tasks/"+today.String()+"/complete" && a.Path != org+"/tasks/"+late.String()+"/complete") {
					t.Errorf("%s: %+v", name, a)
				}
			case "setCountLines":
				if a.Method != http.MethodPut || a.Path != org+"/counts/"+count.String()+"/lines" {
					t.Errorf("%s: %+v", name, a)
				}
			}
		}
	}

	// The staff member completes a task from the scan's action with the scan's code: it leaves the list.
	r, _ = floorOf(env, staff.AccessToken, orgID, walkIn.Code)
	env.Call(http.MethodPost, r.Actions[2].Path[1:]).Token(staff.AccessToken).
		JSON(map[string]any{"scanCode": walkIn.Code, "temperature": map[string]string{"value": "45", "unit": "F"}, "note": "Door was open; closed it."}).
		Do().Expect(http.StatusOK)
	if _, f := floorOf(env, staff.AccessToken, orgID, walkIn.Code); len(*f.Context.Tasks) != 2 {
		t.Fatalf("after completing: %d tasks", len(*f.Context.Tasks))
	}

	// The dry store's tag lists its own task only, and no temperature (no sensor there).
	if _, f := floorOf(env, viewer.AccessToken, orgID, dry.Code); len(*f.Context.Tasks) != 1 || (*f.Context.Tasks)[0].Title != "Log the dry store" || f.Context.Temperature != nil || f.Context.Count != nil {
		t.Fatalf("dry store %+v", f.Context)
	}

	// Equipment named by id: its open work orders, and "report a problem" from staff up.
	fryer := create(env, tok, orgID, "equipment", map[string]any{"siteId": siteID, "name": "Fryer 1", "kind": "fryer"})
	create(env, tok, orgID, "work-orders", map[string]any{"equipmentId": fryer, "title": "Thermostat sticks", "priority": "high"})
	eq := createTag(env, tok, orgID, map[string]any{"targetType": "equipment", "targetId": fryer})
	r, f = floorOf(env, staff.AccessToken, orgID, eq.Code)
	if e := f.Context.Equipment; e == nil || e.ID != fryer || e.Name != "Fryer 1" || len(e.WorkOrders) != 1 || e.WorkOrders[0].Title != "Thermostat sticks" || e.WorkOrders[0].Status != "open" {
		t.Fatalf("equipment %+v", f.Context.Equipment)
	}
	if r.actions() != "createWorkOrder,getSite" || len(*f.Context.Tasks) != 0 {
		t.Fatalf("staff on equipment: %s, %d tasks", r.actions(), len(*f.Context.Tasks))
	}
	if r, _ := floorOf(env, viewer.AccessToken, orgID, eq.Code); r.actions() != "getSite" {
		t.Fatalf("viewer on equipment: %s", r.actions())
	}

	// Another organization's member learns nothing of the tag; its own tags name nothing here.
	outsider, outsiderOrg := env.NewOwner("Elsewhere")
	env.Call(http.MethodGet, scanPath(outsiderOrg, walkIn.Code)).Token(outsider.AccessToken).Do().ExpectError(http.StatusNotFound, "Tag not found")
	env.Call(http.MethodGet, scanPath(orgID, walkIn.Code)).Token(outsider.AccessToken).Do().ExpectError(http.StatusNotFound, "Organization not found")
}
