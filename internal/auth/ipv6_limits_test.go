package auth_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// An IPv6 client holds a whole /64: per-client limits count the network, not the address, or a
// client would dodge every one of them by changing the last 64 bits.
func TestSignInLimitsCountAnIPv6NetworkAsOneClient(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	u := env.NewUser()
	// The email+address lock: five failures from five addresses of one /64 lock the sixth.
	for i := range 5 {
		login(env, fmt.Sprintf("2001:db8:7:1::%x", i+1), u.User.Email, "wrong-password-attempt").
			ExpectCode(http.StatusUnauthorized, "invalid_credentials")
		env.Clock.Advance(time.Minute)
	}
	login(env, "2001:db8:7:1:ffff::9", u.User.Email, apitest.Password).ExpectCode(http.StatusTooManyRequests, "account_locked")
	// The neighbouring /64 is someone else.
	login(env, "2001:db8:7:2::1", u.User.Email, apitest.Password).Expect(http.StatusOK)

	// The per-client sign-in rate (30 a minute whatever the emails) holds across the /64 too.
	env.Clock.Advance(time.Hour)
	for i := range 30 {
		login(env, fmt.Sprintf("2001:db8:8:1:%x::1", i+1), apitest.NewEmail(), "wrong-password-attempt").
			ExpectCode(http.StatusUnauthorized, "invalid_credentials")
	}
	res := login(env, "2001:db8:8:1:abcd::1", apitest.NewEmail(), "wrong-password-attempt")
	res.ExpectError(http.StatusTooManyRequests, "")
	if res.Header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}
	login(env, "2001:db8:8:2::1", apitest.NewEmail(), "wrong-password-attempt").
		ExpectCode(http.StatusUnauthorized, "invalid_credentials")
}
