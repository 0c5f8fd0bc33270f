package kitchen

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestLabelSheetsAndZPLEscaping(t *testing.T) {
	at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	l := Label{Template: "prep", Name: "Soup ^XZ~", PreparedAt: at, Initials: "AG", Count: 15}
	// 15 labels on A4 sheets of 14: two pages.
	doc, err := RenderPDF([]Label{l}, "a4_sheet", at)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(doc, []byte("/Type /Page\n")); n != 2 {
		t.Fatalf("%d pages, want 2", n)
	}
	// One page per label on a roll.
	l.Count = 3
	doc, _ = RenderPDF([]Label{l}, "4x2", at)
	if n := bytes.Count(doc, []byte("/Type /Page\n")); n != 3 {
		t.Fatalf("%d pages, want 3", n)
	}
	// A name cannot end a ZPL label early or start a command.
	zpl := RenderZPL([]Label{{Template: "prep", Name: "Soup ^XZ~JA", PreparedAt: at, Initials: "AG", Count: 1}}, "2x1")
	if strings.Count(zpl, "^XZ") != 1 || strings.Contains(zpl, "~JA") {
		t.Fatalf("zpl %q", zpl)
	}
	if got := initials("Ana María López"); got != "AML" {
		t.Fatalf("initials %q", got)
	}
}
