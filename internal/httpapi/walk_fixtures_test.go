package httpapi_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// walker is the organization the authorization walk runs in: an owner, the first site (A),
// where every fixture is made, and a second site (B), to which the walk's site-limited members
// are limited.
type walker struct {
	env          *apitest.Env
	owner        apitest.Session
	orgID        uuid.UUID
	siteA, siteB uuid.UUID
}

// walkCall is what a fixture prepared for one call of an operation.
type walkCall struct {
	// path holds values for path parameters; the walk's org and site A fill orgId and siteId,
	// and any other parameter left out gets a fresh id (or its example).
	path map[string]string
	// body replaces the operation's example body (JSON); nil keeps the example, with its siteId
	// and siteIds naming site A.
	body any
	// ids are the resources the fixture made at site A: a member limited to site B must never
	// see them (nor site A's id) in any response.
	ids []string
	// siteless marks a site-scoped write whose audit row names no site, because what it writes
	// (a membership, an invitation) may span sites; its entries are for members with every site.
	siteless bool
}

// walkFixture prepares, at site A and as the owner, what one call of an operation acts on.
// It runs afresh before each call that may succeed, so a call may consume what it was given.
type walkFixture func(w *walker) walkCall

// walkFixtures gives every operation that acts on an existing resource (an id in its path or
// body) that resource. The walk fails for an operation whose call by the minimum role does not
// succeed, so a new operation of that kind fails until its fixture is added here.
var walkFixtures = map[string]walkFixture{
	// Lists: something of site A that a member limited to site B must not find in them.
	"listMembers": func(w *walker) walkCall {
		m := w.env.Member(w.orgID, "viewer", w.siteA)
		return walkCall{ids: []string{m.User.ID.String()}}
	},
	"listInvitations": func(w *walker) walkCall {
		return walkCall{ids: []string{w.create("invitations", map[string]any{"email": apitest.NewEmail(), "role": "viewer", "siteIds": []uuid.UUID{w.siteA}})}}
	},
	"listTags": func(w *walker) walkCall {
		id, _ := w.tag()
		return walkCall{ids: []string{id}}
	},
	"listMedia": func(w *walker) walkCall { return walkCall{ids: []string{w.media()}} },

	// Members and invitations.
	"updateMember": func(w *walker) walkCall {
		m := w.env.Member(w.orgID, "viewer", w.siteA)
		return walkCall{path: map[string]string{"userId": m.User.ID.String()}, ids: []string{m.User.ID.String()}, siteless: true}
	},
	"removeMember": func(w *walker) walkCall {
		m := w.env.Member(w.orgID, "viewer", w.siteA)
		return walkCall{path: map[string]string{"userId": m.User.ID.String()}, ids: []string{m.User.ID.String()}, siteless: true}
	},
	"createInvitation": func(*walker) walkCall { return walkCall{siteless: true} },
	"revokeInvitation": func(w *walker) walkCall {
		id := w.create("invitations", map[string]any{"email": apitest.NewEmail(), "role": "viewer", "siteIds": []uuid.UUID{w.siteA}})
		return walkCall{path: map[string]string{"id": id}, ids: []string{id}, siteless: true}
	},

	// API keys and webhooks.
	"revokeApiKey": func(w *walker) walkCall {
		return walkCall{path: map[string]string{"id": w.create("api-keys", map[string]any{"name": "Walk key"})}}
	},
	"updateWebhook":         webhookFixture,
	"deleteWebhook":         webhookFixture,
	"listWebhookDeliveries": webhookFixture,
	"testWebhook":           webhookFixture,

	// Tags.
	"createTag": func(w *walker) walkCall {
		return walkCall{body: map[string]any{"targetType": "equipment", "label": "Walk-in cooler", "siteId": w.siteA}}
	},
	"deleteTag": func(w *walker) walkCall {
		id, _ := w.tag()
		return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
	},
	"resolveScan": func(w *walker) walkCall {
		id, code := w.tag()
		return walkCall{path: map[string]string{"tagCode": code}, ids: []string{id}}
	},

	// Devices and media.
	"getDevice":         deviceFixture,
	"updateDevice":      deviceFixture,
	"deleteDevice":      deviceFixture,
	"createPairingCode": deviceFixture,
	"revokeDevice":      deviceFixture,
	"castToDevice":      deviceFixture,
	"clearDeviceCast":   deviceFixture,
	"deleteMedia": func(w *walker) walkCall {
		key := w.media()
		return walkCall{path: map[string]string{"key": key}, ids: []string{key}}
	},

	// Clinical.
	"getPatient": func(w *walker) walkCall {
		p, _ := w.patient()
		return walkCall{path: map[string]string{"patientId": p}, ids: []string{p}}
	},
	"listUnmappedCodes": func(w *walker) walkCall {
		// A code only site A's patient carries: a member limited to site B must not see it.
		code := w.unmappedCode()
		return walkCall{ids: []string{code}}
	},
	"createSignoff": func(w *walker) walkCall {
		p, order := w.patient()
		return walkCall{body: map[string]any{"patientId": p, "dietOrderId": order, "note": "Please confirm."}, ids: []string{p}}
	},
	"getSignoff":    signoffFixture,
	"decideSignoff": signoffFixture,

	// Alerts.
	"resolveAlert": func(w *walker) walkCall {
		id := uuid.Must(uuid.NewV7())
		now := w.env.Clock.Now()
		if _, err := w.env.Pool.Exec(w.env.T.Context(),
			`INSERT INTO alerts (id, org_id, site_id, kind, severity, message, subject_type, subject_id, occurrence, opened_at)
			 VALUES ($1, $2, $3, 'sensor_offline', 'warning', 'Walk gateway is silent', 'device', $4, $5, $5)`,
			id, w.orgID, w.siteA, uuid.New(), now); err != nil {
			w.env.T.Fatal(err)
		}
		return walkCall{path: map[string]string{"id": id.String()}, ids: []string{id.String()}}
	},

	// Supply.
	"createInventoryItem": func(w *walker) walkCall { return walkCall{body: w.itemBody()} },
	"getInventoryItem":    itemFixture,
	"updateInventoryItem": func(w *walker) walkCall {
		fx := itemFixture(w)
		fx.body = w.itemBody()
		return fx
	},
	"listStorageLocations": func(w *walker) walkCall { return walkCall{ids: []string{w.location()}} },
	"getStorageLocation":   locationFixture,
	"updateStorageLocation": func(w *walker) walkCall {
		fx := locationFixture(w)
		fx.body = map[string]any{"name": "Walk freezer " + uuid.NewString()[:8], "kind": "freezer"}
		return fx
	},
	"adjustStock": func(w *walker) walkCall {
		item, loc := w.create("inventory-items", w.itemBody()), w.location()
		return walkCall{body: map[string]any{"siteId": w.siteA, "lines": []map[string]any{{"itemId": item, "locationId": loc, "quantity": "2",
			"unit": "each", "reason": "receipt", "unitCostCents": 35, "lot": map[string]any{"code": "WALK-1", "expiresOn": "2026-04-01"}}}}, ids: []string{loc}}
	},
	"createCount": func(w *walker) walkCall {
		loc := w.location()
		return walkCall{body: map[string]any{"siteId": w.siteA, "name": "Walk count", "locationIds": []string{loc}, "countedAt": w.env.Clock.Now()}}
	},
	"listCounts": func(w *walker) walkCall {
		fx := countFixture(w)
		return walkCall{ids: fx.ids}
	},
	"getCount":      countFixture,
	"setCountLines": countFixture,
	"closeCount":    countFixture,
	"createWasteLog": func(w *walker) walkCall {
		item, loc := w.stock()
		return walkCall{body: map[string]any{"siteId": w.siteA, "locationId": loc, "itemId": item, "quantity": "1", "unit": "each", "reason": "spoilage"}, ids: []string{loc}}
	},
	"listWasteLogs": func(w *walker) walkCall { return walkCall{ids: []string{w.waste()}} },
	"getWasteLog": func(w *walker) walkCall {
		id := w.waste()
		return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
	},
	"listStock":     stockFixture,
	"listStockTxns": stockFixture,
	"listLots":      stockFixture,
}

