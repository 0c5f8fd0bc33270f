package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/sous-app/sous/internal/apierr"
)

func TestScanJSONLimits(t *testing.T) {
	t.Parallel()
	lim := jsonLimits{Depth: 4, Items: 3, Values: 10}
	for _, tc := range []struct {
		body, field, message string
	}{
		{`{"a":[1,2,3]}`, "", ""},
		{`{"a":[1,2,3,4]}`, "a", "holds more than 3 items; at most 3 are taken in one array"},
		{`[[[[1]]]]`, "", ""},
		{`[[[[[1]]]]]`, "body", "nests more than 4 levels deep; at most 4 are taken"},
		{`{"a":"]]]]]","b":"\"[[[[["}`, "", ""},
		{`[1,2,3]` + strings.Repeat(" ", 10), "", ""},
		{`{"a":[{"b":1,"c":2},{"d":[1,2]}],"e":1,"f":2}`, "body", "holds more than 10 values; at most 10 are taken in one body"},
		{`{"a":`, "", ""}, // not JSON: left to the validator
		{`]]]`, "", ""},
	} {
		se := scanJSON([]byte(tc.body), lim, nil)
		switch {
		case tc.field == "" && se != nil:
			t.Errorf("%s: %+v", tc.body, se)
		case tc.field != "" && (se == nil || se.field != tc.field || se.message != tc.message || !se.costly):
			t.Errorf("%s: %+v", tc.body, se)
		}
	}
}

func TestLoneSurrogate(t *testing.T) {
	t.Parallel()
	for tok, want := range map[string]bool{
		`"a\ud800b"`:            true,
		`"a\uDC00"`:             true,
		`"\ud83d\ude00"`:        false,
		`"\ud83d\u0041"`:        true,
		`"\\ud800"`:             false,
		`"\u00e9\n\t"`:          false,
		`"\ud83d"`:              true,
		`"x\ud83d\ude00\ud800"`: true,
	} {
		if got := loneSurrogate([]byte(tok)); got != want {
			t.Errorf("%s: %v", tok, got)
		}
	}
}

func TestOutOfTimeIsNotTheDatabase(t *testing.T) {
	t.Parallel()
	e := echo.New()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequest(http.MethodPost, "/", nil).WithContext(ctx)
	c := e.NewContext(req, httptest.NewRecorder())
	err := outOfTime(func(echo.Context) error { t.Fatal("the handler ran"); return nil })(c)
	ae, ok := apierr.As(err)
	if !ok || ae.Kind != apierr.KindUnavailable || ae.Code != apierr.CodeServiceUnavailable {
		t.Fatalf("%v", err)
	}
}
