// Package config reads the server's settings from the environment. Every variable is listed,
// with its default, in the README's config table.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/labstack/gommon/bytes"
)

// DefaultHL7BodyLimit fits a batch of several hundred realistic ADT messages (a full A01 from a
// large EHR is 2–8 KB, a little more once JSON-escaped).
const DefaultHL7BodyLimit = "4M"

// Default deadlines (see Config).
const (
	DefaultRequestTimeout    = 15 * time.Second
	DefaultHL7RequestTimeout = 60 * time.Second
	DefaultWriteIdleTimeout  = 30 * time.Second
	DefaultDBConnectTimeout  = 2 * time.Second
)

// Config is everything `sous serve` needs to start.
type Config struct {
	// DatabaseURL selects an external PostgreSQL; empty starts the private cluster under DataDir.
	DatabaseURL string
	// DatabaseDirectURL, when set, is a direct connection to the database DatabaseURL reaches
	// through a transaction pooler (PgBouncer in transaction mode): migrations and the LISTEN
	// sessions use it, and the pool sends no server-side prepared statements.
	DatabaseDirectURL string
	Addr              string
	WebURL            string
	// PublicURL is the API's own base URL as clients reach it (scheme, host, optional path
	// prefix, no trailing slash). Absolute links the server returns (pagination's Link header)
	// are built from it, never from the request's Host header, which the client controls.
	PublicURL string
	// DataDir holds the private cluster and the generated signing key of the embedded default.
	DataDir    string
	JWTKeyFile string
	// TrustedProxies are the peers whose X-Forwarded-For is believed when finding the client IP.
	TrustedProxies      []netip.Prefix
	WebhookAllowPrivate bool
	// HostedPages serves the share, survey, scan and board pages at the server's root
	// (SOUS_HOSTED_PAGES); off when an operator's own web app answers SOUS_WEB_URL.
	HostedPages bool
	LogLevel    slog.Level
	AccessLog   bool
	BodyLimit   string
	// HL7BodyLimit is the body limit of the HL7 ingest endpoint, whose batches run larger.
	HL7BodyLimit string
	// BodyMemory (SOUS_BODY_MEMORY) is the memory the bodies over the default limit may hold at
	// once on a replica (each weighs its bytes times its operation's documented multiple);
	// empty: half the process's soft memory limit.
	BodyMemory string
	// RequestTimeout is every request's deadline (SOUS_REQUEST_TIMEOUT); it reaches the
	// database through the request's context. WebSocket upgrades have none.
	RequestTimeout time.Duration
	// HL7RequestTimeout is the HL7 ingest's deadline: its batches take longer.
	HL7RequestTimeout time.Duration
	// WriteIdleTimeout (SOUS_WRITE_IDLE_TIMEOUT) is how long a response may wait on a client
	// that takes none of it before its connection is closed; a client that keeps reading is
	// served however long the answer. WebSockets have their own bounds.
	WriteIdleTimeout time.Duration
	// DBConnectTimeout bounds each database host's connection attempt when the URL sets no
	// connect_timeout.
	DBConnectTimeout time.Duration
	// PprofAddr serves net/http/pprof on a separate listener when set (never on the API port).
	PprofAddr string
	// RegisterRate is how many registrations one client IP may make per window (SOUS_REGISTER_RATE).
	RegisterRate Rate
	// CORSOrigins are the browser origins allowed to call the API cross-origin (SOUS_CORS_ORIGINS).
	CORSOrigins []string
	// ReadingsRetentionMonths is how long sensor readings are kept (SOUS_READINGS_RETENTION_MONTHS).
	ReadingsRetentionMonths int
	// MetricsAddr serves Prometheus metrics on a separate listener when set (SOUS_METRICS_ADDR).
	MetricsAddr string
	// ShutdownGrace is how long the server keeps serving after SIGTERM, answering /readyz 503,
	// so a load balancer stops sending before the listener closes (SOUS_SHUTDOWN_GRACE).
	ShutdownGrace time.Duration
	// Sockets bound the device WebSockets (SOUS_SOCKETS_PER_DEVICE, SOUS_SOCKETS_PER_ORG,
	// SOUS_SOCKETS_PER_ADDRESS, SOUS_SOCKET_CEILING); 0 is internal/realtime's default.
	Sockets SocketLimits
}

