package webhooks

import "time"

// ShortenListenTimings makes the event listener's idle check, ping and backoff fast for a test;
// the returned function restores them.
func ShortenListenTimings(idle, ping time.Duration) (restore func()) {
	oldIdle, oldPing, oldBackoff := listenIdleCheck, listenPingTimeout, listenMinBackoff
	listenIdleCheck, listenPingTimeout, listenMinBackoff = idle, ping, 50*time.Millisecond
	return func() { listenIdleCheck, listenPingTimeout, listenMinBackoff = oldIdle, oldPing, oldBackoff }
}
