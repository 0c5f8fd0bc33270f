// Package metrics holds the server's Prometheus metrics: one registry, the collectors the domain
// packages count on, and the handler the metrics listener serves. Names follow the
// OpenTelemetry HTTP conventions as Prometheus exports them for request metrics and carry the
// sous_ prefix for ours. No label ever holds an organization, user, site, token or id: every
// label value comes from a fixed set written here or from the spec, so cardinality is bounded
// and no tenant's data reaches a shared monitoring system.
//
// The collectors are package variables so that a domain counts with one line and no plumbing;
// they count whether or not the listener is on (an increment costs nanoseconds).
package metrics

import (
	"net/http"
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Registry holds every metric of the process (no global default registry: a library that
// registers on it cannot add series behind our back).
var Registry = prometheus.NewRegistry()

// Outcomes of an HL7 message, as the ingest reports them.
var HL7Outcomes = []string{"applied", "duplicate", "skipped", "rejected"}

// Outcomes of a sensor reading a gateway sends (sous_sensor_readings_total{outcome}): stored,
// stored before, or rejected for one of the spec's ReadingRejection reasons.
const (
	ReadingAccepted  = "accepted"
	ReadingDuplicate = "duplicate"
)

// ReadingRejections are the reasons a reading is rejected, as the spec's ReadingRejection lists
// them (a test in internal/sensors holds the two together).
var ReadingRejections = []string{"unknown_sensor", "inactive_sensor", "unit_mismatch", "in_future", "too_old", "implausible"}

// Results of a webhook delivery attempt.
const (
	WebhookDelivered   = "delivered"   // the receiver answered 2xx
	WebhookFailed      = "failed"      // the receiver answered something else
	WebhookUnreachable = "unreachable" // no answer: refused, unreachable, timed out, invalid URL
)

// Results of a periodic job's run.
const (
	RunSuccess = "success"
	RunFailure = "failure"
)

// RateLimits are the limits a request can be refused by (sous_rate_limited_total{limit}): the
// rate-limit buckets and the HL7 census writers' queue of one organization.
var RateLimits = []string{
	"register", "signin_fail", "signin_ip", "device_pair", "support_inquiry",
	"capability_link", "capability_link_write", "census_writers",
}

// SocketLimitScopes label sous_realtime_socket_limit; SocketRefusalReasons label
// sous_realtime_socket_refusals_total (the reasons of internal/realtime, which a test holds in
// step).
var (
	SocketLimitScopes    = []string{"device", "org", "address", "replica"}
	SocketRefusalReasons = []string{"ceiling", "org", "address"}
)

// SetRealtimeLimits publishes the device WebSocket limits in force.
func SetRealtimeLimits(perDevice, perOrg, perAddress, ceiling int) {
	for i, v := range []int{perDevice, perOrg, perAddress, ceiling} {
		RealtimeSocketLimit.WithLabelValues(SocketLimitScopes[i]).Set(float64(v))
	}
}

// Buckets for request latencies: an API answers in milliseconds, and its deadline is seconds.
var requestBuckets = []float64{.005, .01, .025, .05, .075, .1, .25, .5, .75, 1, 2.5, 5, 7.5, 10}

var (
	HTTPRequestDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "http_server_request_duration_seconds",
		Help:    "Duration of HTTP server requests, by method, spec route, status code and operationId.",
		Buckets: requestBuckets,
	}, []string{"http_request_method", "http_route", "http_response_status_code", "operation"})
	HTTPActiveRequests = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "http_server_active_requests",
		Help: "Number of HTTP server requests in flight.",
	})

	HL7Messages = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sous_hl7_messages_total",
		Help: "HL7 messages ingested, by outcome (applied, duplicate, skipped, rejected).",
	}, []string{"outcome"})
	HL7BatchDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "sous_hl7_batch_duration_seconds",
		Help:    "Duration of one HL7 ingest body, from parse to commit (waiting for the census locks of its patients included).",
		Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
	})

	SensorReadings = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sous_sensor_readings_total",
		Help: "Sensor readings sent by gateways, by outcome (accepted, duplicate, or the reason it was rejected: unknown_sensor, inactive_sensor, unit_mismatch, in_future, too_old, implausible).",
	}, []string{"outcome"})

	WebhookDeliveries = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sous_webhook_deliveries_total",
		Help: "Webhook delivery attempts, by result (delivered, failed, unreachable).",
	}, []string{"result"})
	WebhookDeliveryDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "sous_webhook_delivery_duration_seconds",
		Help:    "Duration of one webhook delivery attempt, until the receiver answered or the attempt gave up.",
		Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	})

	PasswordHashWaiting = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "sous_password_hash_waiting",
		Help: "Password operations (sign-in, registration, password change) waiting for an argon2id slot.",
	})
	PasswordHashWait = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "sous_password_hash_wait_seconds",
		Help:    "Time a password operation waited in the queue before its argon2id slot.",
		Buckets: []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
	})
	PasswordHashRefused = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "sous_password_hash_refused_total",
		Help: "Password operations refused with 503 service_busy (queue full, address share used, or deadline too near).",
	})

	RateLimited = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sous_rate_limited_total",
		Help: "Requests refused by a rate limit or lock, by limit.",
	}, []string{"limit"})
	IdempotentReplays = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "sous_idempotent_replays_total",
		Help: "Responses replayed from an earlier request with the same Idempotency-Key.",
	})
	RealtimeConnections = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "sous_realtime_connections",
		Help: "Device WebSockets this replica holds.",
	})
	RealtimeHints = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "sous_realtime_hints_total",
		Help: "Realtime hints handed to device WebSockets on this replica.",
	})
	RealtimeSocketLimit = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "sous_realtime_socket_limit",
		Help: "Limits on device WebSockets, by scope: device, org and address (caps over every replica), replica (this replica's ceiling).",
	}, []string{"scope"})
	RealtimeSocketRefusals = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sous_realtime_socket_refusals_total",
		Help: "Device WebSocket upgrades refused by this replica, by reason: ceiling (503), org or address cap (429).",
	}, []string{"reason"})
	RealtimeSocketsReplaced = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "sous_realtime_sockets_replaced_total",
		Help: "Device WebSockets closed with 4001 because a newer connection of the same device went beyond its cap.",
	})

	PeriodicRuns = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sous_periodic_runs_total",
		Help: "Runs of background jobs, by job and result (success, failure).",
	}, []string{"job", "result"})
	PeriodicLastSuccess = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "sous_periodic_last_success_timestamp_seconds",
		Help: "Unix time of the last successful run of each background job on this replica (0: none yet).",
	}, []string{"job"})

	StockPostings = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "sous_stock_postings_total",
		Help: "Stock postings written (adjustments, receipts, counts, waste), each one statement.",
	})
	StockPostingSize = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "sous_stock_posting_size",
		Help:    "Ledger rows written by one stock posting.",
		Buckets: []float64{1, 2, 5, 10, 25, 50, 100, 250, 500, 1000},
	})

	FoodProfiles = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sous_food_profiles_total",
		Help: "Food profiles nutrition analyses asked for, by result: hit (kept in the replica's memory at the food's current revision) or miss (read from the database).",
	}, []string{"result"})

	HTTPWriteStalls = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "sous_http_write_stalls_total",
		Help: "Responses cut off because the client took none of them for SOUS_WRITE_IDLE_TIMEOUT (its connection closed).",
	})

	buildInfo = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "sous_build_info",
		Help: "Always 1; the labels name the running build.",
	}, []string{"version", "revision", "goversion"})
)

