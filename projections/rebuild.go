package projections

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/events"
)

// FoldFunc computes a game's row from its events: all of them, or the
// events of its first appends (a prefix ending at an append's last
// event). It is the caller's: the read models know no rules.
type FoldFunc func(ctx context.Context, streamID string, records []events.Record) (GameRow, error)

// rebuildPageSize is how many games one transaction of Rebuild refolds:
// a move on one of them waits for that transaction (tens of
// milliseconds), and a failed page is tried again whole.
const rebuildPageSize = 64

// rebuildTries is how often a page, or the ratings, is tried when the
// database ends its transaction for a deadlock with the live writers.
const rebuildTries = 5

// Rebuild refolds every read model from the events while azuld serves.
// Games are refolded a page at a time, each page in a transaction of its
// own that first locks the page's games rows: an append to one of those
// games (which always writes its games row) waits for the page, and the
// page sees every append committed before it, so what it writes is
// never older than what the live path wrote. Readers are never blocked:
// nothing is truncated, rows are replaced in place. Rows of games that
// have no events are deleted. The ratings are rated again last, in one
// transaction, in the log's order of the appends that finished the
// games; it shuts out rating writers (a game finishing meanwhile is rated
// once the rebuild commits) but not readers.
//
// fold computes a game's row; each game is folded once, plus, for a game
// with seats to act, once per earlier append for as long as those seats
// were already to act (to find when their turn began, as the live inbox
// recorded it), and a finished game once more to find the append that
// finished it.
func Rebuild(ctx context.Context, pool *pgxpool.Pool, fold FoldFunc) error {
	ids, err := events.StreamIDs(ctx, pool)
	if err != nil {
		return fmt.Errorf("rebuild the read models: %w", err)
	}
	// The finished games that are rated, by id, as their page found them.
	finished := map[string]finishedGame{}
	for start := 0; start < len(ids); start += rebuildPageSize {
		page := ids[start:min(start+rebuildPageSize, len(ids))]
		err := retryDeadlock(ctx, func() error { return rebuildPage(ctx, pool, page, fold, finished) })
		if err != nil {
			return fmt.Errorf("rebuild the read models: %w", err)
		}
	}
	if err := dropOrphans(ctx, pool); err != nil {
		return fmt.Errorf("rebuild the read models: %w", err)
	}
	if err := retryDeadlock(ctx, func() error { return rerateAll(ctx, pool, fold, finished) }); err != nil {
		return fmt.Errorf("rebuild the read models: %w", err)
	}
	// The running games' places on the watch list, from the new ratings.
	if err := retryDeadlock(ctx, func() error { return UpdateWatchOrder(ctx, pool) }); err != nil {
		return fmt.Errorf("rebuild the read models: %w", err)
	}
	return nil
}

// rebuildPage refolds the games of ids in one transaction and records
// the rated finished ones in finished.
func rebuildPage(ctx context.Context, pool *pgxpool.Pool, ids []string, fold FoldFunc, finished map[string]finishedGame) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		// Every append writes its game's row (in its own transaction):
		// holding these locks, the events read below are all there are.
		if _, err := tx.Exec(ctx, `SELECT FROM games WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`, ids); err != nil {
			return fmt.Errorf("lock games: %w", err)
		}
		found := map[string]finishedGame{}
		for _, id := range ids {
			batches, err := events.ReadBatches(ctx, tx, id)
			if err != nil {
				return err
			}
			row, since, err := foldHistory(ctx, id, batches, fold)
			if err != nil {
				return fmt.Errorf("game %s: %w", id, err)
			}
			if err := apply(ctx, tx, row, since, false); err != nil {
				return err
			}
			if enc, err := encodeRow(row); err == nil && row.Status == "finished" {
				if _, rated := ratedGame(enc); rated {
					records := slices.Concat(batches...)
					v, err := finishingVersion(batches, func(end int) (GameRow, error) { return fold(ctx, id, records[:end]) })
					if err != nil {
						return fmt.Errorf("game %s: %w", id, err)
					}
					found[enc.id] = finishedGame{enc: enc, version: v, seatLeft: hasSeatLeft(records)}
				}
			}
		}
		maps.Copy(finished, found)
		return nil
	})
}

