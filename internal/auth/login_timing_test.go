package auth_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/auth"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// An unknown email and a wrong password answer the same 401 in the same time, with production's
// argon2id cost: the medians of 20 sign-ins each are within 20 % of each other. The samples
// alternate (in both orders) so that noise on a shared machine lands on both kinds alike; a
// round spoiled by a burst of noise is measured again, at most five rounds in all, while a
// real difference (an unknown email skipping the hash, say) fails every round.
func TestUnknownEmailAndWrongPasswordTakeTheSameTime(t *testing.T) {
	// Not parallel: the package's other tests would share the CPU with the samples.
	env := apitest.NewTuned(t, apitest.Tuning{HashParams: &auth.OWASPParams})
	u := env.NewUser()

	measure := func(email string) time.Duration {
		start := time.Now()
		// A fresh IP each time: neither the email+IP lock nor the per-IP rate interferes.
		login(env, env.NewIP(), email, "wrong-password-attempt").ExpectError(http.StatusUnauthorized, "Invalid email or password")
		return time.Since(start)
	}
	median := func(d []time.Duration) time.Duration {
		slices.Sort(d)
		return (d[len(d)/2-1] + d[len(d)/2]) / 2
	}
	measure(u.User.Email) // warm up: connections, caches
	measure(apitest.NewEmail())

	var wrong, unknown time.Duration
	for round := 1; round <= 5; round++ {
		var w, n []time.Duration
		for i := range 20 {
			if i%2 == 0 {
				w = append(w, measure(u.User.Email))
				n = append(n, measure(apitest.NewEmail()))
			} else {
				n = append(n, measure(apitest.NewEmail()))
				w = append(w, measure(u.User.Email))
			}
		}
		wrong, unknown = median(w), median(n)
		ratio := float64(max(wrong, unknown)) / float64(min(wrong, unknown))
		t.Logf("round %d: median wrong password %v, unknown email %v (ratio %.2f)", round, wrong, unknown, ratio)
		if ratio <= 1.2 {
			return
		}
	}
	t.Fatalf("medians differ by more than 20 %%: wrong password %v, unknown email %v", wrong, unknown)
}