// SocketLimits are the caps on device WebSockets: per device, organization and client address
// over every replica, and Ceiling on one replica (0: derived from the open-file limit).
type SocketLimits struct {
	PerDevice, PerOrg, PerAddress, Ceiling int
}

// fdReserve is the least number of open files a configured socket ceiling must leave below the
// process's limit, for the listener, requests, the database pool and files.
const fdReserve = 64

// DefaultShutdownGrace outlasts two failed probes of a load balancer checking every 2 seconds.
const DefaultShutdownGrace = 5 * time.Second

// DefaultReadingsRetentionMonths keeps sensor readings two years, the HACCP record period
// inspectors most often ask for.
const DefaultReadingsRetentionMonths = 24

// Rate is "at most Count events per Window".
type Rate struct {
	Count  int
	Window time.Duration
}

// DefaultRegisterRate is the spec's rule: 3 registrations per client IP per hour.
var DefaultRegisterRate = Rate{Count: 3, Window: time.Hour}

// FromEnv reads the configuration; lookup is os.LookupEnv outside tests.
func FromEnv(lookup func(string) (string, bool)) (Config, error) {
	get := func(k, def string) string {
		if v, ok := lookup(k); ok && strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
		return def
	}
	c := Config{
		DatabaseURL:       get("DATABASE_URL", ""),
		DatabaseDirectURL: get("SOUS_DATABASE_DIRECT_URL", ""),
		Addr:              get("SOUS_ADDR", ":8080"),
		WebURL:            get("SOUS_WEB_URL", "http://localhost:8080"),
		DataDir:           get("SOUS_DATA_DIR", ".sous"),
		BodyLimit:         get("SOUS_BODY_LIMIT", "1M"),
		HL7BodyLimit:      get("SOUS_HL7_BODY_LIMIT", DefaultHL7BodyLimit),
		BodyMemory:        get("SOUS_BODY_MEMORY", ""),
		PprofAddr:         get("SOUS_PPROF_ADDR", ""),
		MetricsAddr:       get("SOUS_METRICS_ADDR", ""),
	}
	c.JWTKeyFile = get("SOUS_JWT_KEY_FILE", filepath.Join(c.DataDir, "jwt-signing-key.pem"))

	// Every setting is checked here, at start, so that a typo stops the process with the
	// variable's name instead of surfacing later as a failing request.
	bad := func(name string, err error) error {
		v, _ := lookup(name)
		return fmt.Errorf("%s=%q: %w", name, strings.TrimSpace(v), err)
	}
	var err error
	if err = checkAddr(c.Addr); err != nil {
		return c, bad("SOUS_ADDR", err)
	}
	if c.PprofAddr != "" {
		if err = checkAddr(c.PprofAddr); err != nil {
			return c, bad("SOUS_PPROF_ADDR", err)
		}
	}
	if c.MetricsAddr != "" {
		if err = checkAddr(c.MetricsAddr); err != nil {
			return c, bad("SOUS_METRICS_ADDR", err)
		}
		if _, port, _ := net.SplitHostPort(c.MetricsAddr); c.MetricsAddr == c.Addr && port != "0" {
			return c, bad("SOUS_METRICS_ADDR", errors.New("must differ from SOUS_ADDR: metrics are never served on the API port"))
		}
	}
	// 0 is allowed: no load balancer in front (a developer's machine) need not wait.
	if c.ShutdownGrace, err = time.ParseDuration(get("SOUS_SHUTDOWN_GRACE", DefaultShutdownGrace.String())); err != nil ||
		c.ShutdownGrace < 0 || c.ShutdownGrace > 5*time.Minute {
		return c, bad("SOUS_SHUTDOWN_GRACE", errors.New("not a duration from 0s to 5m (e.g. 5s)"))
	}
	if c.WebURL, err = baseURL(c.WebURL); err != nil {
		return c, bad("SOUS_WEB_URL", err)
	}
	if c.PublicURL, err = baseURL(get("SOUS_PUBLIC_URL", DefaultPublicURL(c.Addr))); err != nil {
		return c, bad("SOUS_PUBLIC_URL", err)
	}
	if c.DatabaseURL != "" {
		if _, err = pgconn.ParseConfig(c.DatabaseURL); err != nil {
			// pgconn's message can repeat the URL, password included: name the variable only.
			return c, errors.New("DATABASE_URL: not a PostgreSQL connection string (postgres://user:password@host:port/db)")
		}
	}
	if c.DatabaseDirectURL != "" {
		if c.DatabaseURL == "" {
			return c, errors.New("SOUS_DATABASE_DIRECT_URL: set only with DATABASE_URL (the pooler's URL)")
		}
		if _, err = pgconn.ParseConfig(c.DatabaseDirectURL); err != nil {
			return c, errors.New("SOUS_DATABASE_DIRECT_URL: not a PostgreSQL connection string (postgres://user:password@host:port/db)")
		}
	}
	if _, err = ParseSize(c.BodyLimit); err != nil {
		return c, bad("SOUS_BODY_LIMIT", err)
	}
	if _, err = ParseSize(c.HL7BodyLimit); err != nil {
		return c, bad("SOUS_HL7_BODY_LIMIT", err)
	}
	if c.BodyMemory != "" {
		if _, err = ParseSize(c.BodyMemory); err != nil {
			return c, bad("SOUS_BODY_MEMORY", err)
		}
	}
	if c.TrustedProxies, err = parsePrefixes(get("SOUS_TRUSTED_PROXIES", "")); err != nil {
		return c, bad("SOUS_TRUSTED_PROXIES", err)
	}
	if c.WebhookAllowPrivate, err = strconv.ParseBool(get("SOUS_WEBHOOK_ALLOW_PRIVATE", "false")); err != nil {
		return c, bad("SOUS_WEBHOOK_ALLOW_PRIVATE", errors.New("not a boolean (true or false)"))
	}
	if c.HostedPages, err = strconv.ParseBool(get("SOUS_HOSTED_PAGES", "true")); err != nil {
		return c, bad("SOUS_HOSTED_PAGES", errors.New("not a boolean (true or false)"))
	}
	if c.AccessLog, err = strconv.ParseBool(get("SOUS_ACCESS_LOG", "true")); err != nil {
		return c, bad("SOUS_ACCESS_LOG", errors.New("not a boolean (true or false)"))
	}
	if c.RegisterRate, err = ParseRate(get("SOUS_REGISTER_RATE", "3/h")); err != nil {
		return c, bad("SOUS_REGISTER_RATE", err)
	}
	if c.CORSOrigins, err = parseOrigins(get("SOUS_CORS_ORIGINS", "")); err != nil {
		return c, bad("SOUS_CORS_ORIGINS", err)
	}
	for _, d := range []struct {
		name string
		def  time.Duration
		dst  *time.Duration
	}{
		{"SOUS_REQUEST_TIMEOUT", DefaultRequestTimeout, &c.RequestTimeout},
		{"SOUS_HL7_REQUEST_TIMEOUT", DefaultHL7RequestTimeout, &c.HL7RequestTimeout},
		{"SOUS_WRITE_IDLE_TIMEOUT", DefaultWriteIdleTimeout, &c.WriteIdleTimeout},
		{"SOUS_DB_CONNECT_TIMEOUT", DefaultDBConnectTimeout, &c.DBConnectTimeout},
	} {
		if *d.dst, err = parseDuration(get(d.name, d.def.String())); err != nil {
			return c, bad(d.name, err)
		}
	}
	if c.ReadingsRetentionMonths, err = strconv.Atoi(get("SOUS_READINGS_RETENTION_MONTHS", strconv.Itoa(DefaultReadingsRetentionMonths))); err != nil ||
		c.ReadingsRetentionMonths < 1 || c.ReadingsRetentionMonths > 1200 {
		return c, bad("SOUS_READINGS_RETENTION_MONTHS", errors.New("not a whole number of months from 1 to 1200"))
	}
	for _, n := range []struct {
		name string
		dst  *int
	}{
		{"SOUS_SOCKETS_PER_DEVICE", &c.Sockets.PerDevice},
		{"SOUS_SOCKETS_PER_ORG", &c.Sockets.PerOrg},
		{"SOUS_SOCKETS_PER_ADDRESS", &c.Sockets.PerAddress},
		{"SOUS_SOCKET_CEILING", &c.Sockets.Ceiling},
	} {
		if v := get(n.name, ""); v != "" {
			if *n.dst, err = strconv.Atoi(v); err != nil || *n.dst < 1 || *n.dst > 1_000_000 {
				return c, bad(n.name, errors.New("not a whole number from 1 to 1000000"))
			}
		}
	}
	if c.Sockets.Ceiling > 0 {
		if limit := openFileLimit(); limit > 0 && uint64(c.Sockets.Ceiling)+fdReserve > limit {
			return c, bad("SOUS_SOCKET_CEILING", fmt.Errorf("leaves fewer than %d of the %d open files this process may have to everything else; lower it or raise the limit (ulimit -n)", fdReserve, limit))
		}
	}
	if err = c.LogLevel.UnmarshalText([]byte(get("SOUS_LOG_LEVEL", "info"))); err != nil {
		return c, bad("SOUS_LOG_LEVEL", errors.New("not a level (debug, info, warn or error)"))
	}
	return c, nil
}

