package public

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/gen/db"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/ratelimit"
	"github.com/sous-app/sous/internal/reqinfo"
)

// CreateSupportInquiry stores a message from the contact form. Only well-formed inquiries count
// against the per-IP limit, so a sender who fixes a typo is not locked out by it.
func (h *Handlers) CreateSupportInquiry(ctx context.Context, req api.CreateSupportInquiryRequestObject) (api.CreateSupportInquiryResponseObject, error) {
	b := req.Body
	name, topic, message := strings.TrimSpace(b.Name), strings.TrimSpace(b.Topic), strings.TrimSpace(b.Message)
	var details []apierr.FieldError
	for _, f := range []struct{ field, value string }{{"name", name}, {"topic", topic}, {"message", message}} {
		if f.value == "" {
			details = append(details, apierr.FieldError{Field: f.field, Message: "must not be blank"})
		}
	}
	if len(details) > 0 {
		msgs := make([]string, 0, len(details))
		for _, d := range details {
			msgs = append(msgs, d.Field+": "+d.Message)
		}
		return nil, apierr.Invalid("Request validation failed: "+strings.Join(msgs, "; "), details...)
	}
	var org *string
	if b.Org != nil {
		if o := strings.TrimSpace(*b.Org); o != "" {
			org = &o
		}
	}
	ip := reqinfo.ClientIP(ctx)
	if err := h.limiter.Take(ctx, ratelimit.SupportInquiry, reqinfo.NetworkKey(ip)); err != nil {
		return nil, err
	}
	var ipp *string
	if ip != "" {
		ipp = &ip
	}
	row, err := db.New(h.pool).InsertSupportInquiry(ctx, db.InsertSupportInquiryParams{
		ID: uuid.Must(uuid.NewV7()), Name: name, Email: strings.TrimSpace(string(b.Email)), Org: org,
		Topic: topic, Message: message, Ip: ipp, Now: h.clock.Now(),
	})
	if err != nil {
		return nil, err
	}
	return api.CreateSupportInquiry202JSONResponse{Body: api.SupportInquiryReceipt{Id: row.ID, ReceivedAt: row.ReceivedAt}}, nil
}
