package logbuf

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// countingWriter records each write it receives.
type countingWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes++
	return c.buf.Write(p)
}

func TestLinesArriveWholeInOrderInFewWrites(t *testing.T) {
	t.Parallel()
	out := &countingWriter{}
	w := New(out, time.Hour) // only size and Close flush here
	const n = 5000
	for i := range n {
		fmt.Fprintf(w, "line %05d %s\n", i, strings.Repeat("x", 60))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.buf.String(), "\n"), "\n")
	if len(lines) != n {
		t.Fatalf("%d lines, want %d", len(lines), n)
	}
	for i, l := range lines {
		if !strings.HasPrefix(l, fmt.Sprintf("line %05d ", i)) || len(l) != 71 {
			t.Fatalf("line %d = %q", i, l)
		}
	}
	// 5000 × 72 bytes in 64 KiB buffers: 6 writes, not 5000.
	if out.writes > 6 {
		t.Errorf("%d writes for %d lines", out.writes, n)
	}
}

func TestConcurrentWritersKeepLinesWhole(t *testing.T) {
	t.Parallel()
	out := &countingWriter{}
	w := New(out, time.Millisecond)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				fmt.Fprintf(w, "g%d %04d %s\n", g, i, strings.Repeat("y", 100+g))
			}
		})
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for l := range strings.Lines(out.buf.String()) {
		var g, i int
		var pad string
		if _, err := fmt.Sscanf(l, "g%d %d %s\n", &g, &i, &pad); err != nil || len(pad) != 100+g {
			t.Fatalf("torn line %q", l)
		}
		seen[fmt.Sprint(g)]++
	}
	for g := range 8 {
		if seen[fmt.Sprint(g)] != 500 {
			t.Errorf("writer %d: %d lines", g, seen[fmt.Sprint(g)])
		}
	}
}

func TestARecordLargerThanTheBufferGoesThrough(t *testing.T) {
	t.Parallel()
	out := &countingWriter{}
	w := New(out, time.Hour)
	fmt.Fprintln(w, "small")
	big := strings.Repeat("z", size+10) + "\n"
	fmt.Fprint(w, big)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := out.buf.String(); got != "small\n"+big {
		t.Fatalf("order lost: %d bytes", len(got))
	}
}

// blockingWriter holds every write until released.
type blockingWriter struct {
	countingWriter
	release chan struct{}
}

func (b *blockingWriter) Write(p []byte) (int, error) {
	<-b.release
	return b.countingWriter.Write(p)
}

// A stalled output (a log collector that stopped reading) does not stall the requests that log:
// lines are taken while a write is held, up to the queue's bound, and all arrive in order once
// the output moves again.
func TestAStalledOutputDoesNotBlockWriters(t *testing.T) {
	t.Parallel()
	out := &blockingWriter{release: make(chan struct{})}
	w := New(out, time.Hour)
	line := strings.Repeat("q", 1000) + "\n"
	// Enough for several full buffers, fewer than the queue holds: none of these may wait.
	n := (queueLen / 2) * size / len(line)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range n {
			fmt.Fprintf(w, "%06d%s", i, line)
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("writers waited on a stalled output")
	}
	close(out.release)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	i := 0
	for l := range strings.Lines(out.buf.String()) {
		if !strings.HasPrefix(l, fmt.Sprintf("%06d", i)) {
			t.Fatalf("line %d is %.10q", i, l)
		}
		i++
	}
	if i != n {
		t.Fatalf("%d lines, want %d", i, n)
	}
}

func TestFlushWaitsForTheOutputAndReportsItsError(t *testing.T) {
	t.Parallel()
	out := &failingWriter{}
	w := New(out, time.Hour)
	fmt.Fprintln(w, "one")
	if err := w.Flush(); err == nil || out.lines != "one\n" {
		t.Fatalf("Flush = %v, written %q", err, out.lines)
	}
	if err := w.Flush(); err != nil {
		t.Fatalf("a second Flush reports the same error again: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// After Close a line goes straight through.
	fmt.Fprintln(w, "late")
	if out.lines != "one\nlate\n" {
		t.Fatalf("written %q", out.lines)
	}
}

type failingWriter struct{ lines string }

func (f *failingWriter) Write(p []byte) (int, error) {
	f.lines += string(p)
	return len(p), io.ErrShortWrite
}

// Lines written while Close runs are either written before it returns or go straight through
// after it: none is lost between the last flush and the Writer closing.
func TestCloseLosesNoLineWrittenMeanwhile(t *testing.T) {
	t.Parallel()
	for range 50 {
		out := &countingWriter{}
		w := New(out, time.Hour)
		var wg sync.WaitGroup
		const n = 200
		for g := range 4 {
			wg.Go(func() {
				for i := range n {
					fmt.Fprintf(w, "g%d %d\n", g, i)
				}
			})
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		out.mu.Lock()
		lines := strings.Count(out.buf.String(), "\n")
		out.mu.Unlock()
		if lines != 4*n {
			t.Fatalf("%d lines written, want %d", lines, 4*n)
		}
	}
}
