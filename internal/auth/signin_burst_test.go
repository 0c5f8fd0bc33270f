package auth_test

import (
	"net/http"
	"sync"
	"testing"

	"github.com/sous-app/sous/internal/auth"
	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// shiftChange is production's password work on a 2-CPU server: OWASP's argon2id cost and the
// one hash slot the gate gives two CPUs (see TestGateSizeFollowsCPUsAndMemory).
var shiftChange = apitest.Tuning{HashParams: &auth.OWASPParams, HashSlots: 1}

// parallel runs n calls at once and counts their statuses.
func parallel(n int, call func(i int) int) map[int]int {
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() { defer wg.Done(); statuses[i] = call(i) }()
	}
	wg.Wait()
	count := map[int]int{}
	for _, s := range statuses {
		count[s]++
	}
	return count
}

// A shift change: 24 staff sign in at once, each from their own address, on a 2-CPU server
// with real OWASP-cost hashing. They wait their turn for the one hash slot; none is refused.
func TestTwentyFourSimultaneousSignInsAllSucceed(t *testing.T) {
	t.Parallel()
	env := apitest.NewTuned(t, shiftChange)
	emails := make([]string, 24)
	for i := range emails {
		emails[i] = env.NewUser().User.Email
	}
	count := parallel(len(emails), func(i int) int {
		return login(env, env.NewIP(), emails[i], apitest.Password).Status
	})
	if count[http.StatusOK] != 24 {
		t.Fatalf("statuses %v, want 24 × 200", count)
	}
}

// A frontend's CI registering test users from parallel tests: 12 registrations at once, each
// from its own address, on a 2-CPU server with real OWASP-cost hashing. All are created.
func TestTwelveSimultaneousRegistrationsAllSucceed(t *testing.T) {
	t.Parallel()
	env := apitest.NewTuned(t, shiftChange)
	count := parallel(12, func(int) int {
		return env.Call(http.MethodPost, "auth/register").FromIP(env.NewIP()).
			JSON(map[string]string{"name": "Line Cook", "email": apitest.NewEmail(), "password": apitest.Password}).
			Do().Status
	})
	if count[http.StatusCreated] != 12 {
		t.Fatalf("statuses %v, want 12 × 201", count)
	}
}