// The results of sous_food_profiles_total.
const (
	FoodProfileHit  = "hit"
	FoodProfileMiss = "miss"
)

// registered are the collectors of the registry (the pool's and the outbox's join when the
// server starts).
var registered = []prometheus.Collector{
	collectors.NewGoCollector(),
	collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	HTTPRequestDuration, HTTPActiveRequests,
	HL7Messages, HL7BatchDuration,
	SensorReadings,
	WebhookDeliveries, WebhookDeliveryDuration,
	PasswordHashWaiting, PasswordHashWait, PasswordHashRefused,
	RateLimited, IdempotentReplays, RealtimeConnections, RealtimeHints,
	RealtimeSocketLimit, RealtimeSocketRefusals, RealtimeSocketsReplaced,
	PeriodicRuns, PeriodicLastSuccess,
	StockPostings, StockPostingSize,
	FoodProfiles,
	HTTPWriteStalls,
	buildInfo,
}

func init() {
	Registry.MustRegister(registered...)
	// Known label values exist at 0 from the start, so a rate over them is 0 rather than absent.
	for _, o := range HL7Outcomes {
		HL7Messages.WithLabelValues(o)
	}
	for _, o := range append([]string{ReadingAccepted, ReadingDuplicate, "other"}, ReadingRejections...) {
		SensorReadings.WithLabelValues(o)
	}
	for _, r := range []string{WebhookDelivered, WebhookFailed, WebhookUnreachable} {
		WebhookDeliveries.WithLabelValues(r)
	}
	for _, l := range RateLimits {
		RateLimited.WithLabelValues(l)
	}
	for _, r := range []string{FoodProfileHit, FoodProfileMiss} {
		FoodProfiles.WithLabelValues(r)
	}
	for _, s := range SocketLimitScopes {
		RealtimeSocketLimit.WithLabelValues(s)
	}
	for _, r := range SocketRefusalReasons {
		RealtimeSocketRefusals.WithLabelValues(r)
	}
	version, revision := buildVersion()
	buildInfo.WithLabelValues(version, revision, runtime.Version()).Set(1)
}

