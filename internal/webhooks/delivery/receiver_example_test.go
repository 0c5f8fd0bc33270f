package delivery_test

// A partner's receiver, written with the standard library alone. The webhooks guide's
// "Verifying a delivery" shows this file from its imports down, and
// TestReadmeShowsTheCompiledReceivers holds the two to the same bytes; ExampleVerify runs it
// against signed deliveries.

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"strings"
	"time"
)

// verifySignature checks x-service-signature over the raw body exactly as received, keyed
// with the subscription's secret, comparing in constant time (hmac.Equal).
func verifySignature(secret, body []byte, header string) bool {
	got, err := hex.DecodeString(strings.TrimSpace(header))
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return hmac.Equal(got, mac.Sum(nil))
}

func webhookHandler(secret []byte, logger *log.Logger) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
		if err != nil {
			http.Error(w, "cannot read body", http.StatusBadRequest)
			return
		}
		// Verify the bytes received, before parsing: re-serialized JSON can differ.
		if !verifySignature(secret, body, r.Header.Get("x-service-signature")) {
			http.Error(w, "invalid signature", http.StatusUnauthorized)
			return
		}
		var event struct {
			Event string          `json:"event"`
			OrgID string          `json:"orgId"`
			At    time.Time       `json:"at"`
			Data  json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(body, &event); err != nil {
			http.Error(w, "invalid JSON", http.StatusBadRequest)
			return
		}
		// "at" is signed too: refusing events older than a few minutes limits replays.
		logger.Printf("received %s for %s at %s: %s", event.Event, event.OrgID, event.At.Format(time.RFC3339), event.Data)
		// Answer within 8 seconds; deliveries are not retried, so queue slow work.
		w.WriteHeader(http.StatusNoContent)
	}
}
