package httpapi

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/labstack/echo/v4"

	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/pg"
)

// kindRendering is the one place where a kind of failure becomes an HTTP status and the stable
// code used when the error names none of its own.
var kindRendering = map[apierr.Kind]struct {
	status int
	code   string
}{
	apierr.KindInvalid:          {http.StatusBadRequest, apierr.CodeValidationFailed},
	apierr.KindUnauthenticated:  {http.StatusUnauthorized, apierr.CodeUnauthenticated},
	apierr.KindPlanRequired:     {http.StatusPaymentRequired, apierr.CodePlanRequired},
	apierr.KindForbidden:        {http.StatusForbidden, apierr.CodeForbidden},
	apierr.KindNotFound:         {http.StatusNotFound, apierr.CodeNotFound},
	apierr.KindConflict:         {http.StatusConflict, apierr.CodeConflict},
	apierr.KindUnprocessable:    {http.StatusUnprocessableEntity, apierr.CodeUnprocessable},
	apierr.KindRateLimited:      {http.StatusTooManyRequests, apierr.CodeRateLimited},
	apierr.KindTooLarge:         {http.StatusRequestEntityTooLarge, apierr.CodePayloadTooLarge},
	apierr.KindMethodNotAllowed: {http.StatusMethodNotAllowed, apierr.CodeMethodNotAllowed},
	apierr.KindUnavailable:      {http.StatusServiceUnavailable, apierr.CodeServiceUnavailable},
	apierr.KindNotAcceptable:    {http.StatusNotAcceptable, apierr.CodeNotAcceptable},
	apierr.KindUnsupportedMedia: {http.StatusUnsupportedMediaType, apierr.CodeUnsupportedMedia},
	apierr.KindGone:             {http.StatusGone, apierr.CodeGone},
}

// statusOf is the HTTP status of a kind of failure; a kind not in the table is a bug (500).
func statusOf(k apierr.Kind) int {
	if r, ok := kindRendering[k]; ok {
		return r.status
	}
	return http.StatusInternalServerError
}

// defaultCode is the stable code of a kind of failure, used when the error names none.
func defaultCode(k apierr.Kind) string {
	if r, ok := kindRendering[k]; ok {
		return r.code
	}
	return apierr.CodeInternalError
}

// errorBody is the JSON shape of every error response.
type errorBody struct {
	Error      string         `json:"error"`
	StatusCode int            `json:"statusCode"`
	Code       string         `json:"code"`
	Details    []fieldDetail  `json:"details,omitempty"`
	Feature    string         `json:"feature,omitempty"`
	Tier       string         `json:"tier,omitempty"`
	Scan       *scanRef       `json:"scan,omitempty"`
	Stock      *stockShortage `json:"stock,omitempty"`
}

// stockShortage is the `stock` of the insufficient-stock 409.
type stockShortage struct {
	ItemID     string  `json:"itemId"`
	LocationID string  `json:"locationId"`
	LotID      *string `json:"lotId,omitempty"`
	Available  string  `json:"available"`
	Unit       string  `json:"unit"`
}

type fieldDetail struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

type scanRef struct {
	TagCode string `json:"tagCode"`
	OrgID   string `json:"orgId"`
}

