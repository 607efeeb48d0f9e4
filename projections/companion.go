package projections

import (
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/azuld/azuld/events"
)

// The read models split in two when they follow the log (see
// Companions and QueueFollowed): what the API must read back as soon as a
// move is answered, written by the append's own statement, and the rest,
// written by the consumer that follows the log.

// appendedAt is the time of the events the append writes (one
// transaction: they share it), and nothing when it writes none, so that a
// companion joined to it changes nothing then.
const appendedAt = `(SELECT max(recorded_at) AS at FROM appended HAVING count(*) > 0) a`

// Companions returns the statements that an append of a game moving from
// before (nil for a new game) to after runs in its own statement: the
// games row (its version, status, seats to act, deadline, result) and,
// when the seats change, game_seats. The row's times are the appended
// events' time (after's are taken as provisional); its deadline is that
// time plus after's deadline less after's last move. The turn inbox and
// the results follow from the log (QueueFollowed).
func Companions(before *GameRow, after GameRow) ([]events.Companion, error) {
	enc, err := encodeRow(after)
	if err != nil {
		return nil, err
	}
	row := enc.row
	var deadlineAfter *time.Duration
	if row.Deadline != nil {
		d := row.Deadline.Sub(row.LastMoveAt)
		deadlineAfter = &d
	}
	var out []events.Companion
	seatsChanged := before == nil || !slices.Equal(before.Seats, after.Seats)
	if before == nil || !sameGame(*before, after) {
		out = append(out, events.Companion{
			SQL: `INSERT INTO games (id, ruleset, options, status, version, to_act, seats, created_by,
				created_at, last_move_at, deadline, final, rated, visibility)
			SELECT $1::uuid, $2::text, $3::jsonb, $4::text, $5::bigint, $6::int[], $7::jsonb, nullif($8::text, '')::uuid,
				a.at, a.at, a.at + $9::interval, $10::jsonb, $11::boolean, $12::text
			FROM ` + appendedAt + `
			ON CONFLICT (id) DO UPDATE SET ruleset = excluded.ruleset, options = excluded.options,
				status = excluded.status, version = excluded.version, to_act = excluded.to_act,
				seats = excluded.seats, created_by = excluded.created_by,
				last_move_at = excluded.last_move_at, deadline = excluded.deadline, final = excluded.final,
				rated = excluded.rated, visibility = excluded.visibility`,
			Args: []any{enc.id, row.Ruleset, enc.options, row.Status, row.Version, enc.toAct, enc.seats, row.CreatedBy,
				deadlineAfter, enc.final, !row.Unrated, visibilityOf(row)},
		})
	} else {
		set := `status = $2::text, version = $3::bigint, to_act = $4::int[], final = $5::jsonb,
				last_move_at = a.at, deadline = a.at + $6::interval`
		args := []any{enc.id, row.Status, row.Version, enc.toAct, enc.final, deadlineAfter}
		if seatsChanged {
			set += `, seats = $7::jsonb`
			args = append(args, enc.seats)
		}
		out = append(out, events.Companion{
			SQL:  `UPDATE games SET ` + set + ` FROM ` + appendedAt + ` WHERE games.id = $1::uuid`,
			Args: args,
		})
	}
	if seatsChanged {
		// The seats statements of Apply, changing nothing when the append
		// writes nothing.
		if before != nil {
			out = append(out, events.Companion{SQL: seatsDeleteSQL(" AND EXISTS (SELECT FROM appended)"), Args: seatsDeleteArgs(enc)})
		}
		if len(row.Seats) > 0 {
			out = append(out, events.Companion{SQL: seatsUpsertSQL("WHERE EXISTS (SELECT FROM appended)"), Args: seatsUpsertArgs(enc)})
		}
	}
	return out, nil
}

// QueueFollowed queues, for the consumer that follows the log, the read
// models an append of a game from before (nil for a new game) to after
// changes besides those its Companions wrote: the turn inbox, the
// results, game_seats' mark of a finished game and, when the game has
// just finished, its rating (in the batch's order, which is the log's).
// after's times are the events' own.
func QueueFollowed(b *pgx.Batch, before *GameRow, after GameRow) error {
	enc, err := encodeRow(after)
	if err != nil {
		return err
	}
	// The companions wrote the seats: the place on the watch list follows.
	if before == nil || !sameGame(*before, after) {
		queueWatchBest(b, nil, enc.row, enc.id)
		queueInbox(b, enc, nil)
		queueResults(b, enc)
		queueRating(b, enc)
		queueFinished(b, before, enc)
		return nil
	}
	queueWatchBest(b, before, enc.row, enc.id)
	if !slices.Equal(before.Seats, after.Seats) || !slices.Equal(humanTurns(*before), humanTurns(after)) || !sameTime(before.Deadline, after.Deadline) {
		queueInbox(b, enc, nil)
	}
	if finalChanged(before, &after) {
		queueResults(b, enc)
		queueRating(b, enc)
	}
	queueFinished(b, before, enc)
	return nil
}
