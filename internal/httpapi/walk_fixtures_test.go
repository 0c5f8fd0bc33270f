package httpapi_test

import (
	"net/http"

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
	// Foods: an organization food (USDA's need an import, which the walk does not run).
	"getFood":              foodFixture,
	"updateFood":           foodFixture,
	"deleteFood":           foodFixture,
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
	"getRecipeNutrition": recipeFixture,
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
	"listWorkOrders":       func(w *walker) walkCall { return walkCall{ids: []string{w.workOrder()}} },
	"getWorkOrder":         workOrderFixture,
	"addWorkOrderPhoto":    workOrderFixture,
	"getWorkOrderPhoto":    workOrderPhotoFixture,
	"deleteWorkOrderPhoto": workOrderPhotoFixture,
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
