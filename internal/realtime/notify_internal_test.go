package realtime

import (
	"context"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
)

// recorder stands in for a transaction and keeps the payloads sent.
type recorder struct {
	calls    int
	payloads []string
}

func (r *recorder) Exec(_ context.Context, _ string, args ...any) (pgconn.CommandTag, error) {
	r.calls++
	if args[0] != Channel {
		panic("wrong channel")
	}
	r.payloads = append(r.payloads, args[1].([]string)...)
	return pgconn.CommandTag{}, nil
}

func TestPayloadsStayUnderTheLimit(t *testing.T) {
	ids := make([]uuid.UUID, 1001)
	for i := range ids {
		ids[i] = uuid.New()
	}
	var rec recorder
	if err := DisconnectDevice(context.Background(), &rec, ids...); err != nil {
		t.Fatal(err)
	}
	if rec.calls != 1 || len(rec.payloads) != 11 {
		t.Fatalf("%d round trips, %d payloads; want 1 and 11", rec.calls, len(rec.payloads))
	}
	var got []uuid.UUID
	for _, p := range rec.payloads {
		if len(p) >= 8000 {
			t.Fatalf("payload of %d bytes", len(p))
		}
		hints, bad := parsePayload(p)
		if len(bad) > 0 {
			t.Fatalf("unreadable tokens %q", bad)
		}
		for _, h := range hints {
			if h.kind != hintRevoke {
				t.Fatalf("kind %v, want revoke", h.kind)
			}
			got = append(got, h.id)
		}
	}
	if !slices.Equal(got, ids) {
		t.Fatal("ids do not survive the round trip")
	}
}

func TestNotifyShapes(t *testing.T) {
	ctx := context.Background()
	a, b := uuid.New(), uuid.New()

	var rec recorder
	if err := Notify(ctx, &rec); err != nil || rec.calls != 0 {
		t.Fatalf("no devices: %d round trips, err %v", rec.calls, err)
	}
	if err := Notify(ctx, &rec, a, b, a); err != nil {
		t.Fatal(err)
	}
	if err := NotifyOrg(ctx, &rec, b); err != nil {
		t.Fatal(err)
	}
	want := []string{a.String() + "," + b.String(), "org:" + b.String()}
	if !slices.Equal(rec.payloads, want) {
		t.Fatalf("payloads %q, want %q", rec.payloads, want)
	}
	if len(rec.payloads[0]) != 2*36+1 {
		t.Fatalf("device token is not a bare 36-character id: %q", rec.payloads[0])
	}
}

func TestParsePayloadSkipsUnknownTokens(t *testing.T) {
	a, b := uuid.New(), uuid.New()
	hints, bad := parsePayload("future:" + a.String() + "," + b.String() + ",org:nope,{" + a.String() + "}")
	if !slices.Equal(hints, []hint{{hintDevice, b}}) {
		t.Fatalf("hints %v", hints)
	}
	if len(bad) != 3 {
		t.Fatalf("bad tokens %q, want 3", bad)
	}
}