// SetBuild names the running build in sous_build_info: the server calls it at start with what
// it learned of its making (the revision included when the binary carries none and its checkout
// was asked). Values set at link time win; an empty value keeps what the binary carries.
func SetBuild(version, revision string) {
	v, r := buildVersion()
	if Version == "" && version != "" {
		v = version
	}
	if Revision == "" && revision != "" {
		r = revision
	}
	buildInfo.Reset()
	buildInfo.WithLabelValues(v, r, runtime.Version()).Set(1)
}

// Version and Revision may be set at link time (-ldflags "-X …"); otherwise they come from the
// module and VCS information Go embeds in the binary.
var Version, Revision string

func buildVersion() (version, revision string) {
	version, revision = Version, Revision
	if info, ok := debug.ReadBuildInfo(); ok {
		if version == "" {
			version = info.Main.Version
		}
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && revision == "" {
				revision = s.Value
			}
		}
	}
	if version == "" {
		version = "(devel)"
	}
	if revision == "" {
		revision = "unknown"
	}
	return version, revision
}

// RateLimitedBy counts one refusal by limit. A name outside RateLimits is counted as "other", so
// a new limit can never open an unbounded label.
func RateLimitedBy(limit string) {
	for _, l := range RateLimits {
		if l == limit {
			RateLimited.WithLabelValues(l).Inc()
			return
		}
	}
	RateLimited.WithLabelValues("other").Inc()
}

// SensorReadingRejected counts one reading rejected for reason. A reason outside
// ReadingRejections is counted as "other", so a new reason can never open an unbounded label.
func SensorReadingRejected(reason string) {
	for _, r := range ReadingRejections {
		if r == reason {
			SensorReadings.WithLabelValues(r).Inc()
			return
		}
	}
	SensorReadings.WithLabelValues("other").Inc()
}

// PeriodicJob pre-creates the series of one background job, so that a job that has never
// succeeded shows 0 (and alerts) instead of nothing.
func PeriodicJob(job string) {
	PeriodicRuns.WithLabelValues(job, RunSuccess)
	PeriodicRuns.WithLabelValues(job, RunFailure)
	PeriodicLastSuccess.WithLabelValues(job)
}

// Handler serves the registry in the Prometheus text format.
func Handler() http.Handler {
	return promhttp.HandlerFor(Registry, promhttp.HandlerOpts{Registry: Registry})
}
