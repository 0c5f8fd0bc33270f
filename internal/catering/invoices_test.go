package catering_test

import (
	"encoding/json"
	"net/http"
	"sync"
	"testing"
)

type invoice struct {
	ID           string `json:"id"`
	Kind         string `json:"kind"`
	Status       string `json:"status"`
	TotalCents   int64  `json:"totalCents"`
	PaidCents    int64  `json:"paidCents"`
	BalanceCents int64  `json:"balanceCents"`
	Lines        []struct {
		Description string `json:"description"`
		AmountCents int64  `json:"amountCents"`
	} `json:"lines"`
	Payments []struct {
		AmountCents int64 `json:"amountCents"`
	} `json:"payments"`
}

func (c *caterer) contract() quote {
	c.env.T.Helper()
	q := c.quote("2026-03-20")
	c.call(http.MethodPost, "catering/quotes/"+q.ID+"/accept").JSON(map[string]any{"name": "Maya Chen"}).Do().Expect(http.StatusOK)
	return q
}

func (c *caterer) invoice(quoteID, kind string) invoice {
	c.env.T.Helper()
	var inv invoice
	c.call(http.MethodPost, "catering/invoices").JSON(map[string]any{"quoteId": quoteID, "kind": kind}).Do().Expect(http.StatusCreated).Decode(&inv)
	return inv
}

func (c *caterer) pay(id string, cents int64) *invoice {
	c.env.T.Helper()
	var inv invoice
	res := c.call(http.MethodPost, "catering/invoices/"+id+"/payments").
		JSON(map[string]any{"amountCents": cents, "method": "card", "paidAt": "2026-03-05T16:00:00Z", "reference": "Visa 4242"}).Do()
	if res.Status != http.StatusCreated {
		return nil
	}
	res.Decode(&inv)
	return &inv
}

