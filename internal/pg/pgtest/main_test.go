package pgtest

import (
	"os"
	"testing"
	"testing/fstest"
)

// testMigrations stand in for the application schema so that these tests
// depend only on the machinery, not on what db/migrations holds today.
var testMigrations = fstest.MapFS{
	"00001_widgets.sql": {Data: []byte(`-- +goose Up
CREATE TABLE widgets (id int PRIMARY KEY, name text NOT NULL);
-- +goose Down
DROP TABLE widgets;
`)},
}

func TestMain(m *testing.M) {
	Migrations = testMigrations
	os.Exit(Main(m))
}
