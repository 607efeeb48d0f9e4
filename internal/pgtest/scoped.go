package pgtest

import (
	"context"
	"fmt"
)

// Database creates a database like NewDatabase, for code that has no
// testing.TB to clean up with (a runnable Example): the caller drops it
// with the returned function. label names it in pg_database.
func (h *Harness) Database(ctx context.Context, label string) (url string, drop func(context.Context) error, err error) {
	name := h.newName(label)
	if err := h.createDatabase(ctx, name, h.template); err != nil {
		return "", nil, fmt.Errorf("pgtest: %w", err)
	}
	drop = func(ctx context.Context) error { return h.dropDatabase(ctx, name) }
	if url, err = dbURL(h.adminURL, name); err != nil {
		return "", nil, fmt.Errorf("pgtest: %w", err)
	}
	return url, drop, nil
}
