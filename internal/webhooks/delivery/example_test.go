package delivery_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/webhooks/delivery"
)

// ExampleVerify runs the webhooks guide's receiver (receiver_example_test.go) against a delivery
// signed as Sous signs it, then against one signed with another secret and one whose body was
// changed after signing.
func ExampleVerify() {
	secret := []byte("whsec_5f2b1c0e9d8a") // the subscription's secret
	handler := webhookHandler(secret, log.New(os.Stdout, "", 0))

	body, _ := delivery.Envelope{
		ID:    uuid.MustParse("0192f3a4-0000-7000-8000-0000000000e1"),
		Event: "alert.created",
		OrgID: uuid.MustParse("6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f"),
		At:    time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC),
		Data:  json.RawMessage(`{"alertId":"0192f3a4-0000-7000-8000-0000000000a1","siteId":null,"kind":"temperature_excursion","severity":"warning"}`),
	}.Body()
	reformatted := append(bytes.ReplaceAll(body, []byte(`,"`), []byte(`, "`)), ' ')
	for _, c := range []struct {
		signingSecret []byte
		sent          []byte
	}{
		{secret, body},
		{[]byte("whsec_someone_else"), body},
		{secret, reformatted}, // the same JSON value, other bytes
	} {
		sig := delivery.Sign(c.signingSecret, body)
		req := httptest.NewRequest(http.MethodPost, "/webhooks/sous", bytes.NewReader(c.sent))
		req.Header.Set("content-type", "application/json")
		req.Header.Set("x-service-event", "alert.created")
		req.Header.Set("x-service-signature", sig)
		rec := httptest.NewRecorder()
		handler(rec, req)
		// delivery.Verify is the same check as the receiver's verifySignature.
		fmt.Println(rec.Code, delivery.Verify(secret, c.sent, sig) == verifySignature(secret, c.sent, sig))
	}
	// Output:
	// received alert.created for 6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f at 2026-03-02T09:00:00Z: {"alertId":"0192f3a4-0000-7000-8000-0000000000a1","siteId":null,"kind":"temperature_excursion","severity":"warning"}
	// 204 true
	// 401 true
	// 401 true
}
