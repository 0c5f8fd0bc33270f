package kitchen_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// pdfText reads the text of an uncompressed PDF back, in order, each piece with the base font
// it is set in.
func pdfText(t *testing.T, doc []byte) []struct{ Font, Text string } {
	t.Helper()
	s := string(doc)
	if !strings.HasPrefix(s, "%PDF-") {
		t.Fatalf("not a PDF: %.20q", s)
	}
	objects := map[string]string{}
	for _, m := range regexp.MustCompile(`(\d+) 0 obj\s*<</Type /Font\s*/BaseFont /(\S+)`).FindAllStringSubmatch(s, -1) {
		objects[m[1]] = m[2]
	}
	fonts := map[string]string{}
	for _, m := range regexp.MustCompile(`/(F\w+) (\d+) 0 R`).FindAllStringSubmatch(s, -1) {
		fonts[m[1]] = objects[m[2]]
	}
	var out []struct{ Font, Text string }
	font := ""
	for _, m := range regexp.MustCompile(`/(F\w+) [\d.]+ Tf|\(((?:\\.|[^\\)])*)\)\s*Tj`).FindAllStringSubmatch(s, -1) {
		if m[1] != "" {
			font = fonts[m[1]]
			continue
		}
		out = append(out, struct{ Font, Text string }{font, strings.NewReplacer(`\(`, "(", `\)`, ")", `\\`, `\`).Replace(m[2])})
	}
	return out
}

func TestLabels(t *testing.T) {
	t.Parallel()
	k := newKitchen(t)
	p := k.pie()
	var r run
	k.call(http.MethodPost, "production-runs").JSON(map[string]any{"siteId": k.site, "date": "2026-03-02", "recipeId": p.pie.ID, "portions": "40"}).
		Do().Expect(http.StatusCreated).Decode(&r)
	k.call(http.MethodPost, "production-runs/"+r.ID.String()+"/status").JSON(map[string]string{"status": "prepped"}).Do().Expect(http.StatusOK)
	var initials string
	for _, w := range strings.Fields(k.owner.User.Name) {
		initials += strings.ToUpper(w[:1])
	}

	res := k.call(http.MethodPost, "labels").JSON(map[string]any{"siteId": k.site, "format": "pdf", "template": "use_by",
		"items": []map[string]any{{"runId": r.ID, "count": 2}, {"recipeId": p.veloute.ID, "count": 1}}}).Do().Expect(http.StatusOK)
	if ct := res.Header.Get("Content-Type"); ct != "application/pdf" {
		t.Fatalf("content type %q", ct)
	}
	chicago, _ := time.LoadLocation("America/Chicago") // the site's zone
	if cd, want := res.Header.Get("Content-Disposition"), `attachment; filename="use-by-labels-`+k.env.Clock.Now().In(chicago).Format(time.DateOnly)+`.pdf"`; cd != want {
		t.Errorf("Content-Disposition %q, want %q", cd, want)
	}
	text := pdfText(t, res.Body)
	var lines []string
	for _, x := range text {
		lines = append(lines, x.Text)
		if strings.HasPrefix(x.Text, "Contains:") && x.Font != "Helvetica-Bold" {
			t.Errorf("contains line in %s, want bold", x.Font)
		}
		if strings.HasPrefix(x.Text, "May contain:") && x.Font != "Helvetica" {
			t.Errorf("may-contain line in %s", x.Font)
		}
	}
	all := strings.Join(lines, "\n")
	// Prepared when the run left planned (03:00 at the site), used by 72 hours later.
	pie := "USE BY: Chicken pot pie\nPrepared: Mon 2 Mar 03:00\nUse by: Thu 5 Mar 03:00\nBy: " + initials + "\nContains: gluten, milk, wheat\nMay contain: egg, mustard"
	if strings.Count(all, pie) != 2 || !strings.Contains(all, "USE BY: Velout") || !strings.Contains(all, "Contains: gluten, milk, wheat\nMay contain: mustard") {
		t.Fatalf("labels:\n%s", all)
	}

	res = k.call(http.MethodPost, "labels").JSON(map[string]any{"siteId": k.site, "format": "zpl", "template": "allergen", "size": "4x2",
		"items": []map[string]any{{"runId": r.ID, "count": 3}}}).Do().Expect(http.StatusOK)
	zpl := string(res.Body)
	if strings.Count(zpl, "^XA") != 3 || strings.Count(zpl, "^XZ") != 3 || !strings.Contains(zpl, "^FDALLERGENS: Chicken pot pie^FS") ||
		!strings.Contains(zpl, "^FDContains: gluten, milk, wheat^FS") || !strings.Contains(zpl, "^PW812") {
		t.Fatalf("zpl:\n%s", zpl)
	}
	// A run of another site, or neither id: 400.
	other := k.env.Site(k.owner.AccessToken, k.org, "Pastry")
	k.call(http.MethodPost, "labels").JSON(map[string]any{"siteId": other, "format": "zpl", "template": "prep", "items": []map[string]any{{"runId": r.ID, "count": 1}}}).
		Do().ExpectError(http.StatusBadRequest, "")
	k.call(http.MethodPost, "labels").JSON(map[string]any{"siteId": k.site, "format": "zpl", "template": "prep", "items": []map[string]any{{"count": 1}}}).
		Do().ExpectError(http.StatusBadRequest, "")
}
