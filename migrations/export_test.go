package migrations

import (
	"context"

	"github.com/golang-migrate/migrate/v4"
)

// UpTo migrates to version v, for tests of a migration on the data of the
// schema before it.
func UpTo(ctx context.Context, databaseURL string, v uint) error {
	return run(ctx, databaseURL, "migrate to", func(m *migrate.Migrate) error { return m.Migrate(v) })
}
