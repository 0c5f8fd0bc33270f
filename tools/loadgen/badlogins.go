package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A sign-in flood: -bad-logins N keeps N sign-ins with distinct unknown emails in flight for the
// run, each from its own client address (X-Forwarded-For, which the server believes only when
// started with SOUS_TRUSTED_PROXIES covering this machine), so neither the email+IP lock nor
// the per-IP rate stops it: what holds is the server's bound on concurrent password hashing.
// Meanwhile the constant-rate attack on -url measures what another tenant sees, and -rss-pid
// samples the server's resident memory. The flood is closed-loop on purpose: an attacker holding
// N requests open is exactly the load in question.

type floodConfig struct {
	Base        string
	Concurrency int
	Timeout     time.Duration
	PID         int // 0: no memory sampling
}

// FloodReport is what the flood saw, and the server's memory while it ran.
type FloodReport struct {
	Concurrency int               `json:"concurrency"`
	Requests    uint64            `json:"requests"`
	StatusCodes map[string]uint64 `json:"status_codes"`
	Latency     Latencies         `json:"latency_ms"`
	// RSS of -rss-pid in MiB: at the start, the highest sampled (every 50 ms), and the kernel's
	// high-water mark (VmHWM) at the end.
	StartRSSMiB float64 `json:"start_rss_mib,omitempty"`
	PeakRSSMiB  float64 `json:"peak_rss_mib,omitempty"`
	HWMMiB      float64 `json:"hwm_rss_mib,omitempty"`
}

type flood struct {
	cfg    floodConfig
	cancel context.CancelFunc
	wg     sync.WaitGroup
	seq    atomic.Uint64

	mu    sync.Mutex
	codes map[string]uint64
	lat   []time.Duration

	startRSS, peakRSS float64
}

func startFlood(ctx context.Context, cfg floodConfig) *flood {
	ctx, cancel := context.WithCancel(ctx)
	f := &flood{cfg: cfg, cancel: cancel, codes: map[string]uint64{}}
	client := &http.Client{
		Timeout:   cfg.Timeout,
		Transport: &http.Transport{MaxIdleConnsPerHost: cfg.Concurrency, MaxConnsPerHost: 0, IdleConnTimeout: time.Minute},
	}
	if cfg.PID > 0 {
		f.startRSS, _ = readRSS(cfg.PID, "VmRSS")
		f.peakRSS = f.startRSS
		f.wg.Add(1)
		go f.sampleRSS(ctx)
	}
	run := time.Now().UnixNano()
	for range cfg.Concurrency {
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			for ctx.Err() == nil {
				f.one(ctx, client, run)
			}
		}()
	}
	return f
}

func (f *flood) one(ctx context.Context, client *http.Client, run int64) {
	n := f.seq.Add(1)
	body, _ := json.Marshal(map[string]string{
		"email":    fmt.Sprintf("nobody-%x-%d@loadgen.example", run, n),
		"password": "not-anyones-password-at-all",
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(f.cfg.Base, "/")+"/v1/auth/login", bytes.NewReader(body))
	if err != nil {
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Forwarded-For", floodAddr(n))
	start := time.Now()
	resp, err := client.Do(req)
	d := time.Since(start)
	code := "error"
	if err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		code = strconv.Itoa(resp.StatusCode)
	} else if ctx.Err() != nil {
		return // stopped mid-request: not an outcome of the server's
	}
	f.mu.Lock()
	f.codes[code]++
	f.lat = append(f.lat, d)
	f.mu.Unlock()
}

// floodAddr is the n-th client address, in 10.0.0.0/8 (2^24 of them before repeating).
func floodAddr(n uint64) string {
	return fmt.Sprintf("10.%d.%d.%d", (n>>16)&0xff, (n>>8)&0xff, n&0xff)
}

func (f *flood) sampleRSS(ctx context.Context) {
	defer f.wg.Done()
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if rss, err := readRSS(f.cfg.PID, "VmRSS"); err == nil {
			f.mu.Lock()
			f.peakRSS = max(f.peakRSS, rss)
			f.mu.Unlock()
		}
	}
}

// readRSS reads a memory field (VmRSS, VmHWM) of /proc/<pid>/status, in MiB.
func readRSS(pid int, field string) (float64, error) {
	file, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != field {
			continue
		}
		kib, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
		if err != nil {
			return 0, err
		}
		return kib / 1024, nil
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// stop ends the flood, waits for its requests to return, and reports.
func (f *flood) stop() *FloodReport {
	f.cancel()
	f.wg.Wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	rep := &FloodReport{Concurrency: f.cfg.Concurrency, StatusCodes: f.codes, Latency: summarize(f.lat)}
	for _, c := range f.codes {
		rep.Requests += c
	}
	if f.cfg.PID > 0 {
		rep.StartRSSMiB, rep.PeakRSSMiB = f.startRSS, f.peakRSS
		rep.HWMMiB, _ = readRSS(f.cfg.PID, "VmHWM")
	}
	return rep
}

func writeFloodTable(w io.Writer, r *FloodReport) {
	fmt.Fprintf(w, "Sign-in flood: %d in flight, %d requests, status codes %s\n", r.Concurrency, r.Requests, fmtCodes(r.StatusCodes))
	l := r.Latency
	fmt.Fprintf(w, "Flood latency: p50 %s, p90 %s, p99 %s, max %s\n", fmtDur(l.P50), fmtDur(l.P90), fmtDur(l.P99), fmtDur(l.Max))
	if r.PeakRSSMiB > 0 {
		fmt.Fprintf(w, "Server RSS: %.0f MiB at start, %.0f MiB peak sampled, %.0f MiB high-water mark\n", r.StartRSSMiB, r.PeakRSSMiB, r.HWMMiB)
	}
}
