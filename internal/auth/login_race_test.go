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

// Password operations wait in a queue for the slots; a sign-in is refused with 503
// service_busy and Retry-After only when its address already holds its share of the queue or
// the queue is full, and the refused attempt does not count toward the lock.
func TestSignInAnswersBusyWhenTheQueueIsFull(t *testing.T) {
	t.Parallel()
	// One hash slot: two sign-ins in progress; two places in the queue, one per address.
	env := apitest.NewTuned(t, apitest.Tuning{HashSlots: 1, QueueLimit: 2, QueueShare: 1})
	u := env.NewUser()
	a, b := env.NewIP(), env.NewIP()

	held := make(chan struct{})
	release := make(chan struct{})
	var releaseOnce sync.Once
	open := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(open)
	env.OnVerify(func() {
		held <- struct{}{}
		<-release
	})
	queued := make(chan struct{}, 10)
	env.OnQueued(func() { queued <- struct{}{} })
	inFlight := make(chan int, 4)
	start := func(ip string) {
		go func() { inFlight <- login(env.With(t), ip, apitest.NewEmail(), "wrong-password-attempt").Status }()
	}
	start(env.NewIP())
	<-held // the only hash slot is taken
	// Two sign-ins from a: one takes the second slot (and waits for the hash), one is queued.
	start(a)
	start(a)
	<-queued

	busy := func(ip string) {
		t.Helper()
		res := login(env, ip, u.User.Email, "wrong-password-attempt")
		res.ExpectCode(http.StatusServiceUnavailable, "service_busy")
		if ra, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || ra < 1 {
			t.Fatalf("Retry-After %q", res.Header.Get("Retry-After"))
		}
	}
	// a holds its share of the queue, though the queue has room.
	for range 5 {
		busy(a)
	}
	start(b)
	<-queued
	// The queue is full: c is refused though it holds no place.
	c := env.NewIP()
	busy(c)
	// A malformed registration needs neither a hash nor a place: it is a 400 however full the queue.
	env.Call(http.MethodPost, "auth/register").FromIP(c).
		JSON(map[string]string{"name": " ", "email": apitest.NewEmail(), "password": "walk-in-cooler-pantry-9"}).Do().
		ExpectError(http.StatusBadRequest, "")

	env.OnVerify(nil)
	open()
	count := map[int]int{}
	for range 4 {
		count[<-inFlight]++
	}
	if count[http.StatusUnauthorized] != 4 {
		t.Fatalf("sign-ins in progress and queued answered %v, want 4 × 401", count)
	}
	// The attempts refused as busy never checked a password: they neither locked the pair nor
	// still hold reservations.
	login(env, a, u.User.Email, apitest.Password).Expect(http.StatusOK)
	login(env, c, u.User.Email, apitest.Password).Expect(http.StatusOK)
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