// stockFixture receives stock at a location of site A, in a lot.
func stockFixture(w *walker) walkCall {
	_, loc := w.stock()
	return walkCall{ids: []string{loc}}
}

// stock receives 1 lb of a new item at a new location of site A, in a lot, and returns both.
func (w *walker) stock() (item, loc string) {
	w.env.T.Helper()
	item, loc = w.create("inventory-items", w.itemBody()), w.location()
	w.ownerCall(http.MethodPost, "stock/adjust").JSON(map[string]any{"siteId": w.siteA, "lines": []map[string]any{{"itemId": item, "locationId": loc,
		"quantity": "1", "unit": "lb", "reason": "receipt", "lot": map[string]any{"code": "WALK-" + uuid.NewString()[:6]}}}}).Do().Expect(http.StatusOK)
	return item, loc
}

// countFixture opens a count at site A with a line, for the sheet's operations.
func countFixture(w *walker) walkCall {
	item, loc := w.stock()
	id := w.create("counts", map[string]any{"siteId": w.siteA, "name": "Walk count", "locationIds": []string{loc}, "countedAt": w.env.Clock.Now()})
	w.ownerCall(http.MethodPut, "counts/"+id+"/lines").JSON(map[string]any{"lines": []map[string]any{{"itemId": item, "locationId": loc, "quantity": "3", "unit": "each"}}}).
		Do().Expect(http.StatusOK)
	return walkCall{path: map[string]string{"id": id}, ids: []string{id, loc},
		body: map[string]any{"lines": []map[string]any{{"itemId": item, "locationId": loc, "quantity": "2", "unit": "each"}}}}
}

