package apierr

// The stable machine-readable codes of error bodies. Every code the server can send is declared
// here and listed in Codes; the spec's ErrorCode enum documents each one, and a test holds the two
// (and every literal passed to WithCode or Unavailable) in step. Clients branch on these, so a code
// is never renamed or reused for another meaning.
const (
	// Defaults of each Kind (internal/httpapi/errors.go).
	CodeValidationFailed   = "validation_failed"
	CodeUnauthenticated    = "unauthenticated"
	CodePlanRequired       = "plan_required"
	CodeForbidden          = "forbidden"
	CodeNotFound           = "not_found"
	CodeConflict           = "conflict"
	CodeUnprocessable      = "unprocessable"
	CodeRateLimited        = "rate_limited"
	CodePayloadTooLarge    = "payload_too_large"
	CodeMethodNotAllowed   = "method_not_allowed"
	CodeNotAcceptable      = "not_acceptable"
	CodeUnsupportedMedia   = "unsupported_media_type"
	CodeServiceUnavailable = "service_unavailable"
	CodeInternalError      = "internal_error"

	// Dependencies.
	CodeServiceBusy = "service_busy"

	// Device WebSockets (internal/realtime's limits).
	CodeSocketLimitReached    = "socket_limit_reached"
	CodeSocketCapacityReached = "socket_capacity_reached"

	// Requests net/http could not read as HTTP (internal/httpapi/connerrors.go).
	CodeMalformedRequest    = "malformed_request"
	CodeHeadersTooLarge     = "headers_too_large"
	CodeUnsupportedProtocol = "unsupported_protocol"

	CodeDatabaseUnavailable = "database_unavailable"
	CodeOutcomeUnknown      = "outcome_unknown"

	// Credentials and sessions.
	CodeInvalidAPIKey        = "invalid_api_key"
	CodeInvalidDeviceToken   = "invalid_device_token"
	CodeInvalidToken         = "invalid_token"
	CodeTokenExpired         = "token_expired"
	CodeInvalidCredentials   = "invalid_credentials"
	CodeAccountLocked        = "account_locked"
	CodeInvalidRefreshToken  = "invalid_refresh_token"
	CodeRefreshTokenReused   = "refresh_token_reused"
	CodeEmailTaken           = "email_taken"
	CodeInvitationNotFound   = "invitation_not_found"
	CodeInvitationExpired    = "invitation_expired"
	CodeInvitationEmail      = "invitation_email_mismatch"
	CodeAlreadyMember        = "already_member"
	CodeRoleTooHigh          = "role_too_high"
	CodeSiteScopeExceeded    = "site_scope_exceeded"
	CodeLastOwner            = "last_owner"
	CodeCredentialRequired   = "credential_required"
	CodeDeviceLimitReached   = "device_limit_reached"
	CodeWebhookLimitReached  = "webhook_limit_reached"
	CodePairingCodeNotFound  = "pairing_code_not_found"
	CodeTagNotFound          = "tag_not_found"
	CodeLinkNotFound         = "link_not_found"
	CodeSignoffPending       = "signoff_pending"
	CodeSignoffDecided       = "signoff_decided"
	CodeTooManyMessages      = "too_many_messages"
	CodeNoHL7Message         = "no_hl7_message"
	CodeIdempotencyKeyReused = "idempotency_key_reused"
	CodeIdempotencyKeyInUse  = "idempotency_key_in_use"
	CodeInsufficientStock    = "insufficient_stock"

	// Catering and surveys.
	CodeGone                  = "gone"
	CodeQuoteNotOpen          = "quote_not_open"
	CodeContractImmutable     = "contract_immutable"
	CodeInvoiceNotOpen        = "invoice_not_open"
	CodeSurveyClosed          = "survey_closed"
	CodeSurveyAlreadyAnswered = "survey_already_answered"
	CodeSurveyHasResponses    = "survey_has_responses"

	// Devices.
	CodeGatewayHasSensors = "gateway_has_sensors"
	CodeSensorHasReadings = "sensor_has_readings"

	// Reports (internal/sensors' bound on heavy temperature logs).
	CodeReportsBusy = "reports_busy"

	// Nutrition labels: a panel is printed only when everything on it is known.
	CodeLabelIncomplete = "label_incomplete"
)

// Codes lists every code above, in the spec enum's order.
var Codes = []string{
	CodeValidationFailed, CodeUnauthenticated, CodePlanRequired, CodeForbidden, CodeNotFound,
	CodeConflict, CodeUnprocessable, CodeRateLimited, CodePayloadTooLarge, CodeMethodNotAllowed,
	CodeNotAcceptable, CodeUnsupportedMedia,
	CodeServiceUnavailable, CodeInternalError,
	CodeServiceBusy, CodeSocketLimitReached, CodeSocketCapacityReached, CodeMalformedRequest, CodeHeadersTooLarge, CodeUnsupportedProtocol,
	CodeDatabaseUnavailable, CodeOutcomeUnknown,
	CodeInvalidAPIKey, CodeInvalidDeviceToken, CodeInvalidToken, CodeTokenExpired,
	CodeInvalidCredentials, CodeAccountLocked, CodeInvalidRefreshToken, CodeRefreshTokenReused,
	CodeEmailTaken, CodeInvitationNotFound, CodeInvitationExpired, CodeInvitationEmail,
	CodeAlreadyMember, CodeRoleTooHigh, CodeSiteScopeExceeded, CodeLastOwner, CodeCredentialRequired,
	CodeDeviceLimitReached, CodeWebhookLimitReached, CodePairingCodeNotFound, CodeTagNotFound,
	CodeLinkNotFound, CodeSignoffPending, CodeSignoffDecided, CodeTooManyMessages, CodeNoHL7Message,
	CodeIdempotencyKeyReused, CodeIdempotencyKeyInUse,
	CodeInsufficientStock,
	CodeGone, CodeQuoteNotOpen, CodeContractImmutable, CodeInvoiceNotOpen, CodeSurveyClosed,
	CodeSurveyAlreadyAnswered, CodeSurveyHasResponses,
	CodeGatewayHasSensors, CodeSensorHasReadings,
	CodeReportsBusy,
	CodeLabelIncomplete,
}
