package config_test

import (
	"strings"
	"testing"

	"github.com/sous-app/sous/internal/config"
)

func env(kv map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := kv[k]
		return v, ok
	}
}

// Every malformed setting stops the start with an error that names the variable and its value,
// instead of a server that panics on its first request.
func TestFromEnvRefusesMalformedSettings(t *testing.T) {
	cases := []struct{ name, value string }{
		{"SOUS_HL7_BODY_LIMIT", "4 megs"},
		{"SOUS_HL7_BODY_LIMIT", "0"},
		{"SOUS_BODY_LIMIT", "-1M"},
		{"SOUS_BODY_LIMIT", "lots"},
		{"SOUS_TRUSTED_PROXIES", "10.0.0.0/33"},
		{"SOUS_TRUSTED_PROXIES", "10.0.0.1, proxy.internal"},
		{"SOUS_WEB_URL", "app.sous.example"},
		{"SOUS_WEB_URL", "ftp://app.sous.example"},
		{"SOUS_PUBLIC_URL", "https://api.sous.example/?x=1"},
		{"SOUS_PUBLIC_URL", "/v1"},
		{"SOUS_ADDR", "8080"},
		{"SOUS_ADDR", ":http-alt-nope"},
		{"SOUS_PPROF_ADDR", "localhost"},
		{"SOUS_WEBHOOK_ALLOW_PRIVATE", "yes please"},
		{"SOUS_ACCESS_LOG", "on-ish"},
		{"SOUS_HOSTED_PAGES", "maybe"},
		{"SOUS_LOG_LEVEL", "loud"},
		{"DATABASE_URL", "postgres://u:secret@host:notaport/db"},
		{"SOUS_REGISTER_RATE", "lots"},
		{"SOUS_REGISTER_RATE", "0/h"},
		{"SOUS_CORS_ORIGINS", "*"},
		{"SOUS_CORS_ORIGINS", "app.example.com"},
		{"SOUS_READINGS_RETENTION_MONTHS", "2y"},
		{"SOUS_READINGS_RETENTION_MONTHS", "0"},
		{"SOUS_METRICS_ADDR", "9464"},
		{"SOUS_METRICS_ADDR", ":8080"}, // the API's own port
		{"SOUS_SHUTDOWN_GRACE", "-1s"},
		{"SOUS_SHUTDOWN_GRACE", "a while"},
		{"SOUS_SHUTDOWN_GRACE", "1h"},
		{"SOUS_SOCKETS_PER_DEVICE", "0"},
		{"SOUS_SOCKETS_PER_DEVICE", "two"},
		{"SOUS_SOCKETS_PER_ORG", "-5"},
		{"SOUS_SOCKETS_PER_ADDRESS", "1.5"},
		{"SOUS_SOCKET_CEILING", "2000000"},
	}
	for _, c := range cases {
		t.Run(c.name+"="+c.value, func(t *testing.T) {
			_, err := config.FromEnv(env(map[string]string{c.name: c.value}))
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.HasPrefix(err.Error(), c.name) {
				t.Fatalf("error %q does not start with the variable's name", err)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Fatalf("error %q shows the database password", err)
			}
		})
	}
}

