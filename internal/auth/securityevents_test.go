package auth_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/auth"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

type securityEvent struct {
	ID        string  `json:"id"`
	At        string  `json:"at"`
	Kind      string  `json:"kind"`
	IP        *string `json:"ip"`
	UserAgent *string `json:"userAgent"`
}

// securityEvents follows the Link headers through every page of the user's log.
func securityEvents(t *testing.T, env *apitest.Env, token string, limit string) []securityEvent {
	t.Helper()
	var all []securityEvent
	path := "auth/security-events?limit=" + limit
	for pages := 0; path != ""; pages++ {
		if pages > 20 {
			t.Fatal("too many pages")
		}
		res := env.Call(http.MethodGet, path).Token(token).Do().Expect(http.StatusOK)
		var page []securityEvent
		res.Decode(&page)
		all = append(all, page...)
		path = ""
		if link := res.Header.Get("Link"); link != "" {
			u, err := url.Parse(strings.TrimSuffix(strings.TrimPrefix(link, "<"), `>; rel="next"`))
			if err != nil {
				t.Fatal(err)
			}
			path = u.RequestURI()
		}
	}
	return all
}

func kinds(events []securityEvent) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.Kind
	}
	return out
}

// Every kind of security event is recorded for its user, failures included although their
// request fails, and listed newest first across pages; others' events and unknown emails
// leave nothing in the log.
func TestSecurityEventsRecordTheAccountsHistory(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	step := func() { env.Clock.Advance(10 * time.Second) }
	ip, lockIP := env.NewIP(), env.NewIP()
	const agent = "SousTest/1.0 (tablet)"
	email := apitest.NewEmail()

	var s apitest.Session
	env.Call(http.MethodPost, "auth/register").FromIP(ip).Header("User-Agent", agent).
		JSON(map[string]string{"name": "Ana Gomez", "email": email, "password": apitest.Password}).
		Do().Expect(http.StatusCreated).Decode(&s)
	step()
	login(env, ip, email, "wrong-password-attempt").ExpectError(http.StatusUnauthorized, "")
	step()
	login(env, ip, email, apitest.Password).Expect(http.StatusOK).Decode(&s)
	step()
	changePassword := func(current string) *apitest.Response {
		return env.Call(http.MethodPost, "auth/password").Token(s.AccessToken).FromIP(ip).
			JSON(map[string]string{"currentPassword": current, "newPassword": "tray-line-at-dawn-42"}).Do()
	}
	changePassword("wrong-password-attempt").ExpectError(http.StatusBadRequest, "currentPassword")
	step()
	changePassword(apitest.Password).Expect(http.StatusOK).Decode(&s)
	step()
	refresh(env, s.RefreshToken).Expect(http.StatusOK)
	refresh(env, s.RefreshToken).ExpectError(http.StatusUnauthorized, "")
	step()
	login(env, ip, email, "tray-line-at-dawn-42").Expect(http.StatusOK).Decode(&s)
	step()
	for range 2 { // the second sign-out ends nothing and records nothing
		env.Call(http.MethodPost, "auth/logout").JSON(map[string]string{"refreshToken": s.RefreshToken}).Do().Expect(http.StatusNoContent)
	}
	step()
	for range 5 {
		login(env, lockIP, email, "wrong-password-attempt").ExpectError(http.StatusUnauthorized, "")
	}
	login(env, lockIP, email, "wrong-password-attempt").ExpectError(http.StatusTooManyRequests, "")
	// Neither an unknown email nor another user's activity reaches this log.
	login(env, ip, apitest.NewEmail(), "wrong-password-attempt").ExpectError(http.StatusUnauthorized, "")
	other := env.NewUser()
	login(env, ip, other.User.Email, "wrong-password-attempt").ExpectError(http.StatusUnauthorized, "")

	events := securityEvents(t, env, s.AccessToken, "4")
	want := []string{
		"locked", "sign_in_failed", "sign_in_failed", "sign_in_failed", "sign_in_failed", "sign_in_failed",
		"signed_out", "sign_in", "refresh_reuse_detected", "password_changed", "sign_in_failed", "sign_in",
		"sign_in_failed", "registered",
	}
	if got := kinds(events); !slices.Equal(got, want) {
		t.Fatalf("events\n got %v\nwant %v", got, want)
	}
	first := events[len(events)-1]
	if first.IP == nil || *first.IP != ip || first.UserAgent == nil || *first.UserAgent != agent {
		t.Fatalf("registered event %+v, want ip %s and user agent %q", first, ip, agent)
	}
	if events[0].IP == nil || *events[0].IP != lockIP {
		t.Fatalf("locked event %+v, want ip %s", events[0], lockIP)
	}
	if got := kinds(securityEvents(t, env, other.AccessToken, "50")); !slices.Equal(got, []string{"sign_in_failed", "registered"}) {
		t.Fatalf("other user's events %v", got)
	}
	env.Call(http.MethodGet, "auth/security-events").Do().ExpectError(http.StatusUnauthorized, "")
	env.Call(http.MethodGet, "auth/security-events?cursor=bogus").Token(s.AccessToken).Do().ExpectError(http.StatusBadRequest, "cursor")
}

// Security events are kept 90 days: the retention task deletes older ones and keeps the rest.
func TestSecurityEventsAreKeptNinetyDays(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	u := env.NewUser() // registered at the epoch
	env.Clock.Advance(auth.SecurityEventRetention - time.Minute)
	var s apitest.Session
	login(env, env.NewIP(), u.User.Email, apitest.Password).Expect(http.StatusOK).Decode(&s)
	task := auth.SecurityEventRetentionTask(env.Pool, env.Clock)

	if err := task.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := kinds(securityEvents(t, env, s.AccessToken, "50")); !slices.Equal(got, []string{"sign_in", "registered"}) {
		t.Fatalf("before 90 days: %v", got)
	}
	env.Clock.Advance(2 * time.Minute)
	if err := task.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := kinds(securityEvents(t, env, s.AccessToken, "50")); !slices.Equal(got, []string{"sign_in"}) {
		t.Fatalf("after 90 days: %v", got)
	}
}