// dropOrphans deletes the read models' rows of games that have no events.
func dropOrphans(ctx context.Context, pool *pgxpool.Pool) error {
	for _, table := range []string{"turn_inbox", "results", "game_seats"} {
		if _, err := pool.Exec(ctx, `DELETE FROM `+table+` t WHERE NOT EXISTS (SELECT FROM streams s WHERE s.id = t.game_id)`); err != nil {
			return fmt.Errorf("delete %s rows of games without events: %w", table, err)
		}
	}
	if _, err := pool.Exec(ctx, `DELETE FROM games g WHERE NOT EXISTS (SELECT FROM streams s WHERE s.id = g.id)`); err != nil {
		return fmt.Errorf("delete games without events: %w", err)
	}
	return nil
}

// rerateAll rates every rated finished game again, in one transaction
// that keeps rating writers out. The finished games are those of the
// games read model now: a game the pages found as it is now is taken as
// found; one that finished (or changed) since is folded again here.
func rerateAll(ctx context.Context, pool *pgxpool.Pool, fold FoldFunc, found map[string]finishedGame) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		// EXCLUSIVE: rating_apply (live, or the follower's) waits; SELECTs
		// go on, and see the old ratings until this commits.
		if _, err := tx.Exec(ctx, `LOCK TABLE ratings, rating_history IN EXCLUSIVE MODE`); err != nil {
			return fmt.Errorf("lock the ratings: %w", err)
		}
		rows, err := tx.Query(ctx, `SELECT id::text, version FROM games WHERE status = 'finished' ORDER BY id`)
		if err != nil {
			return fmt.Errorf("list the finished games: %w", err)
		}
		type idVersion struct {
			ID      string
			Version int64
		}
		now, err := pgx.CollectRows(rows, pgx.RowToStructByPos[idVersion])
		if err != nil {
			return fmt.Errorf("list the finished games: %w", err)
		}
		var games []finishedGame
		for _, g := range now {
			if f, ok := found[g.ID]; ok && f.enc.row.Version == g.Version {
				games = append(games, f)
				continue
			}
			f, rated, err := refoldFinished(ctx, tx, g.ID, fold)
			if err != nil {
				return err
			}
			if rated {
				games = append(games, f)
			}
		}
		return rerate(ctx, tx, games)
	})
}

// refoldFinished folds a finished game and finds the append that
// finished it; false when the game is not rated.
func refoldFinished(ctx context.Context, tx pgx.Tx, id string, fold FoldFunc) (finishedGame, bool, error) {
	batches, err := events.ReadBatches(ctx, tx, id)
	if err != nil {
		return finishedGame{}, false, err
	}
	records := slices.Concat(batches...)
	row, err := fold(ctx, id, records)
	if err != nil {
		return finishedGame{}, false, fmt.Errorf("game %s: %w", id, err)
	}
	enc, err := encodeRow(row)
	if err != nil {
		return finishedGame{}, false, err
	}
	if _, rated := ratedGame(enc); !rated || row.Status != "finished" {
		return finishedGame{}, false, nil
	}
	v, err := finishingVersion(batches, func(end int) (GameRow, error) { return fold(ctx, id, records[:end]) })
	if err != nil {
		return finishedGame{}, false, fmt.Errorf("game %s: %w", id, err)
	}
	return finishedGame{enc: enc, version: v, seatLeft: hasSeatLeft(records)}, true, nil
}

// hasSeatLeft reports whether a seat was left in a game's events.
func hasSeatLeft(records []events.Record) bool {
	return slices.ContainsFunc(records, func(r events.Record) bool { return r.Type == seatLeftType })
}

// retryDeadlock runs f again when the database ended its transaction for
// a deadlock (a page's locks against the follower's batch, which writes
// the turn inbox of many games at once) or a serialization failure.
func retryDeadlock(ctx context.Context, f func() error) error {
	var err error
	for try := 1; try <= rebuildTries; try++ {
		if err = f(); err == nil {
			return nil
		}
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || (pgErr.Code != "40P01" && pgErr.Code != "40001") {
			return err
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(time.Duration(try) * 50 * time.Millisecond):
		}
	}
	return err
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

// UpdateWatchOrder writes the place on the watch list of every running
// game from the ratings as they are (a rebuild once the ratings are rated
// again; a history written straight into the tables).
func UpdateWatchOrder(ctx context.Context, pool *pgxpool.Pool) error {
	if _, err := pool.Exec(ctx, `UPDATE games g SET watch_best = `+watchBest+` WHERE g.status = 'active'`); err != nil {
		return fmt.Errorf("the watch list's order: %w", err)
	}
	return nil
}
