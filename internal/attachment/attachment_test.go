package attachment

import (
	"testing"
	"time"
)

func TestDisposition(t *testing.T) {
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	cases := []struct {
		what     string
		from, to time.Time
		ext      string
		want     string
	}{
		{"Temperature log", day(2026, 11, 1), day(2026, 11, 28), "pdf", `attachment; filename="temperature-log-2026-11-01-to-2026-11-28.pdf"`},
		{"temperature log", day(2026, 3, 2), day(2026, 3, 2), "csv", `attachment; filename="temperature-log-2026-03-02.csv"`},
		{"Crème brûlée (6 × 120 g)", day(2026, 3, 2), day(2026, 3, 2), "pdf", `attachment; filename="creme-brulee-6-120-g-2026-03-02.pdf"`},
		{`a"b\c/d;e` + "\r\nX-Evil: 1", day(2026, 3, 2), day(2026, 3, 2), "pdf", `attachment; filename="a-b-c-d-e-x-evil-1-2026-03-02.pdf"`},
		{"食谱", day(2026, 3, 2), day(2026, 3, 2), "pdf", `attachment; filename="2026-03-02.pdf"`},
		{"", day(2025, 12, 31), day(2026, 1, 1), "csv", `attachment; filename="2025-12-31-to-2026-01-01.csv"`},
	}
	for _, c := range cases {
		if got := Disposition(c.what, c.from, c.to, c.ext); got != c.want {
			t.Errorf("Disposition(%q) = %s, want %s", c.what, got, c.want)
		}
	}
}

// A long name is cut to the slug's bound, never mid-dash.
func TestSlugBound(t *testing.T) {
	s := Slug("Slow-roasted pork shoulder with apple cider glaze and crackling, family portion")
	if len(s) > maxSlug || s[len(s)-1] == '-' {
		t.Fatalf("slug %q (%d)", s, len(s))
	}
}
