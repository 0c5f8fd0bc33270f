package webhooks_test

import (
	"context"
	"testing"
	"time"

	"github.com/sous-app/sous/internal/clock"
	"github.com/sous-app/sous/internal/pg"
	"github.com/sous-app/sous/internal/pg/pgtest"
	"github.com/sous-app/sous/internal/webhooks"
)

// TestListenerLeavesAFrozenPrimary: the dispatcher's LISTEN connection hears nothing from a
// primary that froze, and without an idle ping it would stay there, deaf, for as long as the
// operating system keeps the connection. It pings after a quiet spell, drops the connection that
// does not answer, and listens again once the database answers.
func TestListenerLeavesAFrozenPrimary(t *testing.T) {
	// Not parallel: it shortens the listener's package-wide timings.
	defer webhooks.ShortenListenTimings(100*time.Millisecond, 200*time.Millisecond)()
	url := pgtest.NewURL(t)
	proxy := pgtest.NewProxy(t, url)
	pool := pgtest.ConnectThrough(t, proxy.URL(url), pg.Options{ConnectTimeout: 300 * time.Millisecond})
	d := webhooks.NewDispatcher(webhooks.DispatcherOptions{Pool: pool, Clock: clock.Real{}, PollInterval: time.Hour})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { _ = d.Run(ctx); close(done) }()
	defer func() { proxy.Thaw(); cancel(); <-done }()

	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("still waiting for %s after 10s", what)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitFor("the listener", func() bool { return d.ListenerPID() != 0 })
	first := d.ListenerPID()
	proxy.Freeze()
	waitFor("the listener to give up on the frozen server", func() bool { return d.ListenerPID() == 0 })
	proxy.Thaw()
	waitFor("a new listening session", func() bool { return d.ListenerPID() != 0 && d.ListenerPID() != first })
}
