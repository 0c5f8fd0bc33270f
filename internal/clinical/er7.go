package clinical

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/internal/apierr"
	"github.com/sous-app/sous/internal/hl7"
	"github.com/sous-app/sous/internal/reqinfo"
)

// ER7MediaType is raw HL7 v2 as interface engines (Mirth Connect, Rhapsody, Cloverleaf) post it
// and read acknowledgements in.
const ER7MediaType = "x-application/hl7-v2+er7"

// duplicateNote is MSA-3 of a duplicate's AA: accepted, but nothing was applied again.
const duplicateNote = "Duplicate: already processed"

// ingestInput reads the site and the HL7 text from either form of the request: JSON
// {siteId, message}, or an ER7 body with the site in the query.
func ingestInput(req api.IngestHl7RequestObject) (uuid.UUID, string, error) {
	if req.JSONBody != nil {
		return req.JSONBody.SiteId, req.JSONBody.Message, nil
	}
	if req.Params.SiteId == nil {
		return uuid.Nil, "", apierr.InvalidField("siteId", "is required with an "+ER7MediaType+" body")
	}
	if req.Body == nil {
		return uuid.Nil, "", apierr.InvalidField("body", "is required")
	}
	b, err := io.ReadAll(req.Body)
	if err != nil {
		return uuid.Nil, "", err
	}
	return *req.Params.SiteId, string(b), nil
}

// ingestResponse answers the results as JSON, or as one ACK per message when the client asked
// for ER7.
func ingestResponse(ctx context.Context, out api.Hl7IngestResult, message string, now time.Time) (api.IngestHl7ResponseObject, error) {
	if !wantsER7(reqinfo.Accept(ctx)) {
		return api.IngestHl7200JSONResponse(out), nil
	}
	acks, err := acknowledge(message, out.Results, now)
	if err != nil {
		return nil, err
	}
	return api.IngestHl7200XApplicationhl7V2Er7Response{Body: bytes.NewReader(acks), ContentLength: int64(len(acks))}, nil
}

// acknowledge builds the ACK of each message. The body is parsed again (the ingest's parse
// buffers are pooled and already released): results are in body order, one per message.
func acknowledge(message string, results []api.Hl7MessageResult, now time.Time) ([]byte, error) {
	batch, err := hl7.ParseString(message)
	if err != nil && !errors.Is(err, hl7.ErrNoMessage) {
		return nil, err
	}
	var b []byte
	for i := range batch.Messages {
		if i >= len(results) {
			break
		}
		m, r := &batch.Messages[i], results[i]
		a := hl7.Ack{At: now, ControlID: ackControlID(m.ControlID(), i)}
		reason := ""
		if r.Detail.Reason != nil {
			reason = *r.Detail.Reason
		}
		switch r.Outcome {
		case api.Hl7OutcomeApplied:
			a.Code = hl7.AckAccept
		case api.Hl7OutcomeDuplicate:
			a.Code, a.Text = hl7.AckAccept, duplicateNote
		case api.Hl7OutcomeSkipped:
			a.Code, a.Text, a.Error = hl7.AckError, reason, reason
		default:
			a.Code, a.Text, a.Error = hl7.AckReject, reason, reason
		}
		b = hl7.AppendACK(b, m, a)
	}
	return b, nil
}

// ackControlID is the ACK's own MSH-10: derived from the message's, so an engine can match them
// by eye (MSH-10 is at most 20 characters in v2.5).
func ackControlID(controlID string, index int) string {
	if controlID == "" {
		controlID = strconv.Itoa(index + 1)
	}
	id := "ACK-" + controlID
	if len(id) > 20 {
		id = id[:20]
	}
	return id
}

// wantsER7 reports whether Accept prefers ER7 over JSON: ER7 is listed with a non-zero quality
// at least as high as any range that covers JSON.
func wantsER7(accept string) bool {
	if accept == "" {
		return false
	}
	er7, json := -1.0, -1.0
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		switch mt {
		case ER7MediaType:
			er7 = max(er7, q)
		case "application/json", "application/*", "*/*":
			json = max(json, q)
		}
	}
	return er7 > 0 && er7 >= json
}
