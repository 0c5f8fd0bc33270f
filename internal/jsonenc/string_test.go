package jsonenc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

var stringCases = []string{
	"", "Ana Gomez", `quote " and \ backslash`, "tab\tnew\nline\rcr", "\b\f\x00\x01\x1f\x7f",
	"<script>&amp;</script>", "Crème brûlée 🍮", "line\u2028para\u2029", "bad \xff\xfe utf-8 \xc3",
	"truncated \xe2\x82", "ok@example.com",
}

func TestAppendStringIsEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, s := range stringCases {
		checkString(t, s)
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range stringCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkString(t, s) })
}

func checkString(t *testing.T, s string) {
	t.Helper()
	want, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if got := AppendString([]byte("x"), s); string(got) != "x"+string(want) {
		t.Errorf("AppendString(%q) = %s, encoding/json writes %s", s, got[1:], want)
	}
	var keep bytes.Buffer
	enc := json.NewEncoder(&keep)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	if got, want := AppendStringKeepHTML([]byte("x"), s), "x"+strings.TrimSuffix(keep.String(), "\n"); string(got) != want {
		t.Errorf("AppendStringKeepHTML(%q) = %s, encoding/json without HTML escaping writes %s", s, got[1:], want[1:])
	}
}