// openFileLimit is the soft limit on open files (0 if unknown); Go raises it to the hard limit
// at start.
func openFileLimit() uint64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0
	}
	return rl.Cur
}

// Env is FromEnv over the process environment.
func Env() (Config, error) { return FromEnv(os.LookupEnv) }

// parseDuration reads a Go duration ("15s", "1m30s") or a whole number of seconds; it must be
// positive.
func parseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		n, nerr := strconv.Atoi(s)
		if nerr != nil {
			return 0, err
		}
		d = time.Duration(n) * time.Second
	}
	if d <= 0 {
		return 0, fmt.Errorf("%q: must be positive", s)
	}
	return d, nil
}

// parsePrefixes reads a comma-separated list of CIDRs or single addresses.
func parsePrefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if !strings.Contains(part, "/") {
			addr, err := netip.ParseAddr(part)
			if err != nil {
				return nil, err
			}
			out = append(out, netip.PrefixFrom(addr, addr.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			return nil, err
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// ParseRate reads "<count>/<window>": the window is a unit ("s", "m", "h") or a Go duration
// ("10m", "24h"), e.g. "3/h" or "1000/1m".
func ParseRate(s string) (Rate, error) {
	n, w, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Rate{}, fmt.Errorf("%q is not <count>/<window>, e.g. 3/h", s)
	}
	count, err := strconv.Atoi(strings.TrimSpace(n))
	if err != nil || count < 1 {
		return Rate{}, fmt.Errorf("%q: the count must be a whole number of at least 1", s)
	}
	w = strings.TrimSpace(w)
	if w == "s" || w == "m" || w == "h" {
		w = "1" + w
	}
	window, err := time.ParseDuration(w)
	if err != nil || window < time.Second {
		return Rate{}, fmt.Errorf("%q: the window must be a duration of at least 1s, e.g. h or 10m", s)
	}
	return Rate{Count: count, Window: window}, nil
}

// parseOrigins reads a comma-separated list of browser origins (scheme://host[:port]), each
// exactly as a browser sends it in the Origin header: no path, no trailing slash.
func parseOrigins(s string) ([]string, error) {
	var out []string
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if part == "*" {
			return nil, fmt.Errorf("%q: list the origins; a wildcard is not accepted", part)
		}
		u, err := url.Parse(part)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
			(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return nil, fmt.Errorf("%q is not an origin like https://app.example.com", part)
		}
		out = append(out, strings.ToLower(u.Scheme+"://"+u.Host))
	}
	return out, nil
}

// ParseSize reads a byte size as Echo's body limit reads it: "512K", "1M", "4MB" are decimal
// multiples (4M is 4,000,000 bytes), "4MiB" binary; it must be positive.
func ParseSize(s string) (int64, error) {
	n, err := bytes.Parse(s)
	if err != nil || n <= 0 {
		return 0, errors.New("not a positive size (e.g. 512K, 1M, 4M)")
	}
	return n, nil
}

// ParseDuration reads a positive Go duration ("30s", "2m"); settings that hold durations use it
// so that they are checked the same way.
func ParseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, errors.New("not a positive duration (e.g. 500ms, 30s, 2m)")
	}
	return d, nil
}

// DefaultPublicURL is the base URL a server listening on addr answers at when no public URL is
// configured: http on the listen port, localhost when the address names no host.
func DefaultPublicURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://localhost:8080"
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// checkAddr accepts what net.Listen("tcp", …) accepts: host:port or :port, with a numeric or
// named port.
func checkAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return errors.New("not a listen address (host:port or :port)")
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return errors.New("not a listen address (host:port or :port)")
	}
	return nil
}

// baseURL checks an absolute http(s) URL with a host and no query or fragment, and returns it
// without a trailing slash.
func baseURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", errors.New("not an absolute http(s) base URL (e.g. https://api.example.com)")
	}
	return strings.TrimRight(s, "/"), nil
}
