package auth_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

func login(env *apitest.Env, ip, email, password string) *apitest.Response {
	return env.Call(http.MethodPost, "auth/login").FromIP(ip).
		JSON(map[string]string{"email": email, "password": password}).Do()
}

func TestLoginReturnsSession(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	owner, orgID := env.NewOwner("Harborview")
	var s apitest.Session
	login(env, env.NewIP(), strings.ToUpper(owner.User.Email), apitest.Password).Expect(http.StatusOK).Decode(&s)
	if s.User.ID != owner.User.ID || s.ExpiresIn != 900 || s.RefreshToken == owner.RefreshToken {
		t.Fatalf("session %+v", s)
	}
	if len(s.User.Memberships) != 1 || s.User.Memberships[0].OrgID != orgID {
		t.Fatalf("memberships %+v", s.User.Memberships)
	}
}

func TestLoginFailuresLookAlike(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	u := env.NewUser()
	wrongPassword := login(env, env.NewIP(), u.User.Email, "not-the-password-at-all").ExpectError(http.StatusUnauthorized, "")
	noSuchUser := login(env, env.NewIP(), apitest.NewEmail(), "not-the-password-at-all").ExpectError(http.StatusUnauthorized, "")
	if wrongPassword.Error != noSuchUser.Error {
		t.Fatalf("wrong password %+v and unknown email %+v differ", wrongPassword, noSuchUser)
	}
}

func TestLoginLocksEmailAndIPAfterFiveFailures(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	u := env.NewUser()
	ip := env.NewIP()
	for i := 0; i < 5; i++ {
		login(env, ip, u.User.Email, "wrong-password-attempt").ExpectCode(http.StatusUnauthorized, "invalid_credentials")
		env.Clock.Advance(time.Minute)
	}
	// Locked: even the right password is refused, with the time left until the lock opens.
	res := login(env, ip, u.User.Email, apitest.Password)
	res.ExpectCode(http.StatusTooManyRequests, "account_locked")
	if got := res.Header.Get("Retry-After"); got != strconv.Itoa(14*60) {
		t.Fatalf("Retry-After %q, want %d", got, 14*60)
	}
	// Another IP, and another email from the same IP, are not locked.
	login(env, env.NewIP(), u.User.Email, apitest.Password).Expect(http.StatusOK)
	other := env.NewUser()
	login(env, ip, other.User.Email, apitest.Password).Expect(http.StatusOK)

	env.Clock.Advance(14*time.Minute - time.Second)
	login(env, ip, u.User.Email, apitest.Password).ExpectError(http.StatusTooManyRequests, "")
	env.Clock.Advance(time.Second)
	login(env, ip, u.User.Email, apitest.Password).Expect(http.StatusOK)
}

func TestLoginFailuresOutsideTheWindowDoNotLock(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	u := env.NewUser()
	ip := env.NewIP()
	for i := 0; i < 8; i++ {
		login(env, ip, u.User.Email, "wrong-password-attempt").ExpectCode(http.StatusUnauthorized, "invalid_credentials")
		env.Clock.Advance(4 * time.Minute) // never five within 15 minutes
	}
	login(env, ip, u.User.Email, apitest.Password).Expect(http.StatusOK)
}

func TestSuccessfulLoginForgetsEarlierFailures(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	u := env.NewUser()
	ip := env.NewIP()
	for i := 0; i < 4; i++ {
		login(env, ip, u.User.Email, "wrong-password-attempt").Expect(http.StatusUnauthorized)
	}
	login(env, ip, u.User.Email, apitest.Password).Expect(http.StatusOK)
	for i := 0; i < 4; i++ {
		login(env, ip, u.User.Email, "wrong-password-attempt").Expect(http.StatusUnauthorized)
	}
	login(env, ip, u.User.Email, apitest.Password).Expect(http.StatusOK)
}

func TestLoginValidation(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	env.Call(http.MethodPost, "auth/login").JSON(`{"email":"a@b.example"}`).Do().ExpectError(http.StatusBadRequest, "password")
	env.Call(http.MethodPost, "auth/login").Raw("text/plain", []byte("hello")).Do().ExpectError(http.StatusUnsupportedMediaType, "")
}
