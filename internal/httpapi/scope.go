package httpapi

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
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
	// parent is the request's context as the layers before requestScope left it.
	parent context.Context
	facts  reqinfo.Facts
	quota  ratelimit.Quota
	// principal and access are boxed once, when set (nil until then): Value hands out the same
	// interface value on every lookup instead of boxing a copy each time.
	principal any
	access    any
	// op is the request's operation of the spec (nil outside it) once opKnown (operations.of).
	op      *operation
	opKnown bool

	// The request's deadline, when it has one (a deadlineQueue's member; nil prev and next
	// and zero deadline otherwise).
	deadline   time.Time
	prev, next *scope
	queued     bool

	// inner is the cancelable context the scope answers Done, Err and Cause from, made the
	// first time anything asks for Done (a statement watching it, a child context, a wait), or
	// when the deadline passes first. A read whose only statements are lookups (bounded on the
	// server, see pg.Lookups) asks only when it must wait for a lookup connection: otherwise
	// nothing is made, registered with the parent and unregistered again. expired and ended
	// say what inner is to be canceled with when it is made late.
	inner          atomic.Pointer[cancelable]
	makeInner      sync.Mutex
	expired, ended atomic.Bool
}

type cancelable struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// cancelable returns inner, making it (canceled at once if the request's deadline passed or it
// ended already).
func (s *scope) cancelable() *cancelable {
	if in := s.inner.Load(); in != nil {
		return in
	}
	s.makeInner.Lock()
	defer s.makeInner.Unlock()
	if in := s.inner.Load(); in != nil {
		return in
	}
	ctx, cancel := context.WithCancelCause(s.parent)
	in := &cancelable{ctx: ctx, cancel: cancel}
	switch {
	case s.expired.Load():
		cancel(context.DeadlineExceeded)
	case s.ended.Load():
		cancel(context.Canceled)
	}
	s.inner.Store(in)
	return in
}

// expire ends the request for its deadline: its context is canceled with the cause
// DeadlineExceeded.
func (s *scope) expire() {
	s.expired.Store(true)
	s.cancelable().cancel(context.DeadlineExceeded)
}

// end cancels the request's context, if anything made it, when the request is over.
func (s *scope) end() {
	s.ended.Store(true)
	if in := s.inner.Load(); in != nil {
		in.cancel(context.Canceled)
	}
}

// Done is the inner context's, made now if need be.
func (s *scope) Done() <-chan struct{} { return s.cancelable().ctx.Done() }

// Deadline is the queue's deadline, or the parent's when that is earlier (or the only one).
func (s *scope) Deadline() (time.Time, bool) {
	d, ok := s.parent.Deadline()
	if s.deadline.IsZero() || ok && d.Before(s.deadline) {
		return d, ok
	}
	return s.deadline, true
}

// Err is DeadlineExceeded once the queue ended the request for its deadline, as a context with a
// deadline of its own answers; Canceled once the request ended or its parent was canceled.
func (s *scope) Err() error {
	in := s.inner.Load()
	if in == nil {
		// Nothing made, so nothing waits: the parent's end comes first, as it would for a
		// context made from it.
		if err := s.parent.Err(); err != nil {
			return err
		}
		switch {
		case s.expired.Load():
			return context.DeadlineExceeded
		case s.ended.Load():
			return context.Canceled
		}
		return nil
	}
	err := in.ctx.Err()
	if err != nil && errors.Is(context.Cause(in.ctx), context.DeadlineExceeded) {
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
	// Made, inner answers for itself (the context package finds its cancelation through it);
	// not made, the parent answers everything else.
	if in := s.inner.Load(); in != nil {
		return in.ctx.Value(key)
	}
	return s.parent.Value(key)
}

// scopeOf returns the request's scope (nil outside requestScope).
func scopeOf(ctx context.Context) *scope {
	s, _ := ctx.Value(scopeKey{}).(*scope)
	return s
}