func TestFromEnvDefaultsAndPublicURL(t *testing.T) {
	cases := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, "http://localhost:8080"},
		{map[string]string{"SOUS_ADDR": "127.0.0.1:9000"}, "http://127.0.0.1:9000"},
		{map[string]string{"SOUS_ADDR": "0.0.0.0:9000"}, "http://localhost:9000"},
		{map[string]string{"SOUS_ADDR": "[::1]:9000"}, "http://[::1]:9000"},
		{map[string]string{"SOUS_PUBLIC_URL": "https://api.sous.example/"}, "https://api.sous.example"},
		{map[string]string{"SOUS_PUBLIC_URL": "https://edge.example/kitchen"}, "https://edge.example/kitchen"},
	}
	for _, c := range cases {
		cfg, err := config.FromEnv(env(c.env))
		if err != nil {
			t.Fatalf("%v: %v", c.env, err)
		}
		if cfg.PublicURL != c.want {
			t.Errorf("%v: PublicURL %q, want %q", c.env, cfg.PublicURL, c.want)
		}
	}
	cfg, err := config.FromEnv(env(map[string]string{"SOUS_BODY_LIMIT": "512K", "SOUS_HL7_BODY_LIMIT": "8MB", "SOUS_TRUSTED_PROXIES": "10.0.0.0/8, 192.0.2.7"}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.BodyLimit != "512K" || cfg.HL7BodyLimit != "8MB" || len(cfg.TrustedProxies) != 2 || !cfg.HostedPages {
		t.Fatalf("%+v", cfg)
	}
	if cfg, err := config.FromEnv(env(map[string]string{"SOUS_HOSTED_PAGES": "false"})); err != nil || cfg.HostedPages {
		t.Fatalf("SOUS_HOSTED_PAGES=false: %+v %v", cfg, err)
	}
}

func TestParseSizeAndDuration(t *testing.T) {
	if n, err := config.ParseSize("4M"); err != nil || n != 4_000_000 {
		t.Fatalf("4M: %d %v", n, err)
	}
	for _, s := range []string{"", "4 megs", "0", "-5K"} {
		if _, err := config.ParseSize(s); err == nil {
			t.Errorf("size %q accepted", s)
		}
	}
	for _, s := range []string{"", "5", "-1s", "0s", "soon"} {
		if _, err := config.ParseDuration(s); err == nil {
			t.Errorf("duration %q accepted", s)
		}
	}
}

func TestReadingsRetention(t *testing.T) {
	for value, want := range map[string]int{"": config.DefaultReadingsRetentionMonths, "36": 36} {
		c, err := config.FromEnv(env(map[string]string{"SOUS_READINGS_RETENTION_MONTHS": value}))
		if err != nil || c.ReadingsRetentionMonths != want {
			t.Fatalf("%q: %d (%v), want %d", value, c.ReadingsRetentionMonths, err, want)
		}
	}
}

func TestFromEnvMetricsAndGrace(t *testing.T) {
	cfg, err := config.FromEnv(env(map[string]string{}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MetricsAddr != "" || cfg.ShutdownGrace != config.DefaultShutdownGrace {
		t.Fatalf("defaults: metrics %q, grace %v", cfg.MetricsAddr, cfg.ShutdownGrace)
	}
	cfg, err = config.FromEnv(env(map[string]string{"SOUS_METRICS_ADDR": "127.0.0.1:9464", "SOUS_SHUTDOWN_GRACE": "0s"}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MetricsAddr != "127.0.0.1:9464" || cfg.ShutdownGrace != 0 {
		t.Fatalf("set: metrics %q, grace %v", cfg.MetricsAddr, cfg.ShutdownGrace)
	}
}

// The socket limits are read as given; unset, they are 0 (internal/realtime's defaults, the
// ceiling derived from the open-file limit).
func TestFromEnvSocketLimits(t *testing.T) {
	cfg, err := config.FromEnv(env(map[string]string{}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Sockets != (config.SocketLimits{}) {
		t.Fatalf("defaults %+v, want zeros", cfg.Sockets)
	}
	cfg, err = config.FromEnv(env(map[string]string{
		"SOUS_SOCKETS_PER_DEVICE": "1", "SOUS_SOCKETS_PER_ORG": "300", "SOUS_SOCKETS_PER_ADDRESS": "40", "SOUS_SOCKET_CEILING": "100",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if want := (config.SocketLimits{PerDevice: 1, PerOrg: 300, PerAddress: 40, Ceiling: 100}); cfg.Sockets != want {
		t.Fatalf("limits %+v, want %+v", cfg.Sockets, want)
	}
}
