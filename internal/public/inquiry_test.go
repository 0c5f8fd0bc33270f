package public_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

const inquiry = `{"name":"Ana Gomez","email":"ana@harborview-kitchens.example","org":"Harborview Kitchens","topic":"Pricing","message":"Twelve kitchens; a demo please."}`

func TestSupportInquiryIsStored(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	var r struct {
		ID         uuid.UUID `json:"id"`
		ReceivedAt time.Time `json:"receivedAt"`
	}
	env.Call(http.MethodPost, "support-inquiry").FromIP(env.NewIP()).JSON(inquiry).Do().Expect(http.StatusAccepted).Decode(&r)
	if !r.ReceivedAt.Equal(apitest.Epoch) {
		t.Fatalf("receipt %+v", r)
	}
	var name, email, topic, message, ip string
	var org *string
	if err := env.Pool.QueryRow(t.Context(), `SELECT name, email, org, topic, message, ip FROM support_inquiries WHERE id = $1`, r.ID).
		Scan(&name, &email, &org, &topic, &message, &ip); err != nil {
		t.Fatal(err)
	}
	if name != "Ana Gomez" || email != "ana@harborview-kitchens.example" || org == nil || *org != "Harborview Kitchens" || topic != "Pricing" || message != "Twelve kitchens; a demo please." || ip == "" {
		t.Fatalf("stored %q %q %v %q %q %q", name, email, org, topic, message, ip)
	}
	// org is optional; no credential is needed, and a session changes nothing.
	env.Call(http.MethodPost, "support-inquiry").FromIP(env.NewIP()).
		JSON(`{"name":"Sam","email":"sam@example.com","topic":"Support","message":"Hello"}`).Do().Expect(http.StatusAccepted)
	owner, _ := env.NewOwner("Harborview")
	env.Call(http.MethodPost, "support-inquiry").FromIP(env.NewIP()).Token(owner.AccessToken).JSON(inquiry).Do().Expect(http.StatusAccepted)
}

func TestSupportInquiryValidation(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	ip := env.NewIP()
	for _, tc := range []struct{ body, field string }{
		{`{"email":"a@b.example","topic":"t","message":"m"}`, "name"},
		{`{"name":"A","email":"not-an-email","topic":"t","message":"m"}`, "email"},
		{`{"name":"A","email":"a@b.example","message":"m"}`, "topic"},
		{`{"name":"A","email":"a@b.example","topic":"t","message":""}`, "message"},
		{`{"name":"A","email":"a@b.example","topic":"t","message":"   "}`, "message"},
		{`{"name":"  ","email":"a@b.example","topic":"t","message":"m"}`, "name"},
		{`{"name":"A","email":"a@b.example","topic":"t","message":"m","priority":"urgent"}`, "priority"},
		{`not json`, "body"},
	} {
		e := env.Call(http.MethodPost, "support-inquiry").FromIP(ip).JSON(tc.body).Do().ExpectError(http.StatusBadRequest, "")
		found := false
		for _, d := range e.Details {
			found = found || d.Field == tc.field
		}
		if !found {
			t.Errorf("%s: details %+v, want field %s", tc.body, e.Details, tc.field)
		}
	}
	var n int
	if err := env.Pool.QueryRow(t.Context(), `SELECT count(*) FROM support_inquiries`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d inquiries stored from invalid requests", n)
	}
	// Invalid requests did not use up the sender's allowance.
	env.Call(http.MethodPost, "support-inquiry").FromIP(ip).JSON(inquiry).Do().Expect(http.StatusAccepted)
}

func TestSupportInquiryIsRateLimitedPerIP(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	ip := env.NewIP()
	for range 5 {
		env.Call(http.MethodPost, "support-inquiry").FromIP(ip).JSON(inquiry).Do().Expect(http.StatusAccepted)
	}
	res := env.Call(http.MethodPost, "support-inquiry").FromIP(ip).JSON(inquiry).Do()
	res.ExpectError(http.StatusTooManyRequests, "Too many requests")
	if secs, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || secs < 1 || secs > 3600 {
		t.Fatalf("Retry-After %q", res.Header.Get("Retry-After"))
	}
	env.Call(http.MethodPost, "support-inquiry").FromIP(env.NewIP()).JSON(inquiry).Do().Expect(http.StatusAccepted)

	env.Clock.Advance(time.Hour)
	env.Call(http.MethodPost, "support-inquiry").FromIP(ip).JSON(inquiry).Do().Expect(http.StatusAccepted)
}
