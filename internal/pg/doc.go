// Package pg is Sous's PostgreSQL platform layer: connection pools, schema
// migrations, transactions, error classification and a private local cluster
// for development and tests.
//
// It is the only package that knows about pgconn error codes or drives the
// PostgreSQL server binaries; everything above it talks to a *pgxpool.Pool.
package pg
