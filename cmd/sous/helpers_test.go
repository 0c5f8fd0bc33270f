package main

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sous-app/sous/internal/pg"
)

func pgConnect(t *testing.T, url string) (*pgxpool.Pool, error) {
	t.Helper()
	pool, err := pg.Connect(context.Background(), url)
	if err == nil {
		t.Cleanup(pool.Close)
	}
	return pool, err
}
