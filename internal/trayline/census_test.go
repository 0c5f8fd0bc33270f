package trayline_test

import (
	"net/http"
	"strings"
	"testing"
)

// A transfer and a diet change mid-service: the queued ticket follows the patient and is
// re-checked; a ticket already assembled is not touched.
func TestTransferAndDietChangeMidService(t *testing.T) {
	t.Parallel()
	h := newHospital(t)
	h.lunch()
	h.adt("A01", "1", "4001", "4W", "412", "A", odsReg)
	h.adt("A01", "2", "4002", "4W", "414", "A", odsReg)
	h.generate("lunch")
	h.status(h.owner, h.byMRN("4002").ID, "assembled").Expect(http.StatusOK)

	h.adt("A02", "3", "4001", "5N", "520", "B")
	moved := h.byMRN("4001")
	if moved.Unit+"/"+moved.Room+"/"+moved.Bed != "5N/520/B" || moved.Status != "queued" || moved.Conflict {
		t.Fatalf("after transfer %+v", moved)
	}

	// A dysphagia order (IDDSI 6): every item at level 7 now conflicts, on the screen.
	h.adt("A08", "4", "4001", "5N", "520", "B", odsDys6)
	h.adt("A08", "5", "4002", "4W", "414", "A", odsDys6)
	got := h.byMRN("4001")
	if !got.Conflict || got.Texture == nil || *got.Texture != 6 {
		t.Fatalf("after diet change %+v", got)
	}
	if c := checks(got.Items); c != "Chicken soup:conflict,Roast chicken:conflict,Chicken satay:conflict" {
		t.Fatalf("items %s", c)
	}
	if !strings.Contains(strings.Join(got.Items[0].Reasons, ";"), "IDDSI level 7") {
		t.Fatalf("reasons %v", got.Items[0].Reasons)
	}
	// A conflicting ticket is not assembled.
	h.status(h.owner, got.ID, "assembled").ExpectCode(http.StatusConflict, "conflict")
	// The assembled ticket is untouched.
	if other := h.byMRN("4002"); other.Conflict || other.Status != "assembled" || other.Texture != nil {
		t.Fatalf("assembled ticket changed %+v", other)
	}
	// The next generation rebuilds the queued ticket with the substitute where it fits.
	h.generate("lunch")
	if c := checks(h.byMRN("4001").Items); c != "Plain rice:substituted,Roast chicken:refused,Chicken satay:refused" {
		t.Fatalf("regenerated %s", c)
	}
}
