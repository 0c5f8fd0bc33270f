// Package docs carries the project's Markdown documentation into the binary, so the server can
// publish the guides, reference and operations pages beside the API reference at /docs.
package docs

import "embed"

// Pages holds every Markdown page under docs/, by its path below docs/ (guides/stock.md,
// reference/error-codes.md, benchmarks.md, benchmarks/history.md…).
//
//go:embed *.md guides/*.md reference/*.md operations/*.md benchmarks/*.md
var Pages embed.FS
