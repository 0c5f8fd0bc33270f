package auth_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// An access token must carry exp, iat, iss and sub; a correctly signed token lacking any of
// them is refused.
func TestAccessTokensRequireEveryClaim(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	u := env.NewUser()
	full := func() map[string]any {
		return map[string]any{
			"iss": "sous",
			"sub": u.User.ID.String(),
			"iat": apitest.Epoch.Unix(),
			"exp": apitest.Epoch.Add(10 * time.Minute).Unix(),
		}
	}
	// The control: the same hand-signed token with every claim is accepted, so each refusal
	// below is the missing claim's doing.
	env.Call(http.MethodGet, "auth/me").Token(env.SignToken(full())).Do().Expect(http.StatusOK)
	for _, claim := range []string{"exp", "iat", "iss", "sub"} {
		t.Run("without "+claim, func(t *testing.T) {
			claims := full()
			delete(claims, claim)
			env.With(t).Call(http.MethodGet, "auth/me").Token(env.SignToken(claims)).Do().
				ExpectError(http.StatusUnauthorized, "")
		})
	}
}
