package records_test

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/google/uuid"
)

type report struct {
	ID      uuid.UUID  `json:"id"`
	Scope   string     `json:"scope"`
	SiteID  *uuid.UUID `json:"siteId"`
	Content struct {
		Tasks struct {
			Due, Done, Late, Missed, Open int
		} `json:"tasks"`
		TemperatureExcursions int `json:"temperatureExcursions"`
		Inspections           struct {
			Completed      int     `json:"completed"`
			Failed         int     `json:"failed"`
			AveragePercent *string `json:"averagePercent"`
		} `json:"inspections"`
		OpenFindings []struct {
			Prompt string `json:"prompt"`
		} `json:"openFindings"`
		CertificationsExpiring []struct {
			CertificationID uuid.UUID `json:"certificationId"`
		} `json:"certificationsExpiring"`
		Waste *struct {
			Logs       int   `json:"logs"`
			ValueCents int64 `json:"valueCents"`
			ByReason   []struct {
				Reason     string `json:"reason"`
				Logs       int    `json:"logs"`
				ValueCents int64  `json:"valueCents"`
			} `json:"byReason"`
		} `json:"waste"`
	} `json:"content"`
}

func TestOperationsReportJSONAndPDF(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	rcv := k.receiver("report.published")
	cook := k.env.Member(k.org, "inspector", k.site)
	now := k.env.Clock.Now()
	day := func(d int) string { return now.AddDate(0, 0, d).Format("2006-01-02") }
	// What the report sums up: a failed inspection with an open finding, a manual task, a
	// certification expiring soon.
	in := k.inspection(nil)
	k.call(http.MethodPut, "inspections/"+in.ID.String()+"/responses", k.owner.AccessToken).JSON(map[string]any{"answers": []map[string]any{
		{"key": "walkin_temp", "temperatureF": "47"}, {"key": "labels", "passed": true}, {"key": "sani", "score": 5}}}).Do().Expect(http.StatusOK)
	k.call(http.MethodPost, "inspections/"+in.ID.String()+"/complete", k.owner.AccessToken).Do().Expect(http.StatusOK)
	k.call(http.MethodPost, "tasks", k.owner.AccessToken).JSON(map[string]any{"siteId": k.site, "title": "Descale the combi oven", "dueAt": now.Add(2 * 60 * 60 * 1e9).Format("2006-01-02T15:04:05Z")}).
		Do().Expect(http.StatusCreated)
	var cert certification
	k.create("certifications", map[string]any{"userId": cook.User.ID, "siteId": k.site, "kind": "food_handler", "issuedOn": day(-300), "expiresOn": day(20)}, &cert)
	// Waste: 10 lb of lemons received at $2.50/lb, 2 lb spoiled (500 cents), 1 lb dropped (250).
	var item, loc struct {
		ID uuid.UUID `json:"id"`
	}
	k.create("inventory-items", map[string]any{"name": "Lemons", "category": "produce", "baseUnit": "lb"}, &item)
	k.create("storage-locations", map[string]any{"name": "Walk-in", "siteId": k.site, "kind": "cooler"}, &loc)
	k.call(http.MethodPost, "stock/adjust", k.owner.AccessToken).JSON(map[string]any{"siteId": k.site, "lines": []map[string]any{
		{"itemId": item.ID, "locationId": loc.ID, "quantity": "10", "unit": "lb", "unitCostCents": 250, "reason": "receipt"}}}).Do().Expect(http.StatusOK)
	for _, w := range []struct{ qty, reason string }{{"2", "spoilage"}, {"1", "dropped"}} {
		k.call(http.MethodPost, "waste-logs", k.owner.AccessToken).JSON(map[string]any{"siteId": k.site, "locationId": loc.ID, "itemId": item.ID,
			"quantity": w.qty, "unit": "lb", "reason": w.reason}).Do().Expect(http.StatusCreated)
	}

	// Staff cannot generate; a site report needs its site.
	k.call(http.MethodPost, "reports", cook.AccessToken).JSON(map[string]any{"scope": "site", "siteId": k.site, "kind": "operations",
		"period": map[string]any{"from": day(-1), "to": day(1)}}).Do().ExpectError(http.StatusForbidden, "")
	k.call(http.MethodPost, "reports", k.owner.AccessToken).JSON(map[string]any{"scope": "site", "kind": "operations",
		"period": map[string]any{"from": day(-1), "to": day(1)}}).Do().ExpectCode(http.StatusBadRequest, "validation_failed")
	k.call(http.MethodPost, "reports", k.owner.AccessToken).JSON(map[string]any{"scope": "account", "kind": "operations",
		"period": map[string]any{"from": day(1), "to": day(-1)}}).Do().ExpectCode(http.StatusBadRequest, "validation_failed")

	var r report
	k.call(http.MethodPost, "reports", k.owner.AccessToken).JSON(map[string]any{"scope": "site", "siteId": k.site, "kind": "operations",
		"period": map[string]any{"from": day(-1), "to": day(1)}}).Do().Expect(http.StatusCreated).Decode(&r)
	c := r.Content
	// The finding's corrective task (open, due in 7 days) is outside the period; the manual task is in it.
	if c.Inspections.Completed != 1 || c.Inspections.Failed != 1 || c.Inspections.AveragePercent == nil || len(c.OpenFindings) != 1 ||
		c.Tasks.Due != 1 || c.Tasks.Open != 1 || len(c.CertificationsExpiring) != 1 || c.CertificationsExpiring[0].CertificationID != cert.ID {
		t.Fatalf("report %+v", r)
	}
	if w := c.Waste; w == nil || w.Logs != 2 || w.ValueCents != 750 || len(w.ByReason) != 2 ||
		w.ByReason[0].Reason != "dropped" || w.ByReason[0].ValueCents != 250 || w.ByReason[1].Reason != "spoilage" || w.ByReason[1].ValueCents != 500 {
		t.Fatalf("report waste %+v", c.Waste)
	}
	var acct report
	k.call(http.MethodPost, "reports", k.owner.AccessToken).JSON(map[string]any{"scope": "account", "kind": "operations",
		"period": map[string]any{"from": day(-1), "to": day(1)}}).Do().Expect(http.StatusCreated).Decode(&acct)
	if acct.SiteID != nil || acct.Scope != "account" {
		t.Fatalf("account report %+v", acct)
	}
	res := k.call(http.MethodGet, "reports/"+r.ID.String()+"/pdf", cook.AccessToken).Header("Accept", "application/pdf").Do().Expect(http.StatusOK)
	if !bytes.HasPrefix(res.Body, []byte("%PDF-")) || res.Header.Get("Content-Type") != "application/pdf" {
		t.Fatalf("pdf %q %q", res.Header.Get("Content-Type"), res.Body[:min(20, len(res.Body))])
	}
	if cd, want := res.Header.Get("Content-Disposition"), `attachment; filename="operations-report-`+day(-1)+"-to-"+day(1)+`.pdf"`; cd != want {
		t.Errorf("Content-Disposition %q, want %q", cd, want)
	}
	// A site-limited member sees the site report of their site, not the account report.
	limited := k.env.Member(k.org, "manager", k.site)
	k.call(http.MethodGet, "reports/"+acct.ID.String(), limited.AccessToken).Do().ExpectError(http.StatusNotFound, "Report not found")
	k.call(http.MethodGet, "reports/"+r.ID.String(), limited.AccessToken).Do().Expect(http.StatusOK)
	k.call(http.MethodPost, "reports", limited.AccessToken).JSON(map[string]any{"scope": "account", "kind": "operations",
		"period": map[string]any{"from": day(-1), "to": day(1)}}).Do().ExpectCode(http.StatusForbidden, "site_scope_exceeded")

	// Deliveries may arrive in any order.
	d := rcv.deliveries("report.published")
	if len(d) == 2 && d[0]["reportId"] == acct.ID.String() {
		d[0], d[1] = d[1], d[0]
	}
	if len(d) != 2 || d[0]["reportId"] != r.ID.String() || d[0]["scope"] != "site" || d[0]["siteId"] != k.site.String() ||
		d[1]["reportId"] != acct.ID.String() || d[1]["scope"] != "account" || d[1]["siteId"] != nil {
		t.Fatalf("report.published %+v", d)
	}
}
