package projections

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/events"
)

// FoldFunc computes a game's row from its events: all of them, or the
// events of its first appends (a prefix ending at an append's last
// event). It is the caller's: the read models know no rules.
type FoldFunc func(ctx context.Context, streamID string, records []events.Record) (GameRow, error)

// Rebuild drops every read model and refills it from the events, in one
// transaction: readers see the old tables until it commits, and appends
// that update the read models wait for it. fold computes a game's row;
// each game is folded once, plus, for a game with seats to act, once per
// earlier append for as long as those seats were already to act (to find
// when their turn began, as the live inbox recorded it), and a finished
// game once more to find the append that finished it (the ratings are
// rebuilt in the order of those appends).
func Rebuild(ctx context.Context, pool *pgxpool.Pool, fold FoldFunc) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("rebuild the read models: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if _, err := tx.Exec(ctx, "TRUNCATE games, game_seats, turn_inbox, results"); err != nil {
		return fmt.Errorf("rebuild the read models: %w", err)
	}
	ids, err := events.StreamIDs(ctx, tx)
	if err != nil {
		return fmt.Errorf("rebuild the read models: %w", err)
	}
	// The finished games that are rated, rated again once every game is
	// folded, in log order (see rerate).
	var finished []finishedGame
	for _, id := range ids {
		batches, err := events.ReadBatches(ctx, tx, id)
		if err != nil {
			return fmt.Errorf("rebuild the read models: %w", err)
		}
		row, since, err := foldHistory(ctx, id, batches, fold)
		if err != nil {
			return fmt.Errorf("rebuild the read models: game %s: %w", id, err)
		}
		if err := apply(ctx, tx, row, since, false); err != nil {
			return fmt.Errorf("rebuild the read models: %w", err)
		}
		if enc, err := encodeRow(row); err == nil && row.Status == "finished" {
			if _, rated := ratedGame(enc); rated {
				records := slices.Concat(batches...)
				v, err := finishingVersion(batches, func(end int) (GameRow, error) { return fold(ctx, id, records[:end]) })
				if err != nil {
					return fmt.Errorf("rebuild the read models: game %s: %w", id, err)
				}
				finished = append(finished, finishedGame{enc: enc, version: v})
			}
		}
	}
	if err := rerate(ctx, tx, finished); err != nil {
		return fmt.Errorf("rebuild the read models: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("rebuild the read models: commit: %w", err)
	}
	return nil
}

// foldHistory folds a game and finds, for each inbox row of its final
// row, the earliest append from which that seat was to act without a
// break: the live inbox took its since from that append's row.
func foldHistory(ctx context.Context, id string, batches [][]events.Record, fold FoldFunc) (GameRow, map[turnKey]time.Time, error) {
	records := slices.Concat(batches...)
	row, err := fold(ctx, id, records)
	if err != nil {
		return GameRow{}, nil, err
	}
	// Player ids in canonical form, as apply compares them.
	enc, err := encodeRow(row)
	if err != nil {
		return GameRow{}, nil, err
	}
	row = enc.row
	pending := map[turnKey]time.Time{}
	for _, t := range humanTurns(row) {
		pending[t] = row.LastMoveAt
	}
	since := map[turnKey]time.Time{}
	end := len(records)
	for b := len(batches) - 1; b > 0 && len(pending) > 0; b-- {
		end -= len(batches[b])
		earlier, err := fold(ctx, id, records[:end])
		if err != nil {
			return GameRow{}, nil, fmt.Errorf("fold the first %d events: %w", end, err)
		}
		still := map[turnKey]bool{}
		for _, t := range humanTurns(earlier) {
			if p, err := canonicalUUID(t.playerID); err == nil {
				still[turnKey{playerID: p, seat: t.seat}] = true
			}
		}
		for t := range pending {
			if still[t] {
				pending[t] = earlier.LastMoveAt
			} else {
				since[t] = pending[t]
				delete(pending, t)
			}
		}
	}
	for t, s := range pending {
		since[t] = s
	}
	return row, since, nil
}
