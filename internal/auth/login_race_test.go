package auth_test

import (
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/httpapi/apitest"
)

// Parallel guesses for one email from one IP, spread over two replicas, get at most five
// password verifications; every other attempt is refused with 429 before any argon2id work.
func TestParallelGuessesGetAtMostFiveVerifications(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	replica := env.Replica()
	u := env.NewUser()
	ip := env.NewIP()

	statuses := make([]int, 100)
	var wg sync.WaitGroup
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			target := env
			if i%2 == 1 {
				target = replica
			}
			statuses[i] = login(target, ip, u.User.Email, "wrong-password-attempt").Status
		}()
	}
	wg.Wait()

	count := map[int]int{}
	for _, s := range statuses {
		count[s]++
	}
	v := int(env.Verifications())
	if v < 1 || v > 5 {
		t.Fatalf("%d verifications for 100 parallel guesses, want 1 to 5", v)
	}
	if count[http.StatusUnauthorized] != v || count[http.StatusTooManyRequests] != 100-v {
		t.Fatalf("statuses %v with %d verifications: want %d × 401 and the rest 429", count, v, v)
	}
}

// 39 wrong guesses in parallel and the right password last: the five reserved attempts are held
// in verification while the rest arrive, and even the right password is refused while they are
// outstanding and after they failed.
func TestReservedAttemptsHoldTheLockWhileVerifying(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	replica := env.Replica()
	u := env.NewUser()
	ip := env.NewIP()

	release := make(chan struct{})
	var releaseOnce sync.Once
	open := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(open)
	env.OnVerify(func() { <-release })

	results := make(chan int, 39)
	for i := range 39 {
		go func() {
			target := env
			if i%2 == 1 {
				target = replica
			}
			results <- login(target, ip, u.User.Email, "wrong-password-attempt").Status
		}()
	}
	// The 34 attempts without a reservation answer at once; the five reserved ones wait in
	// verification.
	deadline := time.After(30 * time.Second)
	count := map[int]int{}
	for range 34 {
		select {
		case s := <-results:
			count[s]++
		case <-deadline:
			t.Fatalf("only %v answered while verifications were held; %d verifications started", count, env.Verifications())
		}
	}
	if count[http.StatusTooManyRequests] != 34 {
		t.Fatalf("while five attempts verify: %v, want 34 × 429", count)
	}
	right := login(env, ip, u.User.Email, apitest.Password)
	right.ExpectError(http.StatusTooManyRequests, "")
	if ra, _ := strconv.Atoi(right.Header.Get("Retry-After")); ra <= 60 {
		t.Fatalf("Retry-After %d: the right password was not refused by the 15-minute reservation", ra)
	}

	open()
	for range 5 {
		count[<-results]++
	}
	if count[http.StatusUnauthorized] != 5 || env.Verifications() != 5 {
		t.Fatalf("statuses %v, %d verifications; want 5 × 401 and 5 verifications", count, env.Verifications())
	}
	// The five failures locked the pair: the right password is still refused.
	login(env, ip, u.User.Email, apitest.Password).ExpectError(http.StatusTooManyRequests, "")
	if env.Verifications() != 5 {
		t.Fatalf("%d verifications after the lock", env.Verifications())
	}
}

// When every argon2id slot is busy, a sign-in waits briefly and then answers 503 with
// Retry-After instead of queueing; the refused attempt does not count toward the lock.
func TestSignInAnswersBusyWhenPasswordWorkIsFull(t *testing.T) {
	t.Parallel()
	env := apitest.NewTuned(t, apitest.Tuning{HashSlots: 1})
	u := env.NewUser()
	ip := env.NewIP()

	held := make(chan struct{})
	release := make(chan struct{})
	var releaseOnce sync.Once
	open := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(open)
	env.OnVerify(func() {
		held <- struct{}{}
		<-release
	})
	first := make(chan int, 1)
	go func() { first <- login(env.With(t), env.NewIP(), apitest.NewEmail(), "wrong-password-attempt").Status }()
	<-held // the only slot is taken

	for range 5 {
		busy := login(env, ip, u.User.Email, "wrong-password-attempt")
		busy.ExpectError(http.StatusServiceUnavailable, "")
		if busy.Header.Get("Retry-After") == "" {
			t.Fatal("503 without Retry-After")
		}
		var body struct{ Code string }
		busy.Decode(&body)
		if body.Code != "service_busy" {
			t.Fatalf("code %q, want service_busy", body.Code)
		}
	}
	env.OnVerify(nil)
	open()
	if s := <-first; s != http.StatusUnauthorized {
		t.Fatalf("held attempt answered %d", s)
	}
	// The five attempts refused as busy never checked a password: they neither locked the pair
	// nor still hold reservations.
	login(env, ip, u.User.Email, apitest.Password).Expect(http.StatusOK)
}

// One client IP may try 30 sign-ins a minute, whatever the emails.
func TestSignInRatePerIP(t *testing.T) {
	t.Parallel()
	env := apitest.New(t)
	ip := env.NewIP()
	for range 30 {
		login(env, ip, apitest.NewEmail(), "wrong-password-attempt").ExpectError(http.StatusUnauthorized, "")
	}
	login(env, ip, apitest.NewEmail(), "wrong-password-attempt").ExpectError(http.StatusTooManyRequests, "")
	u := env.NewUser()
	login(env, env.NewIP(), u.User.Email, apitest.Password).Expect(http.StatusOK)
	env.Clock.Advance(time.Minute)
	login(env, ip, u.User.Email, apitest.Password).Expect(http.StatusOK)
}
