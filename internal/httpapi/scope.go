package httpapi

import (
	"context"
	"errors"
	"time"

	"github.com/sous-app/sous/internal/authz"
	"github.com/sous-app/sous/internal/principal"
	"github.com/sous-app/sous/internal/ratelimit"
	"github.com/sous-app/sous/internal/reqinfo"
)

// scope is a request's context from requestScope on: the context with its deadline, and in
// place what the later layers and the handler read from it: the request's facts, its rate-limit
// quota, and, once known, its principal (authenticate) and access (policy). Each of those was a
// context value of its own, an allocation and one more link for every lookup to walk, and the
// principal and the access each cost a copy of the request to put in; held here they cost one
// allocation between them. Value answers the keys of the packages that own them, which read
// them with their usual functions (reqinfo.ClientIP, principal.From, authz.FromContext…).
type scope struct {
	context.Context
	facts reqinfo.Facts
	quota ratelimit.Quota
	// principal and access are boxed once, when set (nil until then): Value hands out the same
	// interface value on every lookup instead of boxing a copy each time.
	principal any
	access    any
	// op is the request's operation of the spec (nil outside it) once opKnown (operations.of).
	op      *operation
	opKnown bool

	// The request's deadline, when it has one (a deadlineQueue's member; nil prev and next
	// and zero deadline otherwise). Context is then canceled with cause DeadlineExceeded.
	deadline   time.Time
	cancel     context.CancelCauseFunc
	prev, next *scope
	queued     bool
}

// Deadline is the queue's deadline, or the parent's when that is earlier (or the only one).
func (s *scope) Deadline() (time.Time, bool) {
	d, ok := s.Context.Deadline()
	if s.deadline.IsZero() || ok && d.Before(s.deadline) {
		return d, ok
	}
	return s.deadline, true
}

// Err is DeadlineExceeded once the queue ended the request for its deadline, as a context with a
// deadline of its own answers.
func (s *scope) Err() error {
	err := s.Context.Err()
	if err != nil && !s.deadline.IsZero() && errors.Is(context.Cause(s.Context), context.DeadlineExceeded) {
		return context.DeadlineExceeded
	}
	return err
}

type scopeKey struct{}

func (s *scope) Value(key any) any {
	switch key.(type) {
	case reqinfo.FactsKey:
		return &s.facts
	case ratelimit.QuotaKey:
		return &s.quota
	case principal.ContextKey:
		if s.principal != nil {
			return s.principal
		}
	case authz.AccessKey:
		if s.access != nil {
			return s.access
		}
	case scopeKey:
		return s
	}
	return s.Context.Value(key)
}

// scopeOf returns the request's scope (nil outside requestScope).
func scopeOf(ctx context.Context) *scope {
	s, _ := ctx.Value(scopeKey{}).(*scope)
	return s
}
