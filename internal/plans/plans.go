// Package plans holds the plan table: which features and limits each tier has, and how the
// Pro trial ends. It is pure: the effective tier is computed from stored fields and the clock,
// so no background job has to flip an organization when its trial runs out.
package plans

import (
	"slices"
	"time"
)

// Tier is a plan tier.
type Tier string

const (
	Free       Tier = "free"
	Pro        Tier = "pro"
	Enterprise Tier = "enterprise"
)

// Valid reports whether t is a known tier.
func (t Tier) Valid() bool { return t == Free || t == Pro || t == Enterprise }

// Feature is a capability gated by plan; operations name theirs in x-plan-feature.
type Feature string

const (
	APIKeys    Feature = "api_keys"
	Webhooks   Feature = "webhooks"
	Clinical   Feature = "clinical"
	OrderLists Feature = "order_lists"
	// DeviceLimit is not a feature but a metered limit; 402 bodies name it the same way.
	DeviceLimit Feature = "device_limit"
)

// TrialLength is how long a new organization stays on the Pro trial.
const TrialLength = 30 * 24 * time.Hour

// Unlimited marks a limit without a cap.
const Unlimited = -1

type plan struct {
	features []Feature
	devices  int
}

var table = map[Tier]plan{
	Free:       {features: nil, devices: 2},
	Pro:        {features: []Feature{APIKeys, Webhooks, Clinical, OrderLists}, devices: 25},
	Enterprise: {features: []Feature{APIKeys, Webhooks, Clinical, OrderLists}, devices: Unlimited},
}

// Plan is an organization's plan as it stands now.
type Plan struct {
	Tier        Tier
	Trialing    bool
	TrialEndsAt *time.Time
}

// Effective computes the plan at now from the stored tier and trial end: a trial that has ended
// falls to free.
func Effective(storedTier string, trialEndsAt *time.Time, now time.Time) Plan {
	tier := Tier(storedTier)
	if !tier.Valid() {
		tier = Free
	}
	if trialEndsAt == nil {
		return Plan{Tier: tier}
	}
	if now.Before(*trialEndsAt) {
		return Plan{Tier: tier, Trialing: true, TrialEndsAt: trialEndsAt}
	}
	return Plan{Tier: Free, TrialEndsAt: trialEndsAt}
}

// Has reports whether the plan includes f.
func (p Plan) Has(f Feature) bool { return slices.Contains(table[p.Tier].features, f) }

// Features lists the plan's features.
func (p Plan) Features() []Feature { return slices.Clone(table[p.Tier].features) }

// DeviceLimit is how many devices may be paired, or Unlimited.
func (p Plan) DeviceLimit() int { return table[p.Tier].devices }

// DeviceLimitOf is the device cap of a tier, for documentation and tests.
func DeviceLimitOf(t Tier) int { return table[t].devices }
