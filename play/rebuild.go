package play

import (
	"context"
	"fmt"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/projections"
)

// RebuildProjections drops the read models and refolds them from every
// game's events.
func (s *Service) RebuildProjections(ctx context.Context) error {
	if err := projections.Rebuild(ctx, s.pool, s.FoldRow); err != nil {
		return fmt.Errorf("rebuild projections: %w", err)
	}
	return nil
}

// FoldRow folds a game's records into its read-model row.
func (s *Service) FoldRow(_ context.Context, streamID string, recs []events.Record) (projections.GameRow, error) {
	g := newGame(streamID)
	if err := g.foldRecords(s.rules, recs); err != nil {
		return projections.GameRow{}, err
	}
	return g.Row(), nil
}
