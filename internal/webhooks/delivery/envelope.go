// Package delivery sends signed webhook events to partner endpoints: it builds the JSON
// envelope, signs it, and POSTs it once through a client that refuses to reach private
// networks. It keeps no state; recording lastDeliveryAt, lastStatus and failureCount from
// a Result is the caller's job.
package delivery

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// Envelope is one event as a receiver sees it.
type Envelope struct {
	// ID is the event's id: the same event has it in every delivery and in the event feed, so
	// a receiver recognises an event it has already processed and resumes the feed after it.
	ID uuid.UUID
	// Event is also sent as the x-service-event header.
	Event string
	OrgID uuid.UUID
	// At is sent in UTC, truncated to the millisecond, trailing zeros trimmed:
	// "2026-03-02T09:00:00Z", "2026-03-02T09:00:00.25Z".
	At time.Time
	// Data must be a JSON object; empty means {}.
	Data json.RawMessage
}

// wireEnvelope fixes the key order of the body, so that the bytes are stable for a given
// Envelope (useful for logs and for receivers that diff payloads).
type wireEnvelope struct {
	ID    string          `json:"id"`
	Event string          `json:"event"`
	OrgID string          `json:"orgId"`
	At    string          `json:"at"`
	Data  json.RawMessage `json:"data"`
}

// formatTime renders At as it appears in the body: RFC 3339 in UTC, truncated to the
// millisecond, with trailing fractional zeros trimmed ("2026-03-02T09:00:00Z",
// "2026-03-02T09:00:00.25Z"). Milliseconds because every common parser (JavaScript Date,
// Java Instant, strptime's %f) accepts them, whereas nanoseconds break some; trimmed
// (RFC3339Nano) so that whole seconds carry no ".000" noise.
func formatTime(t time.Time) string {
	return t.UTC().Truncate(time.Millisecond).Format(time.RFC3339Nano)
}

// Body returns the exact bytes to sign and send: compact JSON with keys in the order
// id, event, orgId, at, data, and HTML characters left unescaped (the body is never embedded
// in HTML, and escaping would only make payloads harder to read). It refuses an envelope
// a receiver could not act on, so a bug here does not reach partners as a malformed event.
func (e Envelope) Body() ([]byte, error) {
	if e.ID == uuid.Nil {
		return nil, errors.New("envelope has no event id")
	}
	if e.Event == "" {
		return nil, errors.New("envelope has no event name")
	}
	if e.OrgID == uuid.Nil {
		return nil, errors.New("envelope has no organization id")
	}
	if e.At.IsZero() {
		return nil, errors.New("envelope has no timestamp")
	}
	data := bytes.TrimSpace(e.Data)
	if len(data) == 0 {
		data = []byte("{}")
	}
	if !json.Valid(data) {
		return nil, errors.New("envelope data is not valid JSON")
	}
	if data[0] != '{' {
		return nil, errors.New("envelope data is not a JSON object")
	}

	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(wireEnvelope{
		ID:    e.ID.String(),
		Event: e.Event,
		OrgID: e.OrgID.String(),
		At:    formatTime(e.At),
		Data:  data,
	})
	if err != nil {
		return nil, fmt.Errorf("encode envelope: %w", err)
	}
	// Encode ends with a newline that is not part of the JSON value.
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
