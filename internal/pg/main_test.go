package pg_test

import (
	"os"
	"testing"

	"github.com/sous-app/sous/internal/pg/pgtest"
)

func TestMain(m *testing.M) {
	// These tests exercise the migration machinery itself, so they start
	// from empty databases rather than the application schema.
	pgtest.Migrations = nil
	os.Exit(pgtest.Main(m))
}
