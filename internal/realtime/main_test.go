package realtime_test

import (
	"os"
	"testing"

	"github.com/sous-app/sous/internal/pg/pgtest"
)

func TestMain(m *testing.M) {
	// Notifications need no tables, and empty databases keep these tests
	// independent of the application schema.
	pgtest.Migrations = nil
	os.Exit(pgtest.Main(m))
}
