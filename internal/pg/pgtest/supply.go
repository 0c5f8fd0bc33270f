package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"
)

// supply hands out fresh databases cloned from the template. A test's CREATE DATABASE costs a
// copy of the template and a checkpoint: from a few hundred milliseconds to over a second on a
// busy machine, which most tests would spend waiting. So a few clones are made ahead, in the
// background, while tests run; and a finished test's database is dropped in the background
// too. Teardown drops what was made ahead and never used, and waits for every drop.
type supply struct {
	e     *env
	ready chan string // clones made ahead
	stop  chan struct{}
	bg    sync.WaitGroup // makeAhead
	drops sync.WaitGroup // releases in progress

	mu      sync.Mutex
	dropErr error
	// filled is signalled (under mu) each time makeAhead puts a clone in ready or ends; ended
	// says it has.
	filled *sync.Cond
	ended  bool
}

// ahead is how many clones wait ready: the tests a binary runs at once (-parallel defaults to
// GOMAXPROCS), so that each finds one.
func ahead() int { return max(2, runtime.GOMAXPROCS(0)) }

func newSupply(e *env) *supply {
	s := &supply{e: e, ready: make(chan string, ahead()), stop: make(chan struct{})}
	s.filled = sync.NewCond(&s.mu)
	s.bg.Add(1)
	go s.makeAhead()
	return s
}

// makeAhead keeps the ready channel full until stopped. A failed clone stops it: take then
// clones on the test's own time and reports the error to that test.
func (s *supply) makeAhead() {
	defer s.bg.Done()
	defer s.signal(true)
	for {
		select {
		case <-s.stop:
			return
		default:
		}
		name, err := s.clone(context.Background())
		if err != nil {
			return
		}
		select {
		case s.ready <- name:
			s.signal(false)
		case <-s.stop:
			s.drop(name)
			return
		}
	}
}

func (s *supply) signal(end bool) {
	s.mu.Lock()
	s.ended = s.ended || end
	s.filled.Broadcast()
	s.mu.Unlock()
}

// quiet waits until the drops of finished tests are done and every clone made ahead is ready,
// none being made: then no CREATE or DROP DATABASE (each a copy or a removal of files and a
// checkpoint) runs beside what comes next.
func (s *supply) quiet() {
	s.drops.Wait()
	s.mu.Lock()
	for len(s.ready) < cap(s.ready) && !s.ended {
		s.filled.Wait()
	}
	s.mu.Unlock()
}

// take returns a fresh database: one made ahead, or one cloned now.
func (s *supply) take(ctx context.Context) (string, error) {
	select {
	case name := <-s.ready:
		return name, nil
	default:
		return s.clone(ctx)
	}
}

func (s *supply) clone(ctx context.Context) (string, error) {
	name := "sous_test_" + randomHex(8)
	create := fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s%s", ident(name), ident(s.e.template), s.e.strategy)
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if _, err := s.e.admin.Exec(ctx, create); err != nil {
		return "", fmt.Errorf("%s: %w", create, err)
	}
	return name, nil
}

// release drops a test's database in the background. Connections still open are terminated.
func (s *supply) release(name string) {
	s.drops.Add(1)
	go func() {
		defer s.drops.Done()
		s.drop(name)
	}()
}

// settle waits for the drops of finished tests.
func (s *supply) settle() { s.drops.Wait() }

func (s *supply) drop(name string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	drop := fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", ident(name))
	if _, err := s.e.admin.Exec(ctx, drop); err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: %s: %v\n", drop, err)
		s.mu.Lock()
		s.dropErr = errors.Join(s.dropErr, err)
		s.mu.Unlock()
	}
}

// close stops making clones ahead, drops the unused ones and waits for every drop.
func (s *supply) close() error {
	close(s.stop)
	s.dropReady()
	s.bg.Wait()
	s.drops.Wait()
	// makeAhead may have put one more in before it saw stop.
	s.dropReady()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dropErr
}

// dropReady drops the clones made ahead that no test took.
func (s *supply) dropReady() {
	for {
		select {
		case name := <-s.ready:
			s.drop(name)
		default:
			return
		}
	}
}
