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
	// raw, when set, is the body sent as is with rawType, in place of the examples (an upload
	// whose content matters, such as a CSV file).
	raw     []byte
	rawType string
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
	"listSensors":       sensorFixture,
	"createSensor":      func(w *walker) walkCall { return walkCall{body: w.sensorBody(w.gateway())} },
	"getSensor":         sensorFixture,
	"updateSensor":      sensorFixture,
	"getSensorReadings": sensorFixture,
	"getTemperatureLog": func(w *walker) walkCall {
		return walkCall{ids: []string{w.create("sensors", w.sensorBody(w.gateway()))}}
	},
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

	// Kitchen.
	"createRecipe":       func(w *walker) walkCall { return walkCall{body: w.recipeBody()} },
	"getRecipe":          recipeFixture,
	"listRecipeVersions": recipeFixture,
	"getRecipeVersion":   recipeFixture,
	"archiveRecipe":      recipeFixture,
	"updateRecipe":       func(w *walker) walkCall { fx := recipeFixture(w); fx.body = w.recipeBody(); return fx },
	"listMenus":          func(w *walker) walkCall { return walkCall{ids: []string{w.menu()}} },
	"createMenu":         func(w *walker) walkCall { return walkCall{body: w.menuBody()} },
	"getEffectiveMenu":   func(w *walker) walkCall { return walkCall{ids: []string{w.menu()}} },
	"getMenu":            menuFixture,
	"setMenuDate": func(w *walker) walkCall {
		fx := menuFixture(w)
		fx.body = map[string]any{"items": []map[string]any{{"dayPart": "lunch", "recipeId": w.recipe(), "portionsPerCover": "1"}}}
		return fx
	},
	"updateMenu":         func(w *walker) walkCall { fx := menuFixture(w); fx.body = w.menuBody(); return fx },
	"listForecasts":      func(w *walker) walkCall { return walkCall{ids: []string{w.forecast()}} },
	"upsertForecast":     func(w *walker) walkCall { w.dayParts(); return walkCall{body: w.forecastBody()} },
	"listProductionRuns": func(w *walker) walkCall { return walkCall{ids: []string{w.run()}} },
	"createProductionRun": func(w *walker) walkCall {
		return walkCall{body: map[string]any{"siteId": w.siteA, "date": "2030-01-07", "recipeId": w.recipe(), "portions": "10"}}
	},
	"generateProductionRuns": func(w *walker) walkCall {
		w.forecast()
		return walkCall{body: map[string]any{"siteId": w.siteA, "date": "2030-01-07"}}
	},
	"getProductionRun":         runFixture,
	"getBatchCard":             runFixture,
	"listProductionRunEvents":  runFixture,
	"setProductionRunStatus":   runFixture,
	"createProductionRunEvent": runFixture,
	"handoffProductionRun":     runFixture,
	"createLabels": func(w *walker) walkCall {
		run := w.run()
		return walkCall{body: map[string]any{"siteId": w.siteA, "format": "zpl", "template": "prep", "items": []map[string]any{{"runId": run, "count": 1}}}, ids: []string{run}}
	},

	// Tray line.
	"setDietRules": func(w *walker) walkCall {
		return walkCall{body: map[string]any{"limits": map[string]string{"sodiumMg": "600"}, "substituteRecipeId": w.recipe()}}
	},
	"generateTrayTickets": func(w *walker) walkCall {
		w.dayParts()
		w.patient()
		return walkCall{body: map[string]any{"siteId": w.siteA, "date": "2026-03-02", "dayPart": "lunch"}}
	},
	"listTrayTickets": func(w *walker) walkCall {
		id, _ := w.trayTicket("2026-03-03")
		return walkCall{ids: []string{id}}
	},
	"setTraySelections": func(w *walker) walkCall {
		id, recipe := w.trayTicket("2026-03-02")
		return walkCall{path: map[string]string{"id": id}, ids: []string{id}, body: map[string]any{"recipeIds": []string{recipe}}}
	},
	"setTrayStatus": func(w *walker) walkCall {
		id, _ := w.trayTicket("2026-03-02")
		return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
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
	// Purchasing.
	"createVendor": func(w *walker) walkCall {
		return walkCall{body: map[string]any{"name": "Walk vendor " + uuid.NewString()[:8]}}
	},
	"updateVendor": func(w *walker) walkCall {
		return walkCall{path: map[string]string{"id": w.vendor()}, body: map[string]any{"name": "Walk vendor " + uuid.NewString()[:8]}}
	},
	"listVendorItems": func(w *walker) walkCall { return walkCall{path: map[string]string{"id": w.vendor()}} },
	"createVendorItem": func(w *walker) walkCall {
		item := w.create("inventory-items", w.itemBody())
		return walkCall{path: map[string]string{"id": w.vendor()}, body: map[string]any{"itemId": item, "sku": "W-1", "packSize": "4", "packUnit": "each", "priceCents": 500}}
	},
	"importVendorGuide": func(w *walker) walkCall {
		body := w.itemBody()
		body["name"] = "Walk item " + uuid.NewString()[:8]
		w.create("inventory-items", body)
		return walkCall{path: map[string]string{"id": w.vendor()}, rawType: "text/csv",
			raw: []byte("sku,description,pack,pack_unit,price,item\nW-2,Walk,4,each,$5.00," + body["name"].(string) + "\n")}
	},
	"listPurchaseOrders": func(w *walker) walkCall { return walkCall{ids: []string{w.purchaseOrder(false)}} },
	"createPurchaseOrder": func(w *walker) walkCall {
		vendor, vi := w.vendorItem()
		return walkCall{body: map[string]any{"vendorId": vendor, "siteId": w.siteA, "lines": []map[string]any{{"vendorItemId": vi, "packs": "2"}}}}
	},
	"getPurchaseOrder":    func(w *walker) walkCall { return poFixture(w.purchaseOrder(false)) },
	"submitPurchaseOrder": func(w *walker) walkCall { return poFixture(w.purchaseOrder(false)) },
	"cancelPurchaseOrder": func(w *walker) walkCall { return poFixture(w.purchaseOrder(false)) },
	"closePurchaseOrder":  func(w *walker) walkCall { return poFixture(w.purchaseOrder(true)) },
	"receivePurchaseOrder": func(w *walker) walkCall {
		id := w.purchaseOrder(true)
		var po struct {
			Lines []struct{ ID string } `json:"lines"`
		}
		w.ownerCall(http.MethodGet, "purchase-orders/"+id).Do().Expect(http.StatusOK).Decode(&po)
		fx := poFixture(id)
		fx.body = map[string]any{"lines": []map[string]any{{"lineId": po.Lines[0].ID, "packs": "1", "locationId": w.location()}}}
		return fx
	},
	"createRequisition": func(w *walker) walkCall {
		item, from := w.stock()
		return walkCall{body: map[string]any{"siteId": w.siteA, "fromLocationId": from, "toLocationId": w.location(),
			"lines": []map[string]any{{"itemId": item, "quantity": "1", "unit": "lb"}}}}
	},
	"getCostVariance": func(w *walker) walkCall {
		var ids []string
		for range 2 {
			fx := countFixture(w)
			w.ownerCall(http.MethodPost, "counts/"+fx.path["id"]+"/close").Do().Expect(http.StatusOK)
			ids = append(ids, fx.ids...)
		}
		return walkCall{ids: ids}
	},
	"createRunRequisition": func(w *walker) walkCall {
		w.run()
		return walkCall{body: map[string]any{"siteId": w.siteA, "date": "2030-01-07", "fromLocationId": w.location(), "toLocationId": w.location()}}
	},
	"listRequisitions":   func(w *walker) walkCall { return reqFixture(w.requisition()) },
	"getRequisition":     func(w *walker) walkCall { return reqFixture(w.requisition()) },
	"submitRequisition":  func(w *walker) walkCall { return reqFixture(w.requisition()) },
	"cancelRequisition":  func(w *walker) walkCall { return reqFixture(w.requisition()) },
	"approveRequisition": func(w *walker) walkCall { return reqFixture(w.requisition("submit")) },
	"fulfillRequisition": func(w *walker) walkCall {
		fx := reqFixture(w.requisition("submit", "approve"))
		fx.body = map[string]any{}
		return fx
	},
	"requisitionToPurchaseOrders": func(w *walker) walkCall { return reqFixture(w.requisition("submit", "approve")) },
	"generateOrderList": func(w *walker) walkCall {
		w.orderList()
		return walkCall{body: map[string]any{"siteId": w.siteA, "from": "2026-03-02", "to": "2026-03-08", "basis": "par"}}
	},
	"listOrderLists":     func(w *walker) walkCall { id, _ := w.orderList(); return listFixture(id) },
	"getOrderList":       func(w *walker) walkCall { id, _ := w.orderList(); return listFixture(id) },
	"exportOrderList":    func(w *walker) walkCall { id, _ := w.orderList(); return listFixture(id) },
	"setOrderListStatus": func(w *walker) walkCall { id, _ := w.orderList(); return listFixture(id) },
	"updateOrderListLine": func(w *walker) walkCall {
		id, line := w.orderList()
		fx := listFixture(id)
		fx.path["lineId"] = line
		fx.body = map[string]any{"quantity": "20"}
		return fx
	},
	"listStock":     stockFixture,
	"listStockTxns": stockFixture,
	"listLots":      stockFixture,
	// Tasks and routines.
	"listTasks":    func(w *walker) walkCall { return walkCall{ids: []string{w.task()}} },
	"createTask":   func(w *walker) walkCall { return walkCall{body: w.taskBody()} },
	"getTask":      taskFixture,
	"completeTask": func(w *walker) walkCall { c := taskFixture(w); c.body = map[string]any{"note": "Done."}; return c },
	"reassignTask": func(w *walker) walkCall {
		c := taskFixture(w)
		c.body = map[string]any{"positionId": w.position()}
		return c
	},
	"addTaskPhoto":    taskFixture,
	"getTaskPhoto":    taskPhotoFixture,
	"deleteTaskPhoto": taskPhotoFixture,
	"setTaskDocs": func(w *walker) walkCall {
		c := taskFixture(w)
		c.body = map[string]any{"docIds": []string{w.guide()}}
		return c
	},
	"listRoutines":  func(w *walker) walkCall { return walkCall{ids: []string{w.routine()}} },
	"createRoutine": func(w *walker) walkCall { return walkCall{body: w.routineBody()} },
	"getRoutine":    routineFixture,
	"updateRoutine": func(w *walker) walkCall { c := routineFixture(w); c.body = w.routineBody(); return c },
	"runRoutineNow": routineFixture,
	"listPositions": func(w *walker) walkCall { return walkCall{ids: []string{w.position()}} },
	"updatePosition": func(w *walker) walkCall {
		id := w.position()
		return walkCall{path: map[string]string{"id": id}, ids: []string{id}, body: map[string]any{"siteId": w.siteA, "name": "Closing cook"}}
	},
	"setPositionMembers": func(w *walker) walkCall {
		id := w.position()
		return walkCall{path: map[string]string{"id": id}, ids: []string{id}, body: map[string]any{"userIds": []string{w.owner.User.ID.String()}}}
	},
	"listGuides": func(w *walker) walkCall { return walkCall{ids: []string{w.guide()}} },
	"getGuide":   guideFixture,
	"updateGuide": func(w *walker) walkCall {
		c := guideFixture(w)
		c.body = map[string]any{"title": "Cooler log", "body": "Probe the centre shelf.", "siteIds": []uuid.UUID{w.siteA}}
		return c
	},
	"listHuddles": func(w *walker) walkCall {
		return walkCall{ids: []string{w.create("huddles", map[string]any{"siteId": w.siteA, "date": "2026-03-02", "notes": "Walk huddle"})}}
	},
	"createHuddle": func(w *walker) walkCall {
		return walkCall{body: map[string]any{"siteId": w.siteA, "date": "2026-03-02", "notes": "Walk huddle",
			"actions": []map[string]any{{"title": "Call maintenance", "dueAt": "2026-03-02 11:00:00-06:00", "assignee": map[string]any{"positionId": w.position()}}}}}
	},

	// Catering.
	"updateCateringClient": func(w *walker) walkCall {
		return walkCall{path: map[string]string{"id": w.cateringClient()}}
	},
	"listCateringEvents": func(w *walker) walkCall { return walkCall{ids: []string{w.cateringEvent()}} },
	"createCateringEvent": func(w *walker) walkCall {
		return walkCall{body: w.cateringEventBody(w.cateringClient())}
	},
	"getCateringEvent":    cateringEventFixture,
	"updateCateringEvent": cateringEventFixture,
	"listCateringQuotes":  func(w *walker) walkCall { return walkCall{ids: []string{w.cateringQuote(false)}} },
	"createCateringQuote": func(w *walker) walkCall {
		return walkCall{body: cateringQuoteBody(w.cateringEvent())}
	},
	"getCateringQuote":     cateringQuoteFixture,
	"shareCateringQuote":   cateringQuoteFixture,
	"acceptCateringQuote":  cateringQuoteFixture,
	"declineCateringQuote": cateringQuoteFixture,
	"updateCateringQuote": func(w *walker) walkCall {
		fx := cateringQuoteFixture(w)
		var q struct {
			EventID string `json:"eventId"`
		}
		w.ownerCall(http.MethodGet, "catering/quotes/"+fx.path["id"]).Do().Expect(http.StatusOK).Decode(&q)
		fx.body = cateringQuoteBody(q.EventID)
		return fx
	},
	"listCateringInvoices": func(w *walker) walkCall { return walkCall{ids: []string{w.cateringInvoice()}} },
	"createCateringInvoice": func(w *walker) walkCall {
		q := w.cateringQuote(true)
		return walkCall{body: map[string]any{"quoteId": q, "kind": "deposit"}, ids: []string{q}}
	},
	"getCateringInvoice":   cateringInvoiceFixture,
	"voidCateringInvoice":  cateringInvoiceFixture,
	"shareCateringInvoice": cateringInvoiceFixture,
	"recordCateringPayment": func(w *walker) walkCall {
		fx := cateringInvoiceFixture(w)
		fx.body = map[string]any{"amountCents": 100, "method": "cash", "paidAt": "2026-03-02T09:00:00Z"}
		return fx
	},

	// Surveys.
	"listSurveys":             func(w *walker) walkCall { return walkCall{ids: []string{w.survey()}} },
	"getSurvey":               surveyFixture,
	"shareSurvey":             surveyFixture,
	"createSurveyInvitations": surveyFixture,
	"getSurveyResults":        surveyFixture,
	"updateSurvey": func(w *walker) walkCall {
		fx := surveyFixture(w)
		fx.body = w.surveyBody()
		return fx
	},

	// Operations records.
	"listPolicies": func(w *walker) walkCall { return walkCall{ids: []string{w.policy(false)}} },
	"createPolicy": func(w *walker) walkCall {
		return walkCall{body: map[string]any{"title": "Handwashing", "siteIds": []uuid.UUID{w.siteA}}}
	},
	"getPolicy":                  func(w *walker) walkCall { return policyFixture(w, true) },
	"acknowledgePolicy":          func(w *walker) walkCall { return policyFixture(w, true) },
	"listPolicyAcknowledgements": func(w *walker) walkCall { return policyFixture(w, true) },
	"createPolicyVersion": func(w *walker) walkCall {
		c := policyFixture(w, false)
		c.body = map[string]any{"body": "# Handwashing", "summary": "First."}
		return c
	},
	"publishPolicyVersion": func(w *walker) walkCall {
		c := policyFixture(w, false)
		c.path["version"] = "1"
		return c
	},
	"getInspectionTemplate":    templateFixture,
	"updateInspectionTemplate": func(w *walker) walkCall { c := templateFixture(w); c.body = walkTemplate(); return c },
	"createInspection": func(w *walker) walkCall {
		return walkCall{body: map[string]any{"templateId": w.template(), "siteId": w.siteA, "scheduledFor": "2026-03-02T14:00:00Z"}}
	},
	"listInspections":    func(w *walker) walkCall { return walkCall{ids: []string{w.inspection()}} },
	"getInspection":      inspectionFixture,
	"completeInspection": inspectionFixture,
	"shareInspection":    inspectionFixture,
	"setInspectionResponses": func(w *walker) walkCall {
		c := inspectionFixture(w)
		c.body = map[string]any{"answers": []map[string]any{{"key": "labels", "passed": true}}, "notes": "Walk notes."}
		return c
	},
	"listEngagements":    func(w *walker) walkCall { return walkCall{ids: []string{w.engagement()}} },
	"getEngagement":      engagementFixture,
	"finalizeEngagement": engagementFixture,
	"listEquipment":      func(w *walker) walkCall { return walkCall{ids: []string{w.equipment()}} },
	"getEquipment":       equipmentFixture,
	"updateEquipment": func(w *walker) walkCall {
		c := equipmentFixture(w)
		c.body = map[string]any{"siteId": w.siteA, "name": "Walk-in 2", "kind": "walk_in_cooler"}
		return c
	},
	"createWorkOrder": func(w *walker) walkCall {
		return walkCall{body: map[string]any{"equipmentId": w.equipment(), "title": "Door gasket torn"}}
	},
	"listWorkOrders": func(w *walker) walkCall { return walkCall{ids: []string{w.workOrder()}} },
	"getWorkOrder":   workOrderFixture,
	"transitionWorkOrder": func(w *walker) walkCall {
		c := workOrderFixture(w)
		c.body = map[string]any{"status": "in_progress"}
		return c
	},
	"createAlertWorkOrder": func(w *walker) walkCall {
		id := uuid.Must(uuid.NewV7())
		now := w.env.Clock.Now()
		if _, err := w.env.Pool.Exec(w.env.T.Context(),
			`INSERT INTO alerts (id, org_id, site_id, kind, severity, message, subject_type, subject_id, occurrence, opened_at)
			 VALUES ($1, $2, $3, 'temperature_excursion', 'warning', 'Walk-in cooler at 47°F', 'task', $4, $5, $5)`,
			id, w.orgID, w.siteA, uuid.New(), now); err != nil {
			w.env.T.Fatal(err)
		}
		return walkCall{path: map[string]string{"id": id.String()}, ids: []string{id.String()}, body: map[string]any{"equipmentId": w.equipment()}}
	},
	"listWalkthroughs": func(w *walker) walkCall { return walkCall{ids: []string{w.walkthrough()}} },
	"getWalkthrough":   walkthroughFixture,
	"createWalkthrough": func(w *walker) walkCall {
		return walkCall{body: map[string]any{"name": "Opening", "kind": "opening", "siteIds": []uuid.UUID{w.siteA},
			"steps": []map[string]any{{"key": "lights", "prompt": "Hood lights on", "answerKind": "check", "guideId": w.guide()}}}}
	},
	"startWalkthroughRun": func(w *walker) walkCall {
		c := walkthroughFixture(w)
		c.body = map[string]any{"siteId": w.siteA}
		return c
	},
	"getWalkthroughRun": walkthroughRunFixture,
	"setWalkthroughResponses": func(w *walker) walkCall {
		c := walkthroughRunFixture(w)
		c.body = map[string]any{"answers": []map[string]any{{"stepKey": "lights", "checked": true}}}
		return c
	},
	"submitWalkthroughRun": func(w *walker) walkCall {
		c := walkthroughRunFixture(w)
		w.ownerCall(http.MethodPut, "walkthrough-runs/"+c.path["id"]+"/responses").JSON(map[string]any{"answers": []map[string]any{{"stepKey": "lights", "checked": true}}}).
			Do().Expect(http.StatusOK)
		return c
	},
	"listCertifications": func(w *walker) walkCall { return walkCall{ids: []string{w.certification()}} },
	"createCertification": func(w *walker) walkCall {
		return walkCall{body: map[string]any{"userId": w.owner.User.ID, "siteId": w.siteA, "kind": "food_handler", "issuedOn": "2025-01-01", "expiresOn": "2028-01-01"}}
	},
	"getCertification": certificationFixture,
	"updateCertification": func(w *walker) walkCall {
		c := certificationFixture(w)
		c.body = map[string]any{"userId": w.owner.User.ID, "siteId": w.siteA, "kind": "food_handler", "issuedOn": "2025-01-01", "expiresOn": "2029-01-01"}
		return c
	},
	"listReports":  func(w *walker) walkCall { return walkCall{ids: []string{w.report()}} },
	"getReport":    reportFixture,
	"getReportPdf": reportFixture,
}

