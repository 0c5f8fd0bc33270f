// Package migrations holds the goose SQL migrations for Sous's PostgreSQL schema.
//
// They are embedded so that the server binary migrates its own database at
// start-up and tests build their template database from exactly the same files,
// with no dependency on the working directory.
package migrations

import "embed"

// FS holds every *.sql migration in this directory, at the root of the FS,
// in the layout goose.NewProvider expects.
//
//go:embed *.sql
var FS embed.FS
