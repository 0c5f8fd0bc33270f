package auth_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

func refresh(env *apitest.Env, token string) *apitest.Response {
	return env.Call(http.MethodPost, "auth/refresh").JSON(map[string]string{"refreshToken": token}).Do()
}

func TestRefreshRotatesTheToken(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	u := env.NewUser()

	var next apitest.Session
	refresh(env, u.RefreshToken).Expect(http.StatusOK).Decode(&next)
	if next.RefreshToken == u.RefreshToken || next.AccessToken == "" || next.User.ID != u.User.ID || next.ExpiresIn != 900 {
		t.Fatalf("refreshed session %+v", next)
	}
	env.Call(http.MethodGet, "auth/me").Token(next.AccessToken).Do().Expect(http.StatusOK)
}

func TestRefreshTokenReuseRevokesTheFamily(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	u := env.NewUser()
	var next apitest.Session
	refresh(env, u.RefreshToken).Expect(http.StatusOK).Decode(&next)

	// The consumed token is presented again: refused, and its descendant dies with it.
	refresh(env, u.RefreshToken).ExpectCode(http.StatusUnauthorized, "refresh_token_reused")
	refresh(env, next.RefreshToken).ExpectCode(http.StatusUnauthorized, "invalid_refresh_token")

	// Other sign-ins of the same user are untouched.
	var other apitest.Session
	login(env, env.NewIP(), u.User.Email, apitest.Password).Expect(http.StatusOK).Decode(&other)
	refresh(env, other.RefreshToken).Expect(http.StatusOK)
}

func TestRefreshTokenExpiresAfterThirtyDays(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	a, b := env.NewUser(), env.NewUser()
	env.Clock.Advance(30*24*time.Hour - time.Second)
	refresh(env, a.RefreshToken).Expect(http.StatusOK)
	env.Clock.Advance(time.Second)
	refresh(env, b.RefreshToken).ExpectError(http.StatusUnauthorized, "")
}

func TestRefreshRejectsUnknownTokens(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	refresh(env, "rt_not-a-real-token").ExpectCode(http.StatusUnauthorized, "invalid_refresh_token")
	refresh(env, "").ExpectError(http.StatusBadRequest, "refreshToken")
}

func TestLogoutRevokesTheSession(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	u := env.NewUser()
	var next apitest.Session
	refresh(env, u.RefreshToken).Expect(http.StatusOK).Decode(&next)

	env.Call(http.MethodPost, "auth/logout").JSON(map[string]string{"refreshToken": next.RefreshToken}).Do().Expect(http.StatusNoContent)
	refresh(env, next.RefreshToken).ExpectError(http.StatusUnauthorized, "")
	// Repeating it, or logging out an unknown token, is harmless.
	env.Call(http.MethodPost, "auth/logout").JSON(map[string]string{"refreshToken": next.RefreshToken}).Do().Expect(http.StatusNoContent)
	env.Call(http.MethodPost, "auth/logout").JSON(map[string]string{"refreshToken": "rt_unknown"}).Do().Expect(http.StatusNoContent)
}

func TestAccessTokenExpiresAfterFifteenMinutes(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	u := env.NewUser()
	env.Clock.Advance(15*time.Minute - time.Second)
	env.Call(http.MethodGet, "auth/me").Token(u.AccessToken).Do().Expect(http.StatusOK)
	env.Clock.Advance(time.Second)
	env.Call(http.MethodGet, "auth/me").Token(u.AccessToken).Do().ExpectCode(http.StatusUnauthorized, "token_expired")
	env.Call(http.MethodGet, "auth/me").Token(u.AccessToken+"x").Do().ExpectCode(http.StatusUnauthorized, "invalid_token")
}
