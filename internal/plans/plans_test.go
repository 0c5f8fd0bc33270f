package plans

import (
	"testing"
	"time"
)

func TestEffective(t *testing.T) {
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	later, earlier := now.Add(time.Hour), now.Add(-time.Hour)
	cases := []struct {
		name     string
		stored   string
		trial    *time.Time
		tier     Tier
		trialing bool
	}{
		{"trial running", "pro", &later, Pro, true},
		{"trial ended falls to free", "pro", &earlier, Free, false},
		{"trial ends exactly now", "pro", &now, Free, false},
		{"paid pro", "pro", nil, Pro, false},
		{"enterprise", "enterprise", nil, Enterprise, false},
		{"free", "free", nil, Free, false},
		{"unknown tier is free", "gold", nil, Free, false},
	}
	for _, tc := range cases {
		p := Effective(tc.stored, tc.trial, now)
		if p.Tier != tc.tier || p.Trialing != tc.trialing {
			t.Errorf("%s: got %s trialing=%v", tc.name, p.Tier, p.Trialing)
		}
	}
}

func TestFeaturesAndLimits(t *testing.T) {
	free, pro, ent := Plan{Tier: Free}, Plan{Tier: Pro}, Plan{Tier: Enterprise}
	for _, f := range []Feature{APIKeys, Webhooks, Clinical, OrderLists} {
		if free.Has(f) || !pro.Has(f) || !ent.Has(f) {
			t.Errorf("%s: free=%v pro=%v enterprise=%v", f, free.Has(f), pro.Has(f), ent.Has(f))
		}
	}
	if free.DeviceLimit() != 2 || pro.DeviceLimit() != 25 || ent.DeviceLimit() != Unlimited {
		t.Errorf("device limits %d %d %d", free.DeviceLimit(), pro.DeviceLimit(), ent.DeviceLimit())
	}
}