func TestDepositAndFinalInvoicesBillTheContractExactly(t *testing.T) {
	t.Parallel()
	c := newCaterer(t)
	rcv := newReceiver(t)
	secret := c.subscribe(rcv.URL+"/hooks", "catering.invoice_paid")
	draft := c.quote("2026-03-20")
	c.call(http.MethodPost, "catering/invoices").JSON(map[string]any{"quoteId": draft.ID, "kind": "deposit"}).Do().ExpectCode(http.StatusConflict, "quote_not_open")

	q := c.contract()
	dep := c.invoice(q.ID, "deposit")
	if dep.TotalCents != 227572 || dep.BalanceCents != 227572 || dep.Status != "open" {
		t.Fatalf("deposit %+v", dep)
	}
	c.call(http.MethodPost, "catering/invoices").JSON(map[string]any{"quoteId": q.ID, "kind": "deposit"}).Do().ExpectCode(http.StatusConflict, "conflict")

	// The public page shows lines, payments and balance.
	l := c.share("invoices", dep.ID)
	if l.URL != "https://app.sous.example/share/i/"+l.Token {
		t.Fatalf("url %s", l.URL)
	}
	// Overpaying is refused and records nothing.
	c.call(http.MethodPost, "catering/invoices/"+dep.ID+"/payments").JSON(map[string]any{"amountCents": 227573, "method": "card", "paidAt": "2026-03-05T16:00:00Z"}).Do().
		ExpectCode(http.StatusBadRequest, "validation_failed")
	if got := c.pay(dep.ID, 100000); got == nil || got.Status != "open" || got.BalanceCents != 127572 {
		t.Fatalf("partial payment %+v", got)
	}
	// While the deposit is open, a final invoice would bill its balance twice.
	c.call(http.MethodPost, "catering/invoices").JSON(map[string]any{"quoteId": q.ID, "kind": "final"}).Do().ExpectCode(http.StatusConflict, "invoice_not_open")
	// Voiding an invoice with payments is refused.
	c.call(http.MethodPost, "catering/invoices/"+dep.ID+"/void").Do().ExpectCode(http.StatusConflict, "invoice_not_open")
	if c.countEvents("catering.invoice_paid") != 0 {
		t.Fatal("invoice_paid before the balance reached zero")
	}
	paid := c.pay(dep.ID, 127572)
	if paid == nil || paid.Status != "paid" || paid.BalanceCents != 0 || len(paid.Payments) != 2 {
		t.Fatalf("final payment %+v", paid)
	}
	c.call(http.MethodPost, "catering/invoices/"+dep.ID+"/payments").JSON(map[string]any{"amountCents": 1, "method": "cash", "paidAt": "2026-03-05T16:00:00Z"}).Do().
		ExpectCode(http.StatusConflict, "invoice_not_open")
	var shared struct {
		Status       string `json:"status"`
		BalanceCents int64  `json:"balanceCents"`
		Payments     []any  `json:"payments"`
	}
	c.env.Call(http.MethodGet, "share/i/"+l.Token).Do().Expect(http.StatusOK).Decode(&shared)
	if shared.Status != "paid" || shared.BalanceCents != 0 || len(shared.Payments) != 2 {
		t.Fatalf("shared invoice %+v", shared)
	}

	// The final invoice bills the contract minus the deposit paid.
	final := c.invoice(q.ID, "final")
	if final.TotalCents != 758572-227572 || len(final.Lines) != 2 || final.Lines[1].AmountCents != -227572 {
		t.Fatalf("final %+v", final)
	}
	c.env.DrainWebhooks()
	hits := rcv.all()
	if len(hits) != 1 || !verify(secret, hits[0].body, hits[0].header.Get("x-service-signature")) {
		t.Fatalf("%d deliveries", len(hits))
	}
	var body struct {
		Event string         `json:"event"`
		Data  map[string]any `json:"data"`
	}
	_ = json.Unmarshal(hits[0].body, &body)
	if body.Event != "catering.invoice_paid" || body.Data["invoiceId"] != dep.ID || body.Data["eventId"] != c.event || body.Data["totalCents"] != float64(227572) {
		t.Fatalf("delivery %s", hits[0].body)
	}

	// A void invoice's link answers 404, and a new invoice of its kind can be made.
	fl := c.share("invoices", final.ID)
	c.call(http.MethodPost, "catering/invoices/"+final.ID+"/void").Do().Expect(http.StatusOK)
	c.env.Call(http.MethodGet, "share/i/"+fl.Token).Do().ExpectCode(http.StatusNotFound, "link_not_found")
	c.call(http.MethodPost, "catering/invoices/"+final.ID+"/share").Do().ExpectCode(http.StatusConflict, "invoice_not_open")
	c.invoice(q.ID, "final")
}

// N simultaneous payments that together would overpay: the invoice lock applies them one at a
// time, so exactly as many as fit the balance win, and invoice_paid fires once.
func TestParallelPaymentsNeverOverpay(t *testing.T) {
	t.Parallel()
	c := newCaterer(t)
	q := c.contract()
	dep := c.invoice(q.ID, "deposit") // 227,572 cents
	const n, each = 10, 50000         // 4 fit (200,000); a 5th would overpay
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = c.call(http.MethodPost, "catering/invoices/"+dep.ID+"/payments").
				JSON(map[string]any{"amountCents": each, "method": "card", "paidAt": "2026-03-05T16:00:00Z"}).Do().Status
		}()
	}
	wg.Wait()
	won := 0
	for _, s := range statuses {
		switch s {
		case http.StatusCreated:
			won++
		case http.StatusBadRequest:
		default:
			t.Fatalf("statuses %v", statuses)
		}
	}
	if won != 4 {
		t.Fatalf("%d payments won, want 4: %v", won, statuses)
	}
	if got := c.pay(dep.ID, 27572); got == nil || got.Status != "paid" || got.PaidCents != 227572 {
		t.Fatalf("settling payment %+v", got)
	}
	if c.countEvents("catering.invoice_paid") != 1 {
		t.Fatal("not exactly one invoice_paid")
	}
}
