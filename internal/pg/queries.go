package pg

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/gen/db"
)

// InQueries is InTx for code that needs only the generated queries: fn gets them bound to the
// transaction.
func InQueries(ctx context.Context, pool *pgxpool.Pool, fn func(q *db.Queries) error) error {
	return InTx(ctx, pool, func(tx pgx.Tx) error { return fn(db.New(tx)) })
}
