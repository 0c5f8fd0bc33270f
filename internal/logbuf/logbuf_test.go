package logbuf

import (
	"bytes"
	"fmt"
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
