package auth_test

import (
	"net/http"
	"testing"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

func TestChangePasswordRevokesRefreshTokensAndReturnsFreshSession(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	u := env.NewUser()
	var second apitest.Session
	login(env, env.NewIP(), u.User.Email, apitest.Password).Expect(http.StatusOK).Decode(&second)

	const newPassword = "tray-line-at-dawn-42"
	var fresh apitest.Session
	env.Call(http.MethodPost, "auth/password").Token(u.AccessToken).
		JSON(map[string]string{"currentPassword": apitest.Password, "newPassword": newPassword}).
		Do().Expect(http.StatusOK).Decode(&fresh)
	if fresh.AccessToken == "" || fresh.RefreshToken == "" || fresh.User.ID != u.User.ID {
		t.Fatalf("fresh session %+v", fresh)
	}

	refresh(env, u.RefreshToken).ExpectError(http.StatusUnauthorized, "")
	refresh(env, second.RefreshToken).ExpectError(http.StatusUnauthorized, "")
	refresh(env, fresh.RefreshToken).Expect(http.StatusOK)

	login(env, env.NewIP(), u.User.Email, apitest.Password).ExpectError(http.StatusUnauthorized, "")
	login(env, env.NewIP(), u.User.Email, newPassword).Expect(http.StatusOK)
}

func TestChangePasswordFailures(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	u := env.NewUser()
	change := func(token, current, next string) *apitest.Response {
		return env.Call(http.MethodPost, "auth/password").Token(token).
			JSON(map[string]string{"currentPassword": current, "newPassword": next}).Do()
	}
	e := change(u.AccessToken, "not-my-password-at-all", "tray-line-at-dawn-42").ExpectError(http.StatusBadRequest, "")
	if len(e.Details) != 1 || e.Details[0].Field != "currentPassword" {
		t.Fatalf("details %+v", e.Details)
	}
	change(u.AccessToken, apitest.Password, "password1234").ExpectError(http.StatusBadRequest, "newPassword")
	change(u.AccessToken, apitest.Password, "short").ExpectError(http.StatusBadRequest, "newPassword")
	change("", apitest.Password, "tray-line-at-dawn-42").ExpectError(http.StatusUnauthorized, "")

	// Nothing changed.
	login(env, env.NewIP(), u.User.Email, apitest.Password).Expect(http.StatusOK)
	refresh(env, u.RefreshToken).Expect(http.StatusOK)
}
