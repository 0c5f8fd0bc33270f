package httpapi

import (
	"bytes"
	"context"
	"io/fs"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/sous-app/sous/docs"
	"github.com/sous-app/sous/gen"
	"github.com/sous-app/sous/gen/api"
)

// metaHandlers serve the published contract.
type metaHandlers struct {
	specJSON []byte
}

func newMetaHandlers() (*metaHandlers, error) {
	j, err := sharedSpecJSON()
	if err != nil {
		return nil, err
	}
	return &metaHandlers{specJSON: j}, nil
}

func (m *metaHandlers) GetOpenApiYaml(context.Context, api.GetOpenApiYamlRequestObject) (api.GetOpenApiYamlResponseObject, error) {
	return api.GetOpenApiYaml200ApplicationyamlResponse{
		Body: bytes.NewReader(gen.OpenAPIYAML), ContentLength: int64(len(gen.OpenAPIYAML)),
	}, nil
}

func (m *metaHandlers) GetOpenApiJson(context.Context, api.GetOpenApiJsonRequestObject) (api.GetOpenApiJsonResponseObject, error) {
	return rawJSON(m.specJSON), nil
}

// rawJSON writes already-encoded JSON, so the spec is not decoded and re-encoded per request.
type rawJSON []byte

func (r rawJSON) VisitGetOpenApiJsonResponse(w http.ResponseWriter) error {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(r)
	return err
}

// docsPage is the API reference, rendered by Redoc from the embedded bundle.
const docsPage = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sous API reference</title>
<style>body{margin:0;padding:0}</style>
</head>
<body>
<redoc spec-url="/v1/openapi.yaml" hide-download-button="false"></redoc>
<script src="/docs/redoc.standalone.js"></script>
</body>
</html>
`

// registerDocs serves /docs from assets compiled into the binary: the API reference, and the
// guides, reference and operations pages it links to (as Markdown, shown as text). With the
// hosted pages on, those are HTML pages instead (/docs/guides/, /docs/guides/{name}.md and every
// other page at its path, served by internal/web, whose routes are more specific than these);
// their Markdown stays at the same URLs with ?raw=1. A browser opening the server's root is sent
// to the reference.
func registerDocs(e *echo.Echo) {
	e.GET("/", func(c echo.Context) error { return c.Redirect(http.StatusFound, "/docs") })
	e.GET("/docs/:page", servePage)
	e.GET("/docs/:section/:page", servePage)
	e.GET("/docs", func(c echo.Context) error {
		c.Response().Header().Set("Content-Security-Policy",
			"default-src 'self'; script-src 'self' 'unsafe-inline' blob:; style-src 'self' 'unsafe-inline'; img-src 'self' data:; worker-src 'self' blob:; font-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
		return c.HTML(http.StatusOK, docsPage)
	})
	e.GET("/docs/", func(c echo.Context) error { return c.Redirect(http.StatusMovedPermanently, "/docs") })
	e.GET("/docs/redoc.standalone.js", func(c echo.Context) error {
		c.Response().Header().Set("Cache-Control", "public, max-age=86400")
		return c.Blob(http.StatusOK, "application/javascript", gen.RedocJS)
	})
}

// servePage answers a Markdown page of docs.Pages (guides/stock.md, benchmarks.md…) as UTF-8
// text, which browsers show rather than download; anything else under /docs is a 404.
func servePage(c echo.Context) error {
	name := c.Param("page")
	if section := c.Param("section"); section != "" {
		name = section + "/" + name
	}
	if !strings.HasSuffix(name, ".md") || !fs.ValidPath(name) {
		return echo.ErrNotFound
	}
	b, err := fs.ReadFile(docs.Pages, name)
	if err != nil {
		return echo.ErrNotFound
	}
	return c.Blob(http.StatusOK, "text/plain; charset=utf-8", b)
}
