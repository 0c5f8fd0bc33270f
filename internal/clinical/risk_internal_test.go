package clinical

import "testing"

// TestRestrictedSinceRefusesUnreadableOrders: orders that do not decode are an error for the
// nutrition-risk check, not an unrestricted diet.
func TestRestrictedSinceRefusesUnreadableOrders(t *testing.T) {
	for _, raw := range []string{`[{"id": 5}]`, `{"type": "D"}`, `[1]`} {
		if _, ok, err := restrictedSince([]byte(raw)); err == nil || ok {
			t.Errorf("%s: ok %v, err %v", raw, ok, err)
		}
	}
	if _, ok, err := restrictedSince([]byte(`[]`)); err != nil || ok {
		t.Errorf("no orders: ok %v, err %v", ok, err)
	}
}
