package httpapi_test

import (
	"net/http"

	"github.com/google/uuid"
)

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
