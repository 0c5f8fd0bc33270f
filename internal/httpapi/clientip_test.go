package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/sous-app/sous/internal/config"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// Without trusted proxies, X-Forwarded-For is the client's own claim and must not let it dodge
// a per-IP limit.
func TestForwardedForIsIgnoredFromUntrustedPeers(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, func(c *config.Config) { c.TrustedProxies = nil })
	register := func(ip string) *apitest.Response {
		return env.Call(http.MethodPost, "auth/register").FromIP(ip).
			JSON(map[string]string{"name": "A", "email": apitest.NewEmail(), "password": apitest.Password}).Do()
	}
	for i := 0; i < 3; i++ {
		register(env.NewIP()).Expect(http.StatusCreated)
	}
	register(env.NewIP()).ExpectError(http.StatusTooManyRequests, "")
}

// Behind a trusted proxy the client is the address the proxy saw: the rightmost untrusted entry.
func TestForwardedForFromTrustedProxyNamesTheClient(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	register := func(xff string) *apitest.Response {
		return env.Call(http.MethodPost, "auth/register").Header("X-Forwarded-For", xff).
			JSON(map[string]string{"name": "A", "email": apitest.NewEmail(), "password": apitest.Password}).Do()
	}
	// A client-supplied first entry does not change who the client is.
	for _, spoof := range []string{"1.1.1.1", "2.2.2.2", "3.3.3.3"} {
		register(spoof + ", 203.0.113.9").Expect(http.StatusCreated)
	}
	register("4.4.4.4, 203.0.113.9").ExpectError(http.StatusTooManyRequests, "")
	register("203.0.113.10").Expect(http.StatusCreated)
}
