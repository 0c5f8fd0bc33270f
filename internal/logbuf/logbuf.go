// Package logbuf batches log lines into fewer writes: a busy server's access log would otherwise
// cost a system call per request. Lines reach the underlying writer whole, in order, within the
// flush interval, when the buffer fills, and on Flush and Close.
//
// The writes themselves happen on a goroutine of their own, so a request that logs never waits
// for the output: standard output is often a pipe to a log collector, and a collector that
// stalls (or a 64 KiB write to a slow disk) must not stall every request that logs meanwhile.
// Only when queueLen full buffers are waiting does a Write wait, which bounds the memory.
package logbuf

import (
	"io"
	"sync"
	"time"
)

const (
	// size is when a buffer is handed to the writer at once rather than at the interval.
	size = 64 << 10
	// queueLen bounds the full buffers waiting for the output: 1 MiB of lines.
	queueLen = 16
)

// Writer is an io.Writer that buffers whole lines; safe for concurrent use.
type Writer struct {
	mu     sync.Mutex // guards buf, closed and the order of sends on queue
	buf    []byte
	closed bool

	queue chan batch  // in the order the lines were written
	free  chan []byte // emptied buffers, reused
	out   io.Writer

	stop chan struct{}
	done chan struct{} // closed when the ticker and the output goroutine have stopped
	err  error         // the first write error since the last Flush; the output goroutine's
}

// batch is lines for the output goroutine; ack, when set, receives the first write error since
// the last acknowledged batch once everything before it and it are written.
type batch struct {
	lines []byte
	ack   chan error
}

// New starts a Writer onto out that flushes at least every interval until Close.
func New(out io.Writer, interval time.Duration) *Writer {
	w := &Writer{
		buf: make([]byte, 0, size), out: out,
		queue: make(chan batch, queueLen), free: make(chan []byte, queueLen+1),
		stop: make(chan struct{}), done: make(chan struct{}),
	}
	var wg sync.WaitGroup
	wg.Go(w.output)
	wg.Go(func() { w.tick(interval) })
	go func() { wg.Wait(); close(w.done) }()
	return w
}

// Write buffers p, which the caller gives as whole lines (one record per call).
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return w.out.Write(p)
	}
	if len(w.buf)+len(p) > size {
		w.handOffLocked(nil)
	}
	if len(p) > size {
		// A record larger than the buffer goes to the output as it is, after what came before.
		w.queue <- batch{lines: append([]byte(nil), p...)}
		return len(p), nil
	}
	w.buf = append(w.buf, p...)
	return len(p), nil
}

// handOffLocked queues the buffered lines (and ack) for the output and starts a new buffer.
func (w *Writer) handOffLocked(ack chan error) {
	if len(w.buf) == 0 && ack == nil {
		return
	}
	w.queue <- batch{lines: w.buf, ack: ack}
	select {
	case b := <-w.free:
		w.buf = b[:0]
	default:
		w.buf = make([]byte, 0, size)
	}
}

// Flush writes what is buffered, waits until it is written, and reports the first write error
// seen since the last Flush.
func (w *Writer) Flush() error { return w.finish(false) }

// Close stops the interval, writes what is left and stops the output goroutine; later writes go
// straight to the output.
func (w *Writer) Close() error { return w.finish(true) }

// finish hands off what is buffered and waits until it is written; closing, it also marks the
// Writer closed and stops its goroutines, under the same lock as the hand-off, so no line written
// before Close returns is left behind.
func (w *Writer) finish(closing bool) error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	ack := make(chan error, 1)
	w.handOffLocked(ack)
	if closing {
		w.closed = true
		close(w.stop)
		close(w.queue)
	}
	w.mu.Unlock()
	err := <-ack
	if closing {
		<-w.done
	}
	return err
}

func (w *Writer) output() {
	for b := range w.queue {
		if len(b.lines) > 0 {
			if _, err := w.out.Write(b.lines); err != nil && w.err == nil {
				w.err = err
			}
			if cap(b.lines) == size {
				select {
				case w.free <- b.lines:
				default:
				}
			}
		}
		if b.ack != nil {
			b.ack <- w.err
			w.err = nil
		}
	}
}

func (w *Writer) tick(interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			w.mu.Lock()
			if !w.closed {
				w.handOffLocked(nil)
			}
			w.mu.Unlock()
		}
	}
}
