package auth_test

import (
	"net/http"
	"testing"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// A registration refused with 400, whatever refuses it, does not use up the client IP's three
// registrations an hour; an email already registered (409) does, so the limit still slows down
// probing for accounts.
func TestRefusedRegistrationsDoNotUseTheAllowance(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	register := func(ip string, body any) *apitest.Response {
		return env.Call(http.MethodPost, "auth/register").FromIP(ip).JSON(body).Do()
	}
	valid := func() map[string]string {
		return map[string]string{"name": "Ana Gomez", "email": apitest.NewEmail(), "password": apitest.Password}
	}
	ip := env.NewIP()
	refused := map[string]any{
		"blank name":         map[string]string{"name": "  ", "email": apitest.NewEmail(), "password": apitest.Password},
		"common password":    map[string]string{"name": "Ana Gomez", "email": apitest.NewEmail(), "password": "password1234"},
		"not the schema":     map[string]any{"name": "Ana Gomez", "email": "not-an-email", "password": apitest.Password},
		"NUL in the name":    map[string]string{"name": "Ana\u0000Gomez", "email": apitest.NewEmail(), "password": apitest.Password},
		"NUL in the orgName": map[string]string{"name": "Ana Gomez", "email": apitest.NewEmail(), "password": apitest.Password, "orgName": "Harbor\u0000view"},
	}
	for name, body := range refused {
		t.Run(name, func(t *testing.T) {
			for range 2 {
				env.With(t).Call(http.MethodPost, "auth/register").FromIP(ip).JSON(body).Do().ExpectError(http.StatusBadRequest, "")
			}
		})
	}
	for range 3 {
		register(ip, valid()).Expect(http.StatusCreated)
	}
	register(ip, valid()).ExpectError(http.StatusTooManyRequests, "")

	taken := env.NewUser().User.Email
	other := env.NewIP()
	for range 3 {
		register(other, map[string]string{"name": "Ana Gomez", "email": taken, "password": apitest.Password}).
			ExpectError(http.StatusConflict, "")
	}
	register(other, valid()).ExpectError(http.StatusTooManyRequests, "")
}
