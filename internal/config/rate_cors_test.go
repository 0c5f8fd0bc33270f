package config

import (
	"slices"
	"testing"
	"time"
)

func TestParseRate(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Rate{
		"3/h":      {3, time.Hour},
		"1000/1m":  {1000, time.Minute},
		" 20 / s ": {20, time.Second},
		"5/24h":    {5, 24 * time.Hour},
	} {
		got, err := ParseRate(in)
		if err != nil || got != want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "3", "0/h", "-1/h", "x/h", "3/", "3/fortnight", "3/500ms"} {
		if _, err := ParseRate(in); err == nil {
			t.Errorf("ParseRate(%q) accepted", in)
		}
	}
}

func lookup(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

func TestRegisterRateDefaultsToTheSpecRuleAndIsValidated(t *testing.T) {
	t.Parallel()
	c, err := FromEnv(lookup(nil))
	if err != nil || c.RegisterRate != DefaultRegisterRate {
		t.Fatalf("default register rate %v, %v; want %v", c.RegisterRate, err, DefaultRegisterRate)
	}
	if _, err := FromEnv(lookup(map[string]string{"SOUS_REGISTER_RATE": "lots"})); err == nil {
		t.Fatal("a malformed SOUS_REGISTER_RATE was accepted at start")
	}
}

func TestCORSOrigins(t *testing.T) {
	t.Parallel()
	c, err := FromEnv(lookup(map[string]string{"SOUS_CORS_ORIGINS": "https://app.example.com, http://127.0.0.1:5173/,HTTPS://Admin.Example.com"}))
	want := []string{"https://app.example.com", "http://127.0.0.1:5173", "https://admin.example.com"}
	if err != nil || !slices.Equal(c.CORSOrigins, want) {
		t.Fatalf("origins %q, %v; want %q", c.CORSOrigins, err, want)
	}
	if c, _ := FromEnv(lookup(nil)); len(c.CORSOrigins) != 0 {
		t.Fatalf("origins allowed by default: %q", c.CORSOrigins)
	}
	for _, bad := range []string{"*", "app.example.com", "https://app.example.com/path", "ftp://x", "https://u@x"} {
		if _, err := FromEnv(lookup(map[string]string{"SOUS_CORS_ORIGINS": bad})); err == nil {
			t.Errorf("SOUS_CORS_ORIGINS=%q accepted", bad)
		}
	}
}