func recipeFixture(w *walker) walkCall { return walkCall{path: map[string]string{"id": w.recipe()}} }

func menuFixture(w *walker) walkCall {
	id := w.menu()
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

func runFixture(w *walker) walkCall {
	id := w.run()
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

// recipeBody is a recipe of one new inventory item.
func (w *walker) recipeBody() map[string]any {
	item := w.create("inventory-items", map[string]any{"name": "Walk rice " + uuid.NewString()[:8], "category": "dry goods", "baseUnit": "kg"})
	return map[string]any{"name": "Walk pilaf", "category": "side", "yield": map[string]string{"quantity": "10", "unit": "kg"},
		"portion": map[string]string{"quantity": "200", "unit": "g"}, "station": "hot line",
		"ingredients": []map[string]any{{"itemId": item, "quantity": "4", "unit": "kg"}}, "steps": []string{"Toast the rice."}}
}

func (w *walker) recipe() string { return w.create("recipes", w.recipeBody()) }

// dayParts gives site A a breakfast, lunch and dinner.
func (w *walker) dayParts() {
	w.env.T.Helper()
	w.ownerCall(http.MethodPut, "sites/"+w.siteA.String()).JSON(map[string]any{"name": "Walk-in", "timezone": "America/Chicago",
		"dayParts": []map[string]string{{"name": "breakfast", "start": "06:00", "end": "10:00"}, {"name": "lunch", "start": "11:00", "end": "14:00"},
			{"name": "dinner", "start": "17:00", "end": "20:00"}}}).Do().Expect(http.StatusOK)
}

// menuBody is a one-week menu at site A serving a new recipe on Mondays at lunch.
func (w *walker) menuBody() map[string]any {
	w.dayParts()
	return map[string]any{"siteId": w.siteA, "name": "Walk menu", "startsOn": "2026-03-02", "cycleWeeks": 1,
		"items": []map[string]any{{"week": 1, "weekday": 1, "dayPart": "lunch", "recipeId": w.recipe(), "portionsPerCover": "0.5"}}}
}

func (w *walker) menu() string { return w.create("menus", w.menuBody()) }

func (w *walker) forecastBody() map[string]any {
	return map[string]any{"siteId": w.siteA, "date": "2030-01-07", "dayPart": "lunch", "covers": 40}
}

// forecast sets a lunch forecast at site A (far ahead, so its day part has not started).
func (w *walker) forecast() string {
	w.dayParts()
	var f struct {
		ID string `json:"id"`
	}
	w.ownerCall(http.MethodPost, "forecasts").JSON(w.forecastBody()).Do().Expect(http.StatusOK).Decode(&f)
	return f.ID
}

// run makes an ad-hoc production run at site A.
func (w *walker) run() string {
	return w.create("production-runs", map[string]any{"siteId": w.siteA, "date": "2030-01-07", "recipeId": w.recipe(), "portions": "10"})
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

func cateringEventFixture(w *walker) walkCall {
	id := w.cateringEvent()
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}, body: w.cateringEventBody(w.cateringClient())}
}

func cateringQuoteFixture(w *walker) walkCall {
	id := w.cateringQuote(false)
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}, body: map[string]any{"name": "Maya Chen"}}
}

