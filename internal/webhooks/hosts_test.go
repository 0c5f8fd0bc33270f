package webhooks_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// A URL whose host, read as the dialer and the C resolver read it, is not a public address (or
// a name resolving only to public addresses) is refused when it is set, at creation and at
// update, with details naming url; nothing is written. Until SOUS_WEBHOOK_ALLOW_PRIVATE.
func TestNumericAndNonPublicHostsAreRefusedWhenSet(t *testing.T) {
	t.Parallel()
	env := apitest.New(t) // SOUS_WEBHOOK_ALLOW_PRIVATE is off
	owner, orgID := env.NewOwner("Harborview")
	kept := subscribe(env, owner.AccessToken, orgID, "https://hooks.example.com/kept", "*")
	for _, tc := range []struct{ url, message string }{
		{"https://2130706433/in", "private or reserved address (127.0.0.1)"},
		{"https://0177.0.0.1/in", "private or reserved address (127.0.0.1)"},
		{"https://0x7f.0.0.1/in", "private or reserved address (127.0.0.1)"},
		{"https://127.1/in", "private or reserved address (127.0.0.1)"},
		{"https://0/in", "private or reserved address (0.0.0.0)"},
		{"https://0x7f000001:8443/in", "private or reserved address (127.0.0.1)"},
		{"https://169.254.43518/latest", "private or reserved address (169.254.169.254)"},
		{"https://127.0.0.1./in", "private or reserved address (127.0.0.1)"},
		{"https://[::ffff:127.0.0.1]/in", "private or reserved address (::ffff:127.0.0.1)"},
		{"https://[::ffff:a9fe:a9fe]/in", "private or reserved address (::ffff:169.254.169.254)"},
		{"https://[::127.0.0.1]/in", "private or reserved address"},
		{"https://[64:ff9b::7f00:1]/in", "private or reserved address"},
		{"https://134744072/in", "four decimal numbers (8.8.8.8)"},
		{"https://1.2.3.4.5/in", "is not a valid host"},
		{"https://hooks.private.example/in", "private or reserved address (hooks.private.example resolves to 10.0.0.7)"},
		{"https://nothing.invalid/in", "must name a host that resolves"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			for _, call := range []struct{ method, path, body string }{
				{http.MethodPost, hooksPath(orgID), fmt.Sprintf(`{"url":%q,"events":["*"]}`, tc.url)},
				{http.MethodPatch, hooksPath(orgID, kept.ID.String()), fmt.Sprintf(`{"url":%q}`, tc.url)},
			} {
				e := env.Call(call.method, call.path).Token(owner.AccessToken).JSON(call.body).Do().ExpectError(http.StatusBadRequest, "")
				if len(e.Details) != 1 || e.Details[0].Field != "url" || !strings.Contains(e.Details[0].Message, tc.message) {
					t.Errorf("%s: details %+v, want url: %q", call.method, e.Details, tc.message)
				}
			}
		})
	}
	var n int
	var url string
	if err := env.Pool.QueryRow(t.Context(), `SELECT count(*), min(url) FROM webhook_subscriptions`).Scan(&n, &url); err != nil || n != 1 || url != kept.URL {
		t.Fatalf("subscriptions after refused requests: %d (%s), err %v", n, url, err)
	}

	// A lookup that cannot be made now is not a verdict on the URL: 503, retry later.
	res := env.Call(http.MethodPost, hooksPath(orgID)).Token(owner.AccessToken).JSON(`{"url":"https://hooks.servfail.example/in","events":["*"]}`).Do()
	res.ExpectError(http.StatusServiceUnavailable, "could not be looked up")
	if res.Header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}

	// Local development lifts the rule.
	dev := apitest.New(t, allowPrivate)
	devOwner, devOrg := dev.NewOwner("Bench")
	subscribe(dev, devOwner.AccessToken, devOrg, "http://2130706433:9000/in", "*")
}
