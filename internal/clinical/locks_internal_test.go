package clinical

import (
	"context"
	"runtime"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/sous-app/sous/internal/apierr"
)

// TestOrgLocksBoundTheQueue: one holder, maxWaiting waiters, and the next caller is refused at
// once with a rate limit; another organization is unaffected; everyone gets through in the end.
func TestOrgLocksBoundTheQueue(t *testing.T) {
	l := orgLocks{m: map[uuid.UUID]*orgLock{}}
	org := uuid.New()
	unlock, err := l.lock(context.Background(), org)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range maxWaiting {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u, err := l.lock(context.Background(), org)
			if err != nil {
				t.Error(err)
				return
			}
			u()
		}()
	}
	for {
		l.mu.Lock()
		n := l.m[org].refs
		l.mu.Unlock()
		if n == maxWaiting+1 {
			break
		}
		runtime.Gosched()
	}
	if _, err := l.lock(context.Background(), org); err == nil {
		t.Fatal("queue not bounded")
	} else if e, ok := apierr.As(err); !ok || e.Kind != apierr.KindRateLimited {
		t.Fatalf("error %v", err)
	}
	other, err := l.lock(context.Background(), uuid.New())
	if err != nil {
		t.Fatal(err)
	}
	other()
	unlock()
	wg.Wait()
	if len(l.m) != 0 {
		t.Fatalf("%d entries left", len(l.m))
	}
}