func cateringInvoiceFixture(w *walker) walkCall {
	id := w.cateringInvoice()
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

func surveyFixture(w *walker) walkCall {
	id := w.survey()
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}, body: map[string]any{"count": 1, "singleUse": true}}
}

func (w *walker) cateringClient() string {
	return w.create("catering/clients", map[string]any{"name": "Walk Client"})
}

func (w *walker) cateringEventBody(client string) map[string]any {
	return map[string]any{"clientId": client, "siteId": w.siteA, "name": "Walk reception", "startsAt": "2026-06-13T23:00:00Z",
		"endsAt": "2026-06-14T03:00:00Z", "guestCount": 40}
}

func (w *walker) cateringEvent() string {
	return w.create("catering/events", w.cateringEventBody(w.cateringClient()))
}

func cateringQuoteBody(event string) map[string]any {
	return map[string]any{"eventId": event, "serviceChargeBps": 2000, "taxRateBps": 1025, "depositPercent": 30, "validUntil": "2026-12-31",
		"terms": "Deposit secures the date.", "lines": []map[string]any{{"kind": "food", "description": "Plated dinner", "quantity": "40", "unitPriceCents": 3450, "taxable": true}}}
}

// cateringQuote drafts a quote for a new event at site A; accepted makes it the contract.
func (w *walker) cateringQuote(accepted bool) string {
	id := w.create("catering/quotes", cateringQuoteBody(w.cateringEvent()))
	if accepted {
		w.ownerCall(http.MethodPost, "catering/quotes/"+id+"/accept").JSON(map[string]any{"name": "Walk Client"}).Do().Expect(http.StatusOK)
	}
	return id
}

