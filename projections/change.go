package projections

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// ApplyChange writes the read models of a game that moved from before to
// after, inside the append's transaction, like Apply, but only the parts
// that changed: a move changes the game's version, its seats to act and
// their inbox rows, rarely its seats or results. On a move that is about
// half the statements and write-ahead log of Apply (docs/BENCHMARKS.md).
// When before is nil, is another game, or its row is missing from the
// table (a rebuild is under way), it falls back to Apply.
func ApplyChange(ctx context.Context, tx pgx.Tx, before *GameRow, after GameRow) error {
	if before == nil || !sameGame(*before, after) {
		return Apply(ctx, tx, after)
	}
	enc, err := encodeRow(after)
	if err != nil {
		return err
	}
	row := enc.row
	seatsChanged := !slices.Equal(before.Seats, after.Seats)
	b := &pgx.Batch{}
	if seatsChanged {
		b.Queue(`UPDATE games SET status = $2, version = $3, to_act = $4, last_move_at = $5,
				deadline = $6, final = $7, seats = $8 WHERE id = $1`,
			enc.id, row.Status, row.Version, enc.toAct, row.LastMoveAt, row.Deadline, enc.final, enc.seats)
	} else {
		b.Queue(`UPDATE games SET status = $2, version = $3, to_act = $4, last_move_at = $5,
				deadline = $6, final = $7 WHERE id = $1`,
			enc.id, row.Status, row.Version, enc.toAct, row.LastMoveAt, row.Deadline, enc.final)
	}
	// Apply's statements, each only when its part changed.
	queueSeats(b, enc, seatsChanged)
	queueWatchBest(b, before, row, enc.id)
	if seatsChanged || !slices.Equal(humanTurns(*before), humanTurns(after)) || !sameTime(before.Deadline, after.Deadline) {
		queueInbox(b, enc, nil)
	}
	if finalChanged(before, &after) {
		queueResults(b, enc)
		queueRating(b, enc)
	}
	queueFinished(b, before, enc)
	tag, err := sendAll(ctx, tx, b)
	if err != nil {
		return fmt.Errorf("update the read models of game %s: %w", enc.id, err)
	}
	if tag.RowsAffected() == 0 {
		return Apply(ctx, tx, after)
	}
	return nil
}

// sameGame reports whether two rows are versions of one game whose
// creation-time columns are equal, so that only the moving parts need
// writing.
func sameGame(a, b GameRow) bool {
	return a.ID == b.ID && a.Ruleset == b.Ruleset && a.CreatedBy == b.CreatedBy &&
		a.Unrated == b.Unrated && a.Private == b.Private && a.CreatedAt.Equal(b.CreatedAt) && a.Options.Wall == b.Options.Wall &&
		a.Options.Board == b.Options.Board && slices.Equal(a.Options.WildOrder, b.Options.WildOrder)
}

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

// finalChanged reports whether the results must be written again.
func finalChanged(before, after *GameRow) bool {
	switch {
	case before.Final == nil && after.Final == nil:
		return false
	case before.Final == nil || after.Final == nil:
		return true
	}
	a, errA := json.Marshal(before.Final)
	b, errB := json.Marshal(after.Final)
	return errA != nil || errB != nil || string(a) != string(b) || !before.LastMoveAt.Equal(after.LastMoveAt)
}

// sendAll runs a batch in one round trip and returns the first
// statement's command tag.
func sendAll(ctx context.Context, tx pgx.Tx, b *pgx.Batch) (pgconn.CommandTag, error) {
	res := tx.SendBatch(ctx, b)
	first, err := res.Exec()
	for i := 1; err == nil && i < b.Len(); i++ {
		_, err = res.Exec()
	}
	if cerr := res.Close(); err == nil {
		err = cerr
	}
	return first, err
}
