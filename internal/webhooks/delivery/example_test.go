package delivery_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/webhooks/delivery"
)

// verifySignature checks x-service-signature the way a receiver should: over the raw
// request body exactly as received (before any JSON parsing, which could change the bytes),
// with a constant-time comparison so that response timings reveal nothing about the
// expected signature.
func verifySignature(secret, body []byte, header string) bool {
	got, err := hex.DecodeString(strings.TrimSpace(header))
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return hmac.Equal(got, mac.Sum(nil))
}

// webhookHandler is a receiver's endpoint.
func webhookHandler(secret []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
		if err != nil {
			http.Error(w, "cannot read body", http.StatusBadRequest)
			return
		}
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
		// "at" is covered by the signature, so a receiver may also refuse events older than
		// a few minutes to limit replays.
		fmt.Println("received", event.Event, "at", event.At.Format(time.RFC3339))
		// Answer within 8 seconds with any 2xx; deliveries are not retried, so queue slow
		// work instead of doing it here.
		w.WriteHeader(http.StatusNoContent)
	}
}

func ExampleVerify() {
	secret := []byte("whsec_5f2b1c0e9d8a") // the subscription's secret
	handler := webhookHandler(secret)

	// Sous's side, simulated: one signed delivery, then one signed with another secret.
	body, _ := delivery.Envelope{
		Event: "temperature.alert",
		OrgID: uuid.MustParse("6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f"),
		At:    time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC),
		Data:  json.RawMessage(`{"siteId":"7d3c","celsius":9.5}`),
	}.Body()
	for _, signingSecret := range [][]byte{secret, []byte("whsec_someone_else")} {
		sig := delivery.Sign(signingSecret, body)
		req := httptest.NewRequest(http.MethodPost, "/webhooks/sous", bytes.NewReader(body))
		req.Header.Set("content-type", "application/json")
		req.Header.Set("x-service-event", "temperature.alert")
		req.Header.Set("x-service-signature", sig)
		rec := httptest.NewRecorder()
		handler(rec, req)
		// delivery.Verify is the same check as verifySignature.
		fmt.Println(rec.Code, delivery.Verify(secret, body, sig))
	}
	// Output:
	// received temperature.alert at 2026-03-02T09:00:00Z
	// 204 true
	// 401 false
}
