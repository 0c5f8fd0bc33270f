package realtime_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/sous-app/sous/internal/realtime"
)

// socketsPerReplica is the load each replica is sized for.
const socketsPerReplica = 2000

// BenchmarkHintLatency measures from the start of the commit of a change on
// one replica to the frame read by a device's WebSocket client on the other,
// with socketsPerReplica sockets open on each replica. "device" hints one
// device; "org" hints an organization that owns every one of those sockets
// and counts each socket's frame as a sample.
func BenchmarkHintLatency(b *testing.B) {
	poolA, poolB := replicas(b)
	hubA, _ := startHub(b, poolA)
	hubB, _ := startHub(b, poolB)
	srvA := serveSockets(b, hubA, realtime.SocketOptions{})
	srvB := serveSockets(b, hubB, realtime.SocketOptions{})

	org := uuid.New()
	arrivals := make(chan time.Time, 2*socketsPerReplica)
	for _, srv := range []*socketServer{srvA, srvB} {
		for range socketsPerReplica {
			conn := srv.dial(b, uuid.New(), org)
			go func() {
				for {
					if _, _, err := conn.Read(context.Background()); err != nil {
						return
					}
					arrivals <- time.Now()
				}
			}()
		}
	}

	b.Run("device", func(b *testing.B) {
		device := uuid.New()
		conn := srvB.dial(b, device, uuid.New())
		var samples []time.Duration
		for b.Loop() {
			start := time.Now()
			notify(b, poolA, device)
			readFrame(b, conn)
			samples = append(samples, time.Since(start))
		}
		report(b, samples)
	})

	b.Run("org", func(b *testing.B) {
		var samples []time.Duration
		for b.Loop() {
			start := time.Now()
			commit(b, poolA, func(ctx context.Context, tx pgx.Tx) error {
				return realtime.NotifyOrg(ctx, tx, org)
			})
			for range 2 * socketsPerReplica {
				select {
				case at := <-arrivals:
					samples = append(samples, at.Sub(start))
				case <-time.After(patience):
					b.Fatal("a socket of the organization got no frame")
				}
			}
		}
		report(b, samples)
	})
}

func report(b *testing.B, samples []time.Duration) {
	slices.Sort(samples)
	at := func(q float64) float64 {
		i := min(int(q*float64(len(samples))), len(samples)-1)
		return float64(samples[i]) / float64(time.Millisecond)
	}
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
	b.ReportMetric(at(1), "max-ms")
}
