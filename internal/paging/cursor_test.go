package paging_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/paging"
)

type position struct {
	At time.Time `json:"a"`
	ID uuid.UUID `json:"i"`
}

func TestCursorRoundTrip(t *testing.T) {
	want := position{At: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC), ID: uuid.Must(uuid.NewV7())}
	var got position
	if err := paging.DecodeCursor(paging.EncodeCursor(want), &got); err != nil || got != want {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
}

func TestCursorsNotIssuedAreBadRequests(t *testing.T) {
	var p position
	hasID := func() bool { return p.ID != uuid.Nil }
	for _, c := range []string{"nonsense!", "bm90IGpzb24", paging.EncodeCursor(map[string]string{"x": "y"})} {
		p = position{}
		err := paging.DecodeCursor(c, &p, hasID)
		var e *apierr.Error
		if !errors.As(err, &e) || e.Kind != apierr.KindInvalid {
			t.Errorf("cursor %q: %v", c, err)
		}
	}
}