// errorRenderer is Echo's HTTPErrorHandler: every failure, from domain code, the validator,
// the router or a panic, leaves the server through here as {error, statusCode}. A 401 of an
// operation marked x-unauthenticated-scan also carries the scan reference from the path; it is
// built from the request alone, so it is the same whether or not the tag exists.
func errorRenderer(logger *slog.Logger, ops operations) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		if c.Response().Committed {
			return
		}
		e := classify(err)
		status := statusOf(e.Kind)
		// service_busy is the server shedding load by design (password work is full): under a
		// flood a log line per refusal would only add to the load.
		if status >= 500 && e.Code != apierr.CodeServiceBusy {
			// A 500 is a bug; a 503 is the database out of reach, which during a failover is every
			// request for seconds and is already told to the client as "retry": a warning, so an
			// alert on error lines fires for bugs, not for an outage the pool rides through.
			level := slog.LevelError
			if status == http.StatusServiceUnavailable {
				level = slog.LevelWarn
			}
			logger.Log(c.Request().Context(), level, "request failed",
				"err", err.Error(), "method", c.Request().Method, "path", c.Path(),
				"request_id", c.Response().Header().Get(echo.HeaderXRequestID))
		}
		code := e.Code
		if code == "" {
			code = defaultCode(e.Kind)
		}
		body := errorBody{Error: e.Message, StatusCode: status, Code: code, Feature: e.Feature, Tier: e.Tier}
		if e.Kind == apierr.KindInvalid {
			body.Details = make([]fieldDetail, 0, len(e.Details))
			for _, d := range e.Details {
				body.Details = append(body.Details, fieldDetail(d))
			}
		}
		if e.Scan != nil {
			body.Scan = &scanRef{TagCode: e.Scan.TagCode, OrgID: e.Scan.OrgID}
		}
		if s := e.Stock; s != nil {
			body.Stock = &stockShortage{ItemID: s.ItemID, LocationID: s.LocationID, Available: s.Available, Unit: s.Unit}
			if s.LotID != "" {
				body.Stock.LotID = &s.LotID
			}
		}
		if status == http.StatusUnauthorized && body.Scan == nil {
			if op := ops.of(c); op != nil && op.ScanRef {
				body.Scan = &scanRef{TagCode: c.Param("tagCode"), OrgID: c.Param("orgId")}
			}
		}
		if status == http.StatusUnauthorized {
			challenge(c, ops)
		}
		if e.Kind == apierr.KindRateLimited || e.Kind == apierr.KindUnavailable {
			c.Response().Header().Set("Retry-After", strconv.Itoa(e.RetryAfterSeconds()))
		}
		if c.Request().Method == http.MethodHead {
			_ = c.NoContent(status)
			return
		}
		_ = c.JSON(status, body)
	}
}

// classify turns any error into an *apierr.Error.
func classify(err error) *apierr.Error {
	if e := fromUnstorableText(err); e != nil {
		return e
	}
	if e, ok := apierr.As(err); ok && e.Kind != apierr.KindInternal {
		return e
	}
	var he *echo.HTTPError
	if !errors.As(err, &he) {
		// A database that is down, read-only or too slow is a 503 to retry, never a 500. (Only
		// here: the validator's errors can wrap io.ErrUnexpectedEOF too, for a truncated body.)
		if e := pg.Unavailable(err); e != nil {
			return e
		}
		if e, ok := apierr.As(err); ok {
			return e
		}
		return apierr.Internal(err)
	}
	if e, ok := apierr.As(err); ok {
		return e
	}
	if he.Internal != nil {
		if e, ok := apierr.As(he.Internal); ok {
			return e
		}
		if e := fromValidation(he.Internal); e != nil {
			return e
		}
	}
	msg := fmt.Sprint(he.Message)
	switch he.Code {
	case http.StatusNotFound:
		return apierr.NotFound("Resource")
	case http.StatusMethodNotAllowed:
		return &apierr.Error{Kind: apierr.KindMethodNotAllowed, Message: "Method not allowed"}
	case http.StatusRequestEntityTooLarge:
		return &apierr.Error{Kind: apierr.KindTooLarge, Message: "Request body too large"}
	case http.StatusUnsupportedMediaType, http.StatusBadRequest:
		return apierr.Invalid(capitalize(msg), bindingDetail(msg)...)
	case http.StatusUnauthorized:
		return apierr.Unauthenticated("Authentication required")
	}
	if he.Code >= 500 {
		return apierr.Internal(err)
	}
	return &apierr.Error{Kind: apierr.KindInvalid, Message: capitalize(msg)}
}

// badParameter is the generated binder's refusal of a parameter the validator let through (a
// date like 2026-02-30 matches the date pattern but is no date).
var badParameter = regexp.MustCompile(`^Invalid format for parameter ([^:]+): (.+)$`)

// bindingDetail names the parameter a binder's 400 is about, so the answer carries the details
// every 400 documents.
func bindingDetail(msg string) []apierr.FieldError {
	if m := badParameter.FindStringSubmatch(msg); m != nil {
		return []apierr.FieldError{{Field: m[1], Message: m[2]}}
	}
	return []apierr.FieldError{{Field: "request", Message: msg}}
}

// fromValidation reads kin-openapi's request errors. An authentication failure outranks a body
// problem: a caller without credentials learns only that it must authenticate.
func fromValidation(err error) *apierr.Error {
	var errs []error
	var me openapi3.MultiError
	if errors.As(err, &me) {
		errs = me
	} else {
		errs = []error{err}
	}
	var details []apierr.FieldError
	for _, e := range errs {
		var sre *openapi3filter.SecurityRequirementsError
		if errors.As(e, &sre) {
			return fromSecurity(sre)
		}
		var re *openapi3filter.RequestError
		if errors.As(e, &re) {
			details = append(details, requestErrorDetails(re)...)
		}
	}
	if len(details) == 0 {
		return nil
	}
	msgs := make([]string, 0, len(details))
	for _, d := range details {
		msgs = append(msgs, d.Field+": "+d.Message)
	}
	return apierr.Invalid("Request validation failed: "+strings.Join(msgs, "; "), details...)
}

