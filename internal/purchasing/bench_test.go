package purchasing_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// benchBuyer makes an organization with n items (lb, case = 28.75 lb) with a par of 100 at the
// site and a preferred vendor item each, written by SQL (setup, not what is measured).
func benchBuyer(b *testing.B, n int) (*buyer, vendor, []uuid.UUID) {
	env := apitest.New(b)
	owner, org := env.NewOwner("Bench Kitchens")
	site := env.Site(owner.AccessToken, org, "Main Kitchen")
	by := &buyer{env: env, owner: owner, org: org, site: site}
	var l struct{ ID uuid.UUID }
	env.Call(http.MethodPost, "orgs/"+org.String()+"/storage-locations").Token(owner.AccessToken).
		JSON(map[string]any{"siteId": site, "name": "Walk-in", "kind": "cooler"}).Do().Expect(http.StatusCreated).Decode(&l)
	by.loc = l.ID
	var v vendor
	env.Call(http.MethodPost, "orgs/"+org.String()+"/vendors").Token(owner.AccessToken).JSON(map[string]any{"name": "Bench vendor"}).
		Do().Expect(http.StatusCreated).Decode(&v)
	ctx := b.Context()
	if _, err := env.Pool.Exec(ctx, `
		WITH i AS (
		  INSERT INTO inventory_items (id, org_id, name, sku, category, base_unit, units, created_at, updated_at)
		  SELECT gen_random_uuid(), $1, 'Item ' || g, 'SKU-' || g, 'produce', 'lb', '[{"name":"case","factor":"28.75"}]', now(), now()
		  FROM generate_series(1, $4::int) g RETURNING id, sku),
		p AS (INSERT INTO inventory_par_levels (org_id, item_id, site_id, par, reorder_point) SELECT $1, id, $2, 100, 50 FROM i)
		INSERT INTO vendor_items (id, org_id, vendor_id, item_id, sku, pack_size, pack_unit, price_cents, preferred, created_at, updated_at)
		SELECT gen_random_uuid(), $1, $3, id, 'V-' || sku, 1, 'case', 4250, true, now(), now() FROM i`, org, site, v.ID, n); err != nil {
		b.Fatal(err)
	}
	rows, err := env.Pool.Query(ctx, `SELECT id FROM vendor_items WHERE org_id = $1 ORDER BY sku`, org)
	if err != nil {
		b.Fatal(err)
	}
	var vis []uuid.UUID
	for rows.Next() {
		var id uuid.UUID
		_ = rows.Scan(&id)
		vis = append(vis, id)
	}
	return by, v, vis
}

// BenchmarkReceive200LinePO: receiving a submitted 200-line order in full, through HTTP.
func BenchmarkReceive200LinePO(b *testing.B) {
	benchReceive200(b, func(l map[string]any) { l["lot"] = map[string]any{"code": "B-" + uuid.NewString()[:8]} })
}

// BenchmarkReceive200LinePOGeneratedLots: the same receipt naming no lot codes, so that each
// line makes a lot of its own with a generated code.
func BenchmarkReceive200LinePOGeneratedLots(b *testing.B) {
	benchReceive200(b, func(map[string]any) {})
}

// benchReceive200 times receiving a submitted 200-line order in full, each line shaped by lot.
func benchReceive200(b *testing.B, lot func(map[string]any)) {
	by, v, vis := benchBuyer(b, 200)
	by.t = nil
	lines := make([]map[string]any, len(vis))
	for i, id := range vis {
		lines[i] = map[string]any{"vendorItemId": id, "packs": "2"}
	}
	for b.Loop() {
		b.StopTimer()
		var p po
		by.call(http.MethodPost, "purchase-orders").JSON(map[string]any{"vendorId": v.ID, "siteId": by.site, "lines": lines}).Do().Expect(http.StatusCreated).Decode(&p)
		by.call(http.MethodPost, "purchase-orders/"+p.ID.String()+"/submit").Do().Expect(http.StatusOK)
		recv := make([]any, len(p.Lines))
		for i, l := range p.Lines {
			line := map[string]any{"lineId": l.ID, "packs": "2", "locationId": by.loc}
			lot(line)
			recv[i] = line
		}
		body := mustJSON(map[string]any{"lines": recv})
		b.StartTimer()
		by.raw(b, http.MethodPost, "purchase-orders/"+p.ID.String()+"/receive", "application/json", body)
	}
}

// BenchmarkOrderList2000Items: generating a par-basis order list over 2,000 items.
func BenchmarkOrderList2000Items(b *testing.B) {
	by, _, _ := benchBuyer(b, 2000)
	body := mustJSON(map[string]any{"siteId": by.site, "from": "2026-03-02", "to": "2026-03-08", "basis": "par"})
	for b.Loop() {
		by.raw(b, http.MethodPost, "order-lists/generate", "application/json", body)
	}
}

// BenchmarkImportGuide10000Rows: a 10,000-row guide into a vendor without items (all created).
func BenchmarkImportGuide10000Rows(b *testing.B) {
	by, _, _ := benchBuyer(b, 2000)
	var csv strings.Builder
	csv.WriteString("sku,description,pack,pack_unit,price,item\r\n")
	for i := range 10000 {
		fmt.Fprintf(&csv, "G-%05d,\"Item %d, fancy\",1,case,\"$1,2%02d.50\",Item %d\r\n", i, i%2000+1, i%100, i%2000+1)
	}
	body := []byte(csv.String())
	n := 0
	for b.Loop() {
		b.StopTimer()
		n++
		var v vendor
		by.call(http.MethodPost, "vendors").JSON(map[string]any{"name": fmt.Sprintf("Guide vendor %d", n)}).Do().Expect(http.StatusCreated).Decode(&v)
		b.StartTimer()
		var r importResult
		if err := json.Unmarshal(by.raw(b, http.MethodPost, "vendors/"+v.ID.String()+"/import-guide", "text/csv", body), &r); err != nil || r.Created != 10000 {
			b.Fatalf("created %d", r.Created)
		}
	}
}

// raw sends a request without the response validation of apitest (which, for a response of
// hundreds of lines, costs more than the server does), so the timer holds the round trip only.
func (by *buyer) raw(b *testing.B, method, path, contentType string, body []byte) []byte {
	req, err := http.NewRequest(method, by.env.URL+"/v1/orgs/"+by.org.String()+"/"+path, bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+by.owner.AccessToken)
	req.Header.Set("Content-Type", contentType)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		b.Fatalf("%s %s: %d %s", method, path, res.StatusCode, out)
	}
	return out
}

func mustJSON(v any) []byte {
	out, _ := json.Marshal(v)
	return out
}