func (w *walker) cateringInvoice() string {
	return w.create("catering/invoices", map[string]any{"quoteId": w.cateringQuote(true), "kind": "deposit"})
}

func (w *walker) surveyBody() map[string]any {
	return map[string]any{"name": "Walk survey", "siteId": w.siteA, "status": "open", "thankYouMessage": "Thanks!",
		"questions": []map[string]any{{"key": "food", "type": "rating", "prompt": "How was the food?", "required": true}}}
}

func (w *walker) survey() string { return w.create("surveys", w.surveyBody()) }

func webhookFixture(w *walker) walkCall {
	id := w.create("webhooks", map[string]any{"url": "https://hooks.harborview-kitchens.example/sous", "events": []string{"alert.created"}})
	return walkCall{path: map[string]string{"id": id}}
}

func deviceFixture(w *walker) walkCall {
	id := w.create("devices", map[string]any{"name": "Walk wallboard", "kind": "wallboard_boh", "siteId": w.siteA})
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

// gateway registers a sensor gateway at site A.
func (w *walker) gateway() string {
	return w.create("devices", map[string]any{"name": "Walk gateway", "kind": "sensor_gateway", "siteId": w.siteA})
}

func (w *walker) sensorBody(gateway string) map[string]any {
	return map[string]any{"name": "Walk probe", "gatewayDeviceId": gateway, "externalId": "probe-" + uuid.NewString()[:8],
		"kind": "temperature", "siteId": w.siteA, "maxTempF": "41"}
}

func sensorFixture(w *walker) walkCall {
	body := w.sensorBody(w.gateway())
	id := w.create("sensors", body)
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}, body: body}
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

