// Package apierr holds the typed errors that domain packages return. Domain code says what went
// wrong (a Kind and a message); internal/httpapi alone decides which HTTP status that is.
package apierr

import (
	"errors"
	"fmt"
	"time"
)

// Kind classifies a failure the client can act on.
type Kind int

const (
	KindInternal         Kind = iota
	KindInvalid               // the request fails validation; nothing was written
	KindUnauthenticated       // missing, invalid, expired or revoked credentials
	KindPlanRequired          // the plan lacks a feature or a metered limit is reached
	KindForbidden             // the role or credential is too low
	KindNotFound              // absent, or in another organization
	KindConflict              // the state of the resource forbids the change
	KindUnprocessable         // well-formed but meaningless content (e.g. no HL7 message)
	KindRateLimited           // a rate limit or lock applies
	KindTooLarge              // the body is larger than allowed
	KindMethodNotAllowed      // only at the HTTP edge: the path exists, the method does not
	KindUnavailable           // a dependency (the database) cannot answer now; retry shortly
	KindNotAcceptable         // only at the HTTP edge: Accept allows none of the operation's media types
	KindUnsupportedMedia      // only at the HTTP edge: the body's Content-Type is not one the operation takes
	KindGone                  // the target existed and is no longer available (a closed survey)
)

// FieldError names one invalid field of a request.
type FieldError struct {
	Field   string
	Message string
}

// ScanRef is the scan reference carried by the unauthenticated scan 401.
type ScanRef struct {
	TagCode string
	OrgID   string
}

// StockShortage says what stock a refused movement lacked: of which item, where (and in which
// lot), and how much is available there, in the item's base unit.
type StockShortage struct {
	ItemID     string
	LocationID string
	LotID      string // empty: the location's stock as a whole
	Available  string // a decimal string
	Unit       string
}

// InsufficientStock reports a movement that would take on-hand below zero.
func InsufficientStock(s StockShortage) *Error {
	return &Error{Kind: KindConflict, Message: "Insufficient stock", Code: CodeInsufficientStock, Stock: &s}
}

// Error is the one error type the HTTP layer renders for clients.
type Error struct {
	Kind       Kind
	Message    string
	Code       string         // stable machine-readable code; empty means the Kind's default
	Details    []FieldError   // KindInvalid
	Feature    string         // KindPlanRequired
	Tier       string         // KindPlanRequired: the current tier, when known
	RetryAfter time.Duration  // KindRateLimited
	Scan       *ScanRef       // the scan 401
	Stock      *StockShortage // the 409 of insufficient stock
	Err        error          // the cause, for logs only
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// As returns the *Error in err's chain, if any.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// Invalid reports a request that fails validation, naming the fields.
func Invalid(message string, details ...FieldError) *Error {
	return &Error{Kind: KindInvalid, Message: message, Details: details}
}

// InvalidField reports one invalid field; the message reads "<field>: <problem>".
func InvalidField(field, problem string) *Error {
	return Invalid(field+": "+problem, FieldError{Field: field, Message: problem})
}

func Unauthenticated(message string) *Error {
	return &Error{Kind: KindUnauthenticated, Message: message}
}

// PlanRequired reports a feature missing from the plan, or an exhausted metered limit.
func PlanRequired(feature, tier, message string) *Error {
	return &Error{Kind: KindPlanRequired, Message: message, Feature: feature, Tier: tier}
}

func Forbidden(message string) *Error {
	return &Error{Kind: KindForbidden, Message: message}
}

// NotFound reports "<thing> not found"; used for absent rows and other tenants' rows alike.
func NotFound(thing string) *Error {
	return &Error{Kind: KindNotFound, Message: thing + " not found"}
}

func Conflict(message string) *Error {
	return &Error{Kind: KindConflict, Message: message}
}

// Gone reports a target that is no longer available (a closed survey's link).
func Gone(message string) *Error {
	return &Error{Kind: KindGone, Message: message}
}

func Unprocessable(message string) *Error {
	return &Error{Kind: KindUnprocessable, Message: message}
}

// RateLimited reports a limit that lifts after retryAfter.
func RateLimited(retryAfter time.Duration) *Error {
	e := &Error{Kind: KindRateLimited, RetryAfter: retryAfter}
	e.Message = fmt.Sprintf("Too many requests; retry in %d seconds", e.RetryAfterSeconds())
	return e
}

// WithCode sets the stable machine-readable code clients match on instead of the message.
func (e *Error) WithCode(code string) *Error {
	e.Code = code
	return e
}

// Unavailable reports a dependency that cannot answer now (retry after retryAfter).
func Unavailable(code, message string, retryAfter time.Duration) *Error {
	return &Error{Kind: KindUnavailable, Code: code, Message: message, RetryAfter: retryAfter}
}

// RetryAfterSeconds is RetryAfter rounded up to whole seconds, at least 1: the Retry-After value.
func (e *Error) RetryAfterSeconds() int {
	secs := int((e.RetryAfter + time.Second - 1) / time.Second)
	return max(secs, 1)
}

// Internal wraps an unexpected failure; its cause is logged, never shown.
func Internal(err error) *Error {
	return &Error{Kind: KindInternal, Message: "Internal server error", Err: err}
}