// fromSecurity picks the most telling failure among the operation's security alternatives:
// a presented-but-wrong credential ("Invalid API key") before "Authentication required".
func fromSecurity(sre *openapi3filter.SecurityRequirementsError) *apierr.Error {
	for _, e := range sre.Errors {
		// A credential that could not be checked is not a wrong one.
		if ae := pg.Unavailable(e); ae != nil {
			return ae
		}
	}
	for _, e := range sre.Errors {
		if ae, ok := apierr.As(e); ok {
			return ae
		}
	}
	return apierr.Unauthenticated("Authentication required")
}

var quotedProperty = regexp.MustCompile(`property "([^"]+)"`)

func requestErrorDetails(re *openapi3filter.RequestError) []apierr.FieldError {
	if re.Parameter != nil {
		return []apierr.FieldError{{Field: re.Parameter.Name, Message: paramMessage(re)}}
	}
	var schemaErrs []*openapi3.SchemaError
	var me openapi3.MultiError
	var se *openapi3.SchemaError
	switch {
	case errors.As(re.Err, &me):
		for _, e := range me {
			if errors.As(e, &se) {
				schemaErrs = append(schemaErrs, se)
			}
		}
	case errors.As(re.Err, &se):
		schemaErrs = append(schemaErrs, se)
	}
	if len(schemaErrs) == 0 {
		msg := re.Reason
		if msg == "" && re.Err != nil {
			msg = re.Err.Error()
		}
		var pe *openapi3filter.ParseError
		if errors.As(re.Err, &pe) {
			msg = "must be valid JSON"
		}
		if strings.Contains(msg, "value is required but missing") || strings.Contains(msg, "request body has an error: value is required") {
			msg = "is required"
		}
		return []apierr.FieldError{{Field: "body", Message: firstLine(msg)}}
	}
	out := make([]apierr.FieldError, 0, len(schemaErrs))
	for _, se := range schemaErrs {
		out = append(out, schemaDetail(se))
	}
	return out
}

func schemaDetail(se *openapi3.SchemaError) apierr.FieldError {
	path := se.JSONPointer()
	reason := se.Reason
	// "property \"x\" is missing" and "property \"x\" is unsupported" name the field in the text.
	if m := quotedProperty.FindStringSubmatch(reason); m != nil {
		if len(path) == 0 || path[len(path)-1] != m[1] {
			path = append(path, m[1])
		}
		switch {
		case strings.HasSuffix(reason, "is missing"):
			reason = "is required"
		case strings.HasSuffix(reason, "is unsupported"):
			reason = "is not a known field"
		}
	}
	field := strings.Join(path, ".")
	if field == "" {
		field = "body"
	}
	return apierr.FieldError{Field: field, Message: friendlyReason(se, reason)}
}

func friendlyReason(se *openapi3.SchemaError, reason string) string {
	switch se.SchemaField {
	case "format":
		if se.Schema != nil && se.Schema.Format == "email" {
			return "must be a valid email address"
		}
		if se.Schema != nil {
			return "must be a valid " + se.Schema.Format
		}
	case "minLength":
		if se.Schema != nil {
			if se.Schema.MinLength == 1 {
				return "must not be empty"
			}
			return fmt.Sprintf("must be at least %d characters", se.Schema.MinLength)
		}
	case "maxLength":
		if se.Schema != nil && se.Schema.MaxLength != nil {
			return fmt.Sprintf("must be at most %d characters", *se.Schema.MaxLength)
		}
	case "enum":
		if se.Schema != nil {
			vals := make([]string, 0, len(se.Schema.Enum))
			for _, v := range se.Schema.Enum {
				vals = append(vals, fmt.Sprint(v))
			}
			return "must be one of: " + strings.Join(vals, ", ")
		}
	}
	return reason
}

func paramMessage(re *openapi3filter.RequestError) string {
	var se *openapi3.SchemaError
	if errors.As(re.Err, &se) {
		return friendlyReason(se, se.Reason)
	}
	if re.Reason != "" {
		return firstLine(re.Reason)
	}
	if re.Err != nil {
		return firstLine(re.Err.Error())
	}
	return "is invalid"
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func capitalize(s string) string {
	if s == "" {
		return "Bad request"
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
