// Package config reads the server's settings from the environment. Every variable is listed,
// with its default, in the README's config table.
package config

import (
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// DefaultHL7BodyLimit fits a batch of several hundred realistic ADT messages (a full A01 from a
// large EHR is 2–8 KB, a little more once JSON-escaped).
const DefaultHL7BodyLimit = "4M"

// Default deadlines (see Config).
const (
	DefaultRequestTimeout    = 15 * time.Second
	DefaultHL7RequestTimeout = 60 * time.Second
	DefaultDBConnectTimeout  = 2 * time.Second
)

// Config is everything `sous serve` needs to start.
type Config struct {
	// DatabaseURL selects an external PostgreSQL; empty starts the private cluster under DataDir.
	DatabaseURL string
	Addr        string
	WebURL      string
	// DataDir holds the private cluster and the generated signing key of the embedded default.
	DataDir    string
	JWTKeyFile string
	// TrustedProxies are the peers whose X-Forwarded-For is believed when finding the client IP.
	TrustedProxies      []netip.Prefix
	WebhookAllowPrivate bool
	LogLevel            slog.Level
	AccessLog           bool
	BodyLimit           string
	// HL7BodyLimit is the body limit of the HL7 ingest endpoint, whose batches run larger.
	HL7BodyLimit string
	// RequestTimeout is every request's deadline (SOUS_REQUEST_TIMEOUT); it reaches the
	// database through the request's context. WebSocket upgrades have none.
	RequestTimeout time.Duration
	// HL7RequestTimeout is the HL7 ingest's deadline: its batches take longer.
	HL7RequestTimeout time.Duration
	// DBConnectTimeout bounds each database host's connection attempt when the URL sets no
	// connect_timeout.
	DBConnectTimeout time.Duration
	// PprofAddr serves net/http/pprof on a separate listener when set (never on the API port).
	PprofAddr string
}

// FromEnv reads the configuration; lookup is os.LookupEnv outside tests.
func FromEnv(lookup func(string) (string, bool)) (Config, error) {
	get := func(k, def string) string {
		if v, ok := lookup(k); ok && strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
		return def
	}
	c := Config{
		DatabaseURL:  get("DATABASE_URL", ""),
		Addr:         get("SOUS_ADDR", ":8080"),
		WebURL:       strings.TrimRight(get("SOUS_WEB_URL", "http://localhost:8080"), "/"),
		DataDir:      get("SOUS_DATA_DIR", ".sous"),
		BodyLimit:    get("SOUS_BODY_LIMIT", "1M"),
		HL7BodyLimit: get("SOUS_HL7_BODY_LIMIT", DefaultHL7BodyLimit),
		PprofAddr:    get("SOUS_PPROF_ADDR", ""),
	}
	c.JWTKeyFile = get("SOUS_JWT_KEY_FILE", filepath.Join(c.DataDir, "jwt-signing-key.pem"))

	var err error
	if c.TrustedProxies, err = parsePrefixes(get("SOUS_TRUSTED_PROXIES", "")); err != nil {
		return c, fmt.Errorf("SOUS_TRUSTED_PROXIES: %w", err)
	}
	if c.WebhookAllowPrivate, err = strconv.ParseBool(get("SOUS_WEBHOOK_ALLOW_PRIVATE", "false")); err != nil {
		return c, fmt.Errorf("SOUS_WEBHOOK_ALLOW_PRIVATE: %w", err)
	}
	if c.AccessLog, err = strconv.ParseBool(get("SOUS_ACCESS_LOG", "true")); err != nil {
		return c, fmt.Errorf("SOUS_ACCESS_LOG: %w", err)
	}
	for _, d := range []struct {
		name string
		def  time.Duration
		dst  *time.Duration
	}{
		{"SOUS_REQUEST_TIMEOUT", DefaultRequestTimeout, &c.RequestTimeout},
		{"SOUS_HL7_REQUEST_TIMEOUT", DefaultHL7RequestTimeout, &c.HL7RequestTimeout},
		{"SOUS_DB_CONNECT_TIMEOUT", DefaultDBConnectTimeout, &c.DBConnectTimeout},
	} {
		if *d.dst, err = parseDuration(get(d.name, d.def.String())); err != nil {
			return c, fmt.Errorf("%s: %w", d.name, err)
		}
	}
	if err = c.LogLevel.UnmarshalText([]byte(get("SOUS_LOG_LEVEL", "info"))); err != nil {
		return c, fmt.Errorf("SOUS_LOG_LEVEL: %w", err)
	}
	return c, nil
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
