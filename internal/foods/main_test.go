package foods_test

import (
	"os"
	"testing"

	"github.com/sous-app/sous/internal/pg/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
