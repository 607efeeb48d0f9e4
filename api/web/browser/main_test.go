package browser

import (
	"os"
	"testing"

	"github.com/azuld/azuld/internal/pgtest"
	"github.com/azuld/azuld/migrations"
)

// pg gives every test a fresh, migrated database.
var pg *pgtest.Harness

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, pgtest.Options{Template: migrations.Up}, &pg))
}
