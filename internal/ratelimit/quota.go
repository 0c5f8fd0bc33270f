package ratelimit

import (
	"context"
	"fmt"
	"time"
)

// Quota is what a request learned about the limit it is subject to, for the IETF httpapi
// RateLimit-Policy and RateLimit response headers. The HTTP layer puts an empty one in each
// request's context; the Limiter fills it in as it checks and records.
type Quota struct {
	rule      Rule
	remaining int
	reset     time.Duration
	known     bool // remaining and reset are known (not only the policy)
	set       bool
}

// QuotaKey is the context key of the request's *Quota. The HTTP layer's own context type answers
// it from a Quota it holds in place; without one, the Limiter records nothing.
type QuotaKey struct{}

func note(ctx context.Context, r Rule, remaining int, reset time.Duration, known bool) {
	q, _ := ctx.Value(QuotaKey{}).(*Quota)
	if q == nil || r.Limit == 0 {
		return
	}
	*q = Quota{rule: r, remaining: max(remaining, 0), reset: max(reset, 0), known: known, set: true}
}

// Policy is the RateLimit-Policy value, e.g. `"register";q=3;w=3600`; "" when no limit applied.
func (q *Quota) Policy() string {
	if q == nil || !q.set {
		return ""
	}
	return fmt.Sprintf("%q;q=%d;w=%d", q.rule.Bucket, q.rule.Limit, int(q.rule.Window/time.Second))
}

// State is the RateLimit value, e.g. `"register";r=2;t=3600`: requests (or, for a sign-in lock,
// failures) remaining and seconds until the quota is restored; "" when unknown.
func (q *Quota) State() string {
	if q == nil || !q.set || !q.known {
		return ""
	}
	secs := int((q.reset + time.Second - 1) / time.Second)
	return fmt.Sprintf("%q;r=%d;t=%d", q.rule.Bucket, q.remaining, secs)
}