// waste logs a waste of site A's stock and returns its id.
func (w *walker) waste() string {
	item, loc := w.stock()
	return w.create("waste-logs", map[string]any{"siteId": w.siteA, "locationId": loc, "itemId": item, "quantity": "1", "unit": "each", "reason": "trim"})
}

func itemFixture(w *walker) walkCall {
	id := w.create("inventory-items", w.itemBody())
	return walkCall{path: map[string]string{"id": id}}
}

func locationFixture(w *walker) walkCall {
	id := w.location()
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

// itemBody is an inventory item with a par level at site A.
func (w *walker) itemBody() map[string]any {
	return map[string]any{"name": "Walk lemons", "category": "produce", "baseUnit": "lb",
		"units":     []map[string]any{{"name": "each", "factor": "0.25"}},
		"parLevels": []map[string]any{{"siteId": w.siteA, "par": "40", "reorderPoint": "15"}}}
}

// location creates a storage location at site A and returns its id.
func (w *walker) location() string {
	w.env.T.Helper()
	return w.create("storage-locations", map[string]any{"siteId": w.siteA, "name": "Walk cooler " + uuid.NewString()[:8], "kind": "cooler"})
}

func webhookFixture(w *walker) walkCall {
	id := w.create("webhooks", map[string]any{"url": "https://hooks.harborview-kitchens.example/sous", "events": []string{"alert.created"}})
	return walkCall{path: map[string]string{"id": id}}
}

func deviceFixture(w *walker) walkCall {
	id := w.create("devices", map[string]any{"name": "Walk wallboard", "kind": "wallboard_boh", "siteId": w.siteA})
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

func signoffFixture(w *walker) walkCall {
	p, order := w.patient()
	id := w.create("signoffs", map[string]any{"patientId": p, "dietOrderId": order, "note": "Please confirm."})
	return walkCall{path: map[string]string{"id": id}, ids: []string{id, p}}
}

// create makes a resource of the organization as the owner and returns its id.
func (w *walker) create(collection string, body any) string {
	w.env.T.Helper()
	var out struct {
		ID string `json:"id"`
	}
	w.ownerCall(http.MethodPost, collection).JSON(body).Do().Expect(http.StatusCreated).Decode(&out)
	return out.ID
}

func (w *walker) ownerCall(method, path string) *apitest.Request {
	return w.env.Call(method, "orgs/"+w.orgID.String()+"/"+path).Token(w.owner.AccessToken)
}

// tag prints a tag for equipment at site A and returns its id and code.
func (w *walker) tag() (id, code string) {
	w.env.T.Helper()
	var out struct {
		ID   string `json:"id"`
		Code string `json:"code"`
	}
	w.ownerCall(http.MethodPost, "tags").JSON(map[string]any{"targetType": "equipment", "label": "Walk-in cooler", "siteId": w.siteA}).
		Do().Expect(http.StatusCreated).Decode(&out)
	return out.ID, out.Code
}

// media uploads an image for site A's boards and returns its key.
func (w *walker) media() string {
	w.env.T.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("siteId", w.siteA.String())
	part, _ := mw.CreateFormFile("file", "walk.png")
	_, _ = part.Write(onePixelPNG)
	_ = mw.Close()
	var out struct {
		Key string `json:"key"`
	}
	w.ownerCall(http.MethodPost, "media").Raw(mw.FormDataContentType(), buf.Bytes()).Do().Expect(http.StatusCreated).Decode(&out)
	return out.Key
}

// admit admits a new patient at site A with a diet order (and the extra ODS segments given)
// and returns the patient's id and the order's.
func (w *walker) admit(extra ...string) (patientID, dietOrderID string) {
	w.env.T.Helper()
	n := uuid.NewString()[:8]
	msg := "MSH|^~\\&|EPIC|HMC|SOUS|SOUS|20260302083000||ADT^A01|WALK" + n + "|P|2.5.1\r" +
		"EVN|A01|20260302083000\r" +
		"PID|1||W" + n + "^^^HMC^MR||DOE^JANE||19800412|F\r" +
		"PV1|1|I|4W^412^A\r" +
		"ODS|D||CCHO^Consistent Carbohydrate^EPICDIET\r" + strings.Join(extra, "")
	var res struct {
		Results []struct {
			Outcome string `json:"outcome"`
			Detail  struct {
				PatientID string `json:"patientId"`
			} `json:"detail"`
		} `json:"results"`
	}
	w.ownerCall(http.MethodPost, "adt/hl7").JSON(map[string]any{"siteId": w.siteA, "message": msg}).
		Do().Expect(http.StatusOK).Decode(&res)
	if len(res.Results) != 1 || res.Results[0].Outcome != "applied" {
		w.env.T.Fatalf("fixture admission: %+v", res)
	}
	var patient struct {
		DietOrders []struct {
			ID string `json:"id"`
		} `json:"dietOrders"`
	}
	w.ownerCall(http.MethodGet, "patients/"+res.Results[0].Detail.PatientID).Do().Expect(http.StatusOK).Decode(&patient)
	if len(patient.DietOrders) == 0 {
		w.env.T.Fatalf("fixture patient has no diet order")
	}
	return res.Results[0].Detail.PatientID, patient.DietOrders[0].ID
}

func (w *walker) patient() (patientID, dietOrderID string) {
	w.env.T.Helper()
	return w.admit()
}

// unmappedCode admits a patient at site A carrying a diet code nothing recognises, and returns
// the code.
func (w *walker) unmappedCode() string {
	w.env.T.Helper()
	code := fmt.Sprintf("WALKSITEA%s", strings.ToUpper(uuid.NewString()[:6]))
	w.admit("ODS|D||" + code + "^Walk diet^LOCAL\r")
	return code
}
