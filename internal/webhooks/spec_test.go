package webhooks_test

import (
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/sous-app/sous/internal/httpapi"
)

func loadSpec(t testing.TB) *openapi3.T {
	t.Helper()
	doc, err := httpapi.LoadSpec()
	if err != nil {
		t.Fatal(err)
	}
	return doc
}
