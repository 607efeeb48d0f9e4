package browser

import (
	"os"
	"testing"

	"github.com/azuld/azuld/internal/pgtest"
	"github.com/azuld/azuld/migrations"
)

// The binary's shared harnesses: pg gives every test a fresh, migrated
// database; chrome is the one Chromium every test opens its tabs in.
var (
	pg     *pgtest.Harness
	chrome = &chromium{}
)

func TestMain(m *testing.M) {
	code := pgtest.Main(m, pgtest.Options{Template: migrations.Up}, &pg)
	chrome.close()
	os.Exit(code)
}
