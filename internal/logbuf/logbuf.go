// Package logbuf batches log lines into fewer writes: a busy server's access log would otherwise
// cost a system call per request. Lines reach the underlying writer whole, in order, within the
// flush interval, when the buffer fills, and on Close.
package logbuf

import (
	"io"
	"sync"
	"time"
)

// size is when a write flushes at once rather than waiting for the interval.
const size = 64 << 10

// Writer is an io.Writer that buffers whole lines; safe for concurrent use.
type Writer struct {
	mu   sync.Mutex
	buf  []byte
	out  io.Writer
	err  error
	stop chan struct{}
	done chan struct{}
}

// New starts a Writer onto out that flushes at least every interval until Close.
func New(out io.Writer, interval time.Duration) *Writer {
	w := &Writer{buf: make([]byte, 0, size), out: out, stop: make(chan struct{}), done: make(chan struct{})}
	go w.flushEvery(interval)
	return w
}

// Write buffers p, which the caller gives as whole lines (one record per call).
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf)+len(p) > size {
		w.flushLocked()
	}
	if len(p) > size {
		// A record larger than the buffer goes straight through.
		_, err := w.out.Write(p)
		return len(p), err
	}
	w.buf = append(w.buf, p...)
	return len(p), nil
}

// Flush writes what is buffered and reports the first write error seen since the last Flush.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flushLocked()
	err := w.err
	w.err = nil
	return err
}

func (w *Writer) flushLocked() {
	if len(w.buf) == 0 {
		return
	}
	if _, err := w.out.Write(w.buf); err != nil && w.err == nil {
		w.err = err
	}
	w.buf = w.buf[:0]
}

// Close stops the interval and flushes what is left.
func (w *Writer) Close() error {
	close(w.stop)
	<-w.done
	return w.Flush()
}

func (w *Writer) flushEvery(interval time.Duration) {
	defer close(w.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			_ = w.Flush()
		}
	}
}
