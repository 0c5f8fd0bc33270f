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

func TestAdjustmentsArrivingDuringPostingsShareTheNext(t *testing.T) {
	g := newGatedPostings()
	q := newAdjustQueue(g.post)
	key := siteKey{uuid.New(), uuid.New()}
	var wg sync.WaitGroup
	post := func(n int) {
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := q.post(t.Context(), key, oneLine()); err != nil {
					t.Error(err)
				}
			}()
		}
	}
	// An idle site posts at once, up to maxSitePostings postings in flight.
	for range maxSitePostings {
		post(1)
		if n := <-g.entered; n != 1 {
			t.Fatalf("first postings carry %d", n)
		}
	}
	// Everything arriving meanwhile waits, then goes in postings of at most maxSharedAdjustments.
	post(maxSharedAdjustments + 6)
	waitPending(q, key, maxSharedAdjustments+6)
	for range maxSitePostings {
		g.release <- struct{}{}
	}
	sizes := []int{<-g.entered, <-g.entered}
	slices.Sort(sizes)
	if sizes[0] != 6 || sizes[1] != maxSharedAdjustments {
		t.Fatalf("next postings carry %v, want 6 and %d", sizes, maxSharedAdjustments)
	}
	g.release <- struct{}{}
	g.release <- struct{}{}
	wg.Wait()
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.sites) != 0 {
		t.Fatalf("an idle site keeps %d queue entries", len(q.sites))
	}
}

func TestAdjustmentsShareAPostingUpToTheLineBound(t *testing.T) {
	g := newGatedPostings()
	q := newAdjustQueue(g.post)
	key := siteKey{uuid.New(), uuid.New()}
	var wg sync.WaitGroup
	start := func(adj *adjustment) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := q.post(t.Context(), key, adj); err != nil {
				t.Error(err)
			}
		}()
	}
	for range maxSitePostings {
		start(oneLine())
		<-g.entered
	}
	// 3 adjustments of 200 lines: two fit in a posting of at most maxSharedLines lines.
	for range 3 {
		start(&adjustment{in: make([]api.StockAdjustLine, 200)})
	}
	waitPending(q, key, 3)
	g.release <- struct{}{}
	if n := <-g.entered; n != 2 {
		t.Fatalf("the posting carries %d adjustments of 200 lines, want 2", n)
	}
	for range 3 {
		g.release <- struct{}{}
	}
	wg.Wait()
}

func TestAWaitingAdjustmentWhoseRequestEndsIsNotPosted(t *testing.T) {
	g := newGatedPostings()
	q := newAdjustQueue(g.post)
	key := siteKey{uuid.New(), uuid.New()}
	var wg sync.WaitGroup
	for range maxSitePostings {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q.post(t.Context(), key, oneLine())
		}()
		<-g.entered
	}
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() {
		_, err := q.post(ctx, key, oneLine())
		errc <- err
	}()
	waitPending(q, key, 1)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	for range maxSitePostings {
		g.release <- struct{}{}
	}
	wg.Wait()
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.sizes) != maxSitePostings {
		t.Fatalf("postings %v: the abandoned adjustment was posted", g.sizes)
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
			g := newGatedPostings()
			g.fail = func(adjs []*adjustment) error {
				if len(adjs) > 1 {
					return c.err
				}
				return nil
			}
			q := newAdjustQueue(g.post)
			key := siteKey{uuid.New(), uuid.New()}
			var wg sync.WaitGroup
			errs := make(chan error, 10)
			start := func() {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, err := q.post(t.Context(), key, oneLine())
					errs <- err
				}()
			}
			for range maxSitePostings {
				start()
				<-g.entered
			}
			for range 3 {
				start()
			}
			waitPending(q, key, 3)
			for range 10 {
				g.release <- struct{}{}
			}
			wg.Wait()
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
				t.Fatalf("%d of 5 failed, want %d (postings %v)", failed, want, g.sizes)
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
