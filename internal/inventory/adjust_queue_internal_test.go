package inventory

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/sous-app/sous/gen/api"
	"github.com/sous-app/sous/internal/apierr"
)

// gatedPostings stands in for the database: each posting reports its size on entered and waits
// for a release; fail decides a posting's outcome.
type gatedPostings struct {
	entered chan int
	release chan struct{}
	fail    func(adjs []*adjustment) error
	panics  bool

	mu    sync.Mutex
	sizes []int
}

func newGatedPostings() *gatedPostings {
	return &gatedPostings{entered: make(chan int, 100), release: make(chan struct{}, 100)}
}

func (g *gatedPostings) post(ctx context.Context, _, _ uuid.UUID, adjs []*adjustment) (time.Time, error) {
	g.mu.Lock()
	g.sizes = append(g.sizes, len(adjs))
	g.mu.Unlock()
	g.entered <- len(adjs)
	<-g.release
	if g.fail != nil {
		return time.Time{}, g.fail(adjs)
	}
	if g.panics {
		panic("posting bug")
	}
	return time.Unix(0, 0), nil
}

func oneLine() *adjustment { return &adjustment{in: make([]api.StockAdjustLine, 1)} }

// waitPending spins until n adjustments of the site wait for a posting.
func waitPending(q *adjustQueue, key siteKey, n int) {
	for {
		q.mu.Lock()
		got := 0
		if s := q.sites[key]; s != nil {
			got = len(s.pending)
		}
		q.mu.Unlock()
		if got == n {
			return
		}
		runtime.Gosched()
	}
}

// queueFixture is a queue of one site over gated postings, and the requests posting to it.
type queueFixture struct {
	t   *testing.T
	g   *gatedPostings
	q   *adjustQueue
	key siteKey
	wg  sync.WaitGroup
}

func newQueueFixture(t *testing.T) *queueFixture {
	g := newGatedPostings()
	return &queueFixture{t: t, g: g, q: newAdjustQueue(g.post), key: siteKey{uuid.New(), uuid.New()}}
}

// start posts adj from its own goroutine, as a request would; its error goes to errs, or fails
// the test when errs is nil.
func (f *queueFixture) start(ctx context.Context, adj *adjustment, errs chan<- error) {
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		_, err := f.q.post(ctx, f.key, adj)
		if errs != nil {
			errs <- err
		} else if err != nil {
			f.t.Error(err)
		}
	}()
}

// busy starts maxSitePostings one-line adjustments, one at a time, each its own posting, and
// leaves those postings waiting for a release.
func (f *queueFixture) busy() {
	for range maxSitePostings {
		f.start(f.t.Context(), oneLine(), nil)
		if n := <-f.g.entered; n != 1 {
			f.t.Fatalf("a posting at an idle site carries %d", n)
		}
	}
}

func (f *queueFixture) release(n int) {
	for range n {
		f.g.release <- struct{}{}
	}
}

func TestAdjustmentsArrivingDuringPostingsShareTheNext(t *testing.T) {
	f := newQueueFixture(t)
	f.busy()
	// Everything arriving meanwhile waits, then goes in postings of at most maxSharedAdjustments.
	for range maxSharedAdjustments + 6 {
		f.start(t.Context(), oneLine(), nil)
	}
	waitPending(f.q, f.key, maxSharedAdjustments+6)
	f.release(maxSitePostings)
	sizes := []int{<-f.g.entered, <-f.g.entered}
	slices.Sort(sizes)
	if sizes[0] != 6 || sizes[1] != maxSharedAdjustments {
		t.Fatalf("next postings carry %v, want 6 and %d", sizes, maxSharedAdjustments)
	}
	f.release(2)
	f.wg.Wait()
	f.q.mu.Lock()
	defer f.q.mu.Unlock()
	if len(f.q.sites) != 0 {
		t.Fatalf("an idle site keeps %d queue entries", len(f.q.sites))
	}
}

func TestAdjustmentsShareAPostingUpToTheLineBound(t *testing.T) {
	f := newQueueFixture(t)
	f.busy()
	// 3 adjustments of 200 lines: two fit in a posting of at most maxSharedLines lines.
	for range 3 {
		f.start(t.Context(), &adjustment{in: make([]api.StockAdjustLine, 200)}, nil)
	}
	waitPending(f.q, f.key, 3)
	f.release(1)
	if n := <-f.g.entered; n != 2 {
		t.Fatalf("the posting carries %d adjustments of 200 lines, want 2", n)
	}
	f.release(3)
	f.wg.Wait()
}

func TestAWaitingAdjustmentWhoseRequestEndsIsNotPosted(t *testing.T) {
	f := newQueueFixture(t)
	f.busy()
	ctx, cancel := context.WithCancel(t.Context())
	errs := make(chan error, 1)
	f.start(ctx, oneLine(), errs)
	waitPending(f.q, f.key, 1)
	cancel()
	if err := <-errs; !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	f.release(maxSitePostings)
	f.wg.Wait()
	f.g.mu.Lock()
	defer f.g.mu.Unlock()
	if len(f.g.sizes) != maxSitePostings {
		t.Fatalf("postings %v: the abandoned adjustment was posted", f.g.sizes)
	}
}

func TestAFailedSharedPostingIsRetriedAdjustmentByAdjustment(t *testing.T) {
	for _, c := range []struct {
		name    string
		err     error
		retried bool
	}{
		{"the database", errors.New("connection reset"), true},
		{"the site", apierr.NotFound("Site"), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newQueueFixture(t)
			f.g.fail = func(adjs []*adjustment) error {
				if len(adjs) > 1 {
					return c.err
				}
				return nil
			}
			f.busy()
			errs := make(chan error, 3)
			for range 3 {
				f.start(t.Context(), oneLine(), errs)
			}
			waitPending(f.q, f.key, 3)
			f.release(10)
			f.wg.Wait()
			close(errs)
			failed := 0
			for err := range errs {
				if err != nil {
					failed++
				}
			}
			want := 3
			if c.retried {
				want = 0
			}
			if failed != want {
				t.Fatalf("%d of the 3 sharing a posting failed, want %d (postings %v)", failed, want, f.g.sizes)
			}
		})
	}
}

func TestAPanickingPostingAnswersItsRequests(t *testing.T) {
	g := newGatedPostings()
	g.panics = true
	q := newAdjustQueue(g.post)
	g.release <- struct{}{}
	_, err := q.post(t.Context(), siteKey{uuid.New(), uuid.New()}, oneLine())
	if err == nil || !strings.Contains(err.Error(), "posting bug") {
		t.Fatalf("err %v", err)
	}
}
