package delivery

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
)

// Defaults from the webhook spec and for the client's own protection.
const (
	DefaultTimeout          = 8 * time.Second
	DefaultMaxResponseBytes = 64 << 10
	DefaultUserAgent        = "Sous-Webhooks/1"

	// A receiver's response headers are not interesting beyond the status; the transport's
	// default of 10 MB would let a hostile one make us buffer far more than we read.
	maxResponseHeaderBytes = 64 << 10
)

// Options configures a Client. The zero value is the production configuration.
type Options struct {
	// AllowPrivate permits http:// URLs and non-public addresses, for local development and
	// tests. Never set it in production: it reopens SSRF into our network.
	AllowPrivate bool
	// Timeout bounds a whole attempt: DNS, connect, TLS, sending, response headers and
	// reading the body. Zero means DefaultTimeout.
	Timeout time.Duration
	// MaxResponseBytes is how much of the response body is read (and discarded) before the
	// connection is given up on. Zero means DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// UserAgent is sent as user-agent. Empty means DefaultUserAgent.
	UserAgent string
	// Resolver resolves hostnames; nil uses the system resolver. Tests point it at a fake DNS
	// server to reach the address checks with a hostname.
	Resolver *net.Resolver
	// RootCAs replaces the system roots, for tests against httptest.NewTLSServer.
	RootCAs *x509.CertPool
}

// Client delivers webhooks. It is safe for concurrent use and should be shared, so that
// connections to a busy receiver are reused.
type Client struct {
	http         *http.Client
	allowPrivate bool
	timeout      time.Duration
	maxBody      int64
	userAgent    string
}

// Result is the outcome of one attempt, what the subscription's lastStatus, lastDeliveryAt
// and failureCount are updated from.
type Result struct {
	// Status is the HTTP status, or 0 when no response arrived (refused, unreachable,
	// timeout).
	Status int
	// Delivered is true for any 2xx.
	Delivered bool
	// Duration is how long the attempt took.
	Duration time.Duration
	// Error is empty when delivered, else a short reason fit to show a partner's admin.
	Error string
}

// New builds a Client.
func New(opts Options) *Client {
	c := &Client{
		allowPrivate: opts.AllowPrivate,
		timeout:      opts.Timeout,
		maxBody:      opts.MaxResponseBytes,
		userAgent:    opts.UserAgent,
	}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	if c.maxBody <= 0 {
		c.maxBody = DefaultMaxResponseBytes
	}
	if c.userAgent == "" {
		c.userAgent = DefaultUserAgent
	}

	dialer := &net.Dialer{Resolver: opts.Resolver}
	if !opts.AllowPrivate {
		// Checked on the address actually being connected to, after resolution, so that a
		// name which resolved to a public address during validation cannot be rebound to an
		// internal one for the connect. Every address the dialer tries goes through here.
		dialer.Control = refuseNonPublic
	}
	transport := &http.Transport{
		// An environment proxy would connect on our behalf, past the dialer's checks.
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		TLSClientConfig:        &tls.Config{RootCAs: opts.RootCAs, MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2:      true,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
		MaxResponseHeaderBytes: maxResponseHeaderBytes,
		// The body is discarded; asking for gzip would only add work and a header the spec
		// does not list.
		DisableCompression: true,
	}
	c.http = &http.Client{
		Transport: transport,
		// A redirect could lead anywhere, including to plain http; the receiver must give
		// its final URL.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return c
}

// notPublicError is the dialer's refusal of an address.
type notPublicError struct{ addr netip.Addr }

func (e *notPublicError) Error() string { return fmt.Sprintf("address %s is not public", e.addr) }

func refuseNonPublic(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("cannot check dial address %q: %w", address, err)
	}
	if !IsPublic(ap.Addr()) {
		return &notPublicError{addr: ap.Addr().WithZone("")}
	}
	return nil
}

// errAttemptTimeout marks the end of the attempt's own time budget, to tell it apart from
// a caller's cancellation.
var errAttemptTimeout = errors.New("webhook attempt timed out")

// Deliver POSTs env to rawURL once, signed with secret. It never retries: delivery is at
// most once, and the caller records the Result whatever it is.
func (c *Client) Deliver(ctx context.Context, rawURL string, secret []byte, env Envelope) Result {
	start := time.Now()
	res := c.deliver(ctx, rawURL, secret, env)
	res.Duration = time.Since(start)
	return res
}

func (c *Client) deliver(ctx context.Context, rawURL string, secret []byte, env Envelope) Result {
	if err := ValidateURL(rawURL, c.allowPrivate); err != nil {
		return Result{Error: "url " + err.Error()}
	}
	if len(secret) == 0 {
		return Result{Error: "no signing secret"}
	}
	body, err := env.Body()
	if err != nil {
		return Result{Error: err.Error()}
	}

	ctx, cancel := context.WithTimeoutCause(ctx, c.timeout, errAttemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, bytes.NewReader(body))
	if err != nil {
		return Result{Error: "url is not valid"}
	}
	req.Header.Set("content-type", "application/json")
	req.Header.Set("x-service-event", env.Event)
	req.Header.Set("x-service-signature", Sign(secret, body))
	req.Header.Set("user-agent", c.userAgent)
	// The delivery's trace continues at the receiver (W3C traceparent); nothing when tracing is off.
	otel.GetTextMapPropagator().Inject(ctx, propagation.HeaderCarrier(req.Header))

	resp, err := c.http.Do(req)
	if err != nil {
		return Result{Error: c.reason(ctx, err)}
	}
	// Reading lets the connection be reused; the limit stops a receiver from streaming at
	// us until the timeout. A failure here does not undo the status already received.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, c.maxBody))
	_ = resp.Body.Close()

	res := Result{Status: resp.StatusCode}
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode <= 299:
		res.Delivered = true
	case resp.StatusCode >= 300 && resp.StatusCode <= 399:
		res.Error = fmt.Sprintf("redirects are not followed (%d)", resp.StatusCode)
	default:
		res.Error = fmt.Sprintf("receiver responded %d", resp.StatusCode)
	}
	return res
}

// reason turns a transport error into a short, stable phrase. Raw Go errors repeat the URL
// and name internal layers, which is noise for a partner reading their delivery log.
func (c *Client) reason(ctx context.Context, err error) string {
	var (
		notPublic *notPublicError
		dnsErr    *net.DNSError
		certErr   *tls.CertificateVerificationError
		netErr    net.Error
	)
	switch {
	case errors.Is(context.Cause(ctx), errAttemptTimeout):
		return fmt.Sprintf("timeout after %s", c.timeout)
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "canceled: deadline exceeded"
	case errors.As(err, &notPublic):
		return notPublic.Error()
	case errors.As(err, &dnsErr):
		if dnsErr.IsNotFound {
			return fmt.Sprintf("host %s not found", dnsErr.Name)
		}
		return fmt.Sprintf("DNS lookup for %s failed", dnsErr.Name)
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "host unreachable"
	case errors.As(err, &certErr):
		return "TLS certificate rejected: " + certErr.Err.Error()
	case errors.As(err, new(tls.RecordHeaderError)), errors.As(err, new(tls.AlertError)):
		return "TLS handshake failed"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed without a response"
	case errors.As(err, &netErr) && netErr.Timeout():
		return fmt.Sprintf("timeout after %s", c.timeout)
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		err = urlErr.Err
	}
	return "request failed: " + err.Error()
}