func taskFixture(w *walker) walkCall {
	id := w.task()
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

func taskPhotoFixture(w *walker) walkCall {
	id := w.task()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	part, _ := mw.CreateFormFile("file", "walk.png")
	_, _ = part.Write(onePixelPNG)
	_ = mw.Close()
	var out struct {
		MediaID string `json:"mediaId"`
	}
	w.ownerCall(http.MethodPost, "tasks/"+id+"/photos").Raw(mw.FormDataContentType(), buf.Bytes()).Do().Expect(http.StatusCreated).Decode(&out)
	return walkCall{path: map[string]string{"id": id, "mediaId": out.MediaID}, ids: []string{id, out.MediaID}}
}

func routineFixture(w *walker) walkCall {
	id := w.routine()
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

func guideFixture(w *walker) walkCall {
	id := w.guide()
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

func (w *walker) taskBody() map[string]any {
	return map[string]any{"siteId": w.siteA, "title": "Descale the combi oven", "kind": "maintenance", "dueAt": "2026-03-02 14:00:00-06:00",
		"assignee": map[string]any{"positionId": w.position()}, "linkedDocIds": []string{w.guide()}}
}

// task makes a manual task at site A and returns its id.
func (w *walker) task() string { return w.create("tasks", w.taskBody()) }

func (w *walker) position() string {
	return w.create("positions", map[string]any{"siteId": w.siteA, "name": "Opening cook"})
}

func (w *walker) guide() string {
	return w.create("guides", map[string]any{"title": "Cooler log", "body": "Probe the centre shelf.", "siteIds": []uuid.UUID{w.siteA}})
}

func (w *walker) routineBody() map[string]any {
	tag, _ := w.tag()
	return map[string]any{"siteId": w.siteA, "name": "Cooler temperatures", "rrule": "FREQ=DAILY;BYHOUR=6,10,14,18;BYMINUTE=0",
		"items": []map[string]any{{"title": "Log walk-in cooler temperature", "kind": "temperature_log", "requiresScan": true, "targetTagId": tag,
			"requiresTemp": true, "tempRange": map[string]any{"minF": "33", "maxF": "41"}, "linkedDocIds": []string{w.guide()},
			"assignee": map[string]any{"positionId": w.position()}}}}
}

func (w *walker) routine() string { return w.create("routines", w.routineBody()) }

// trayTicket admits a patient at site A and generates the lunch tickets of date, with a menu
// serving a new recipe at Monday lunch; it returns the patient's ticket and the recipe.
func (w *walker) trayTicket(date string) (ticketID, recipeID string) {
	w.env.T.Helper()
	w.dayParts()
	recipeID = w.recipe()
	w.create("menus", map[string]any{"siteId": w.siteA, "name": "Walk patient menu", "startsOn": "2026-03-02", "cycleWeeks": 1,
		"items": []map[string]any{{"week": 1, "weekday": 1, "dayPart": "lunch", "recipeId": recipeID, "portionsPerCover": "1"}}})
	// Site A may have several menus from other fixtures: the one in force decides.
	var eff struct {
		Items []struct {
			RecipeID string `json:"recipeId"`
		} `json:"items"`
	}
	w.ownerCall(http.MethodGet, "menus/effective?siteId="+w.siteA.String()+"&date=2026-03-02&dayPart=lunch").Do().Expect(http.StatusOK).Decode(&eff)
	if len(eff.Items) > 0 {
		recipeID = eff.Items[0].RecipeID
	}
	patient, _ := w.patient()
	w.ownerCall(http.MethodPost, "tray-tickets/generate").JSON(map[string]any{"siteId": w.siteA, "date": date, "dayPart": "lunch"}).Do().Expect(http.StatusOK)
	var tickets []struct {
		ID        string `json:"id"`
		PatientID string `json:"patientId"`
	}
	w.ownerCall(http.MethodGet, "tray-tickets?siteId="+w.siteA.String()+"&date="+date+"&dayPart=lunch").Do().Expect(http.StatusOK).Decode(&tickets)
	for _, t := range tickets {
		if t.PatientID == patient {
			return t.ID, recipeID
		}
	}
	w.env.T.Fatalf("fixture: no tray ticket for patient %s", patient)
	return "", ""
}

func policyFixture(w *walker, published bool) walkCall {
	id := w.policy(published)
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

// policy makes a policy for site A with a draft version 1, published when asked.
func (w *walker) policy(published bool) string {
	id := w.create("policies", map[string]any{"title": "Handwashing", "siteIds": []uuid.UUID{w.siteA}})
	w.ownerCall(http.MethodPost, "policies/"+id+"/versions").JSON(map[string]any{"body": "# Handwashing"}).Do().Expect(http.StatusCreated)
	if published {
		w.ownerCall(http.MethodPost, "policies/"+id+"/versions/1/publish").Do().Expect(http.StatusOK)
	}
	return id
}

func walkTemplate() map[string]any {
	return map[string]any{"name": "Walk inspection", "sections": []map[string]any{{"title": "Cold holding", "items": []map[string]any{
		{"key": "labels", "prompt": "Containers labelled", "kind": "pass_fail"}}}}}
}

func (w *walker) template() string { return w.create("inspection-templates", walkTemplate()) }

func templateFixture(w *walker) walkCall {
	return walkCall{path: map[string]string{"id": w.template()}}
}

// inspection schedules an inspection at site A.
func (w *walker) inspection() string {
	return w.create("inspections", map[string]any{"templateId": w.template(), "siteId": w.siteA, "scheduledFor": "2026-03-02T14:00:00Z"})
}

func inspectionFixture(w *walker) walkCall {
	id := w.inspection()
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

func (w *walker) engagement() string {
	return w.create("engagements", map[string]any{"name": "Walk audit", "siteIds": []uuid.UUID{w.siteA}, "auditor": "Walk LLC",
		"period": map[string]any{"from": "2026-01-01", "to": "2026-03-31"}})
}

func engagementFixture(w *walker) walkCall {
	id := w.engagement()
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

func (w *walker) equipment() string {
	return w.create("equipment", map[string]any{"siteId": w.siteA, "name": "Walk-in cooler", "kind": "walk_in_cooler"})
}

func equipmentFixture(w *walker) walkCall {
	id := w.equipment()
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

func (w *walker) workOrder() string {
	return w.create("work-orders", map[string]any{"equipmentId": w.equipment(), "title": "Door gasket torn"})
}

func workOrderFixture(w *walker) walkCall {
	id := w.workOrder()
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

func (w *walker) walkthrough() string {
	return w.create("walkthroughs", map[string]any{"name": "Opening", "kind": "opening", "siteIds": []uuid.UUID{w.siteA},
		"steps": []map[string]any{{"key": "lights", "prompt": "Hood lights on", "answerKind": "check"}}})
}

func walkthroughFixture(w *walker) walkCall {
	id := w.walkthrough()
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

func walkthroughRunFixture(w *walker) walkCall {
	id := w.create("walkthroughs/"+w.walkthrough()+"/runs", map[string]any{"siteId": w.siteA})
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

func (w *walker) certification() string {
	return w.create("certifications", map[string]any{"userId": w.owner.User.ID, "siteId": w.siteA, "kind": "food_handler",
		"issuedOn": "2025-01-01", "expiresOn": "2028-01-01"})
}

func certificationFixture(w *walker) walkCall {
	id := w.certification()
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

func (w *walker) report() string {
	return w.create("reports", map[string]any{"scope": "site", "siteId": w.siteA, "kind": "operations", "period": map[string]any{"from": "2026-03-01", "to": "2026-03-31"}})
}

func reportFixture(w *walker) walkCall {
	id := w.report()
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

// vendor creates a vendor and returns its id.
func (w *walker) vendor() string {
	w.env.T.Helper()
	return w.create("vendors", map[string]any{"name": "Walk vendor " + uuid.NewString()[:8]})
}

// vendorItem creates a vendor selling a new item by 4 each a pack, and returns both ids.
func (w *walker) vendorItem() (vendor, vendorItem string) {
	w.env.T.Helper()
	vendor = w.vendor()
	item := w.create("inventory-items", w.itemBody())
	return vendor, w.create("vendors/"+vendor+"/items", map[string]any{"itemId": item, "sku": "W-1", "packSize": "4", "packUnit": "each", "priceCents": 500})
}

// purchaseOrder drafts (and, if submitted, submits) a purchase order at site A; returns its id.
func (w *walker) purchaseOrder(submitted bool) string {
	w.env.T.Helper()
	vendor, vi := w.vendorItem()
	id := w.create("purchase-orders", map[string]any{"vendorId": vendor, "siteId": w.siteA, "lines": []map[string]any{{"vendorItemId": vi, "packs": "2"}}})
	if submitted {
		w.ownerCall(http.MethodPost, "purchase-orders/"+id+"/submit").Do().Expect(http.StatusOK)
	}
	return id
}

func poFixture(id string) walkCall {
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

// requisition creates a requisition at site A moving 1 lb of stocked, preferred-vendor-bought
// lemons, takes it through steps, and returns its id.
func (w *walker) requisition(steps ...string) string {
	w.env.T.Helper()
	item, from := w.stock()
	vendor := w.vendor()
	w.create("vendors/"+vendor+"/items", map[string]any{"itemId": item, "sku": "W-1", "packSize": "4", "packUnit": "each", "priceCents": 500, "preferred": true})
	id := w.create("requisitions", map[string]any{"siteId": w.siteA, "fromLocationId": from, "toLocationId": w.location(),
		"lines": []map[string]any{{"itemId": item, "quantity": "1", "unit": "lb"}}})
	for _, s := range steps {
		w.ownerCall(http.MethodPost, "requisitions/"+id+"/"+s).Do().Expect(http.StatusOK)
	}
	return id
}

func reqFixture(id string) walkCall {
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}

// orderList generates an order list at site A for an item below par bought through a
// preferred vendor item, and returns its id and its line's.
func (w *walker) orderList() (id, line string) {
	w.env.T.Helper()
	w.requisition()
	var out struct {
		ID    string `json:"id"`
		Lines []struct {
			ID      string `json:"id"`
			Include bool   `json:"include"`
		} `json:"lines"`
	}
	w.ownerCall(http.MethodPost, "order-lists/generate").JSON(map[string]any{"siteId": w.siteA, "from": "2026-03-02", "to": "2026-03-08", "basis": "par"}).
		Do().Expect(http.StatusCreated).Decode(&out)
	for _, l := range out.Lines {
		if l.Include {
			return out.ID, l.ID
		}
	}
	w.env.T.Fatalf("order list %s without an included line", out.ID)
	return "", ""
}

func listFixture(id string) walkCall {
	return walkCall{path: map[string]string{"id": id}, ids: []string{id}}
}
