package projections

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// seatJSON is the stored form of a SeatRow in games.seats. It holds no
// name: names live in the players table only, so that erasing an account
// leaves no copy here; the queries read them from there (docs/architecture.md §9).
type seatJSON struct {
	Seat     int    `json:"seat"`
	PlayerID string `json:"player_id,omitempty"`
	Bot      string `json:"bot,omitempty"`
	Budget   string `json:"budget,omitempty"`
	// Reserved is the player a free seat is kept for (a rematch).
	Reserved string `json:"reserved,omitempty"`
}

// FormerPlayer is the name shown for a seat whose player's account was
// deleted.
const FormerPlayer = "former player"

// ImportedPlayer reports whether a player id is one that an import gave a
// seat of an imported game: a UUID of version 8, a form no account's id
// takes (accounts get random version 4 ids). Such a seat belongs to
// nobody here, so it has no name, no profile and no turns, and nobody's
// results count it.
func ImportedPlayer(id string) bool {
	// Ids are read and written in the canonical lower-case form.
	return len(id) == 36 && id[8] == '-' && id[14] == '8'
}

// Limits that keep a malformed row from reaching the database.
const (
	maxSeats = 64
	maxText  = 1000
)

// turnKey is one inbox row of a game.
type turnKey struct {
	playerID string
	seat     int
}

// Apply writes a game's row to every read model, inside the transaction
// of the append that produced it: the game, its seats, an inbox row for
// each human seat in ToAct (a player may hold several), and the results
// when Final is set. It is an upsert: applying the same row twice changes
// nothing. All statements go in one round trip.
func Apply(ctx context.Context, tx pgx.Tx, row GameRow) error {
	return apply(ctx, tx, row, nil, true)
}

// apply is Apply with the inbox's since given for some seats (Rebuild);
// the others get row.LastMoveAt. rate says whether a finished game is
// rated now (Rebuild rates them afterwards, in log order).
func apply(ctx context.Context, tx pgx.Tx, row GameRow, since map[turnKey]time.Time, rate bool) error {
	enc, err := encodeRow(row)
	if err != nil {
		return err
	}
	row = enc.row
	b := &pgx.Batch{}
	b.Queue(`INSERT INTO games (id, ruleset, options, status, version, to_act, seats, created_by,
			created_at, last_move_at, deadline, final, rated, visibility)
		VALUES ($1, $2, $3, $4, $5, $6, $7, nullif($8, '')::uuid, $9, $10, $11, $12, $13, $14)
		ON CONFLICT (id) DO UPDATE SET ruleset = excluded.ruleset, options = excluded.options,
			status = excluded.status, version = excluded.version, to_act = excluded.to_act,
			seats = excluded.seats, created_by = excluded.created_by, created_at = excluded.created_at,
			last_move_at = excluded.last_move_at, deadline = excluded.deadline, final = excluded.final,
			rated = excluded.rated, visibility = excluded.visibility`,
		enc.id, row.Ruleset, enc.options, row.Status, row.Version, enc.toAct, enc.seats, row.CreatedBy,
		row.CreatedAt, row.LastMoveAt, row.Deadline, enc.final, !row.Unrated, visibilityOf(row))

	queueSeats(b, enc, true)
	queueWatchBest(b, nil, row, enc.id)
	queueInbox(b, enc, since)
	queueResults(b, enc)
	if rate {
		queueRating(b, enc)
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("update the read models of game %s: %w", enc.id, err)
	}
	return nil
}

// queueSeats queues the statements that make game_seats hold the row's
// seats (none when changed is false).
func queueSeats(b *pgx.Batch, enc encodedRow, changed bool) {
	if !changed {
		return
	}
	b.Queue(seatsDeleteSQL(""), seatsDeleteArgs(enc)...)
	if len(enc.row.Seats) > 0 {
		b.Queue(seatsUpsertSQL(""), seatsUpsertArgs(enc)...)
	}
}

// seatsDeleteSQL removes the game_seats rows of seats a game no longer
// has; and, when set (`AND …`), must also hold.
func seatsDeleteSQL(and string) string {
	return `DELETE FROM game_seats WHERE game_id = $1::uuid AND seat <> ALL($2::int[])` + and
}

func seatsDeleteArgs(enc encodedRow) []any { return []any{enc.id, enc.seatNumbers} }

// seatsUpsertSQL makes game_seats hold a game's seats (rows that did not
// change are not written); where, when set (`WHERE …`), filters the
// source.
func seatsUpsertSQL(where string) string {
	return `INSERT INTO game_seats (game_id, seat, player_id, bot, finished)
		SELECT $1::uuid, s.seat, nullif(s.player_id, '')::uuid, s.bot, $5::boolean
		FROM unnest($2::int[], $3::text[], $4::text[]) AS s (seat, player_id, bot)
		` + where + `
		ON CONFLICT (game_id, seat) DO UPDATE
		SET player_id = excluded.player_id, bot = excluded.bot, finished = excluded.finished
		WHERE (game_seats.player_id, game_seats.bot, game_seats.finished)
			IS DISTINCT FROM (excluded.player_id, excluded.bot, excluded.finished)`
}

func seatsUpsertArgs(enc encodedRow) []any {
	return []any{enc.id, enc.seatNumbers, enc.seatPlayers, enc.seatBots, enc.row.Status == "finished"}
}

// queueFinished queues the statement that marks the game's seats as in a
// finished game or not, when the game ends (or a take-back of its last
// move would reopen it).
func queueFinished(b *pgx.Batch, before *GameRow, enc encodedRow) {
	if before != nil && (before.Status == "finished") == (enc.row.Status == "finished") {
		return
	}
	b.Queue(`UPDATE game_seats SET finished = $2 WHERE game_id = $1 AND finished <> $2`, enc.id, enc.row.Status == "finished")
}

// queueInbox queues the statements that make the turn inbox hold the
// row's human seats to act; since gives the inbox's since for some seats
// (Rebuild), the others get the row's LastMoveAt.
func queueInbox(b *pgx.Batch, enc encodedRow, since map[turnKey]time.Time) {
	row := enc.row
	// The inbox: rows of seats no longer to act go; new ones come with
	// since = now (the row's last move); those that stay keep their since.
	turns := humanTurns(row)
	players := make([]string, len(turns))
	seats := make([]int32, len(turns))
	sinces := make([]time.Time, len(turns))
	for i, t := range turns {
		players[i], seats[i] = t.playerID, int32(t.seat)
		sinces[i] = row.LastMoveAt
		if s, ok := since[t]; ok {
			sinces[i] = s
		}
	}
	b.Queue(`DELETE FROM turn_inbox i WHERE i.game_id = $1 AND NOT EXISTS (
			SELECT 1 FROM unnest($2::uuid[], $3::int[]) AS t (player_id, seat)
			WHERE t.player_id = i.player_id AND t.seat = i.seat)`, enc.id, players, seats)
	if len(turns) > 0 {
		b.Queue(`INSERT INTO turn_inbox (player_id, game_id, seat, since, deadline)
			SELECT t.player_id, $1, t.seat, t.since, $5
			FROM unnest($2::uuid[], $3::int[], $4::timestamptz[]) AS t (player_id, seat, since)
			ON CONFLICT (player_id, game_id, seat) DO UPDATE SET deadline = excluded.deadline
			WHERE turn_inbox.deadline IS DISTINCT FROM excluded.deadline`,
			enc.id, players, seats, sinces, row.Deadline)
	}
}

// queueResults queues the statements that make results hold the row's
// final scores (none while it has none).
func queueResults(b *pgx.Batch, enc encodedRow) {
	row := enc.row
	if row.Final == nil {
		b.Queue(`DELETE FROM results WHERE game_id = $1`, enc.id)
	} else {
		n := len(row.Final.Players)
		rs, rp, rsc, rr := make([]int32, n), make([]string, n), make([]int32, n), make([]int32, n)
		for i, p := range row.Final.Players {
			rs[i], rsc[i], rr[i] = int32(p.Seat), int32(p.Score), int32(p.Rank)
			rp[i] = seatPlayer(row, p.Seat)
		}
		b.Queue(`DELETE FROM results WHERE game_id = $1 AND seat <> ALL($2::int[])`, enc.id, rs)
		b.Queue(`INSERT INTO results (game_id, seat, player_id, score, rank, finished_at)
			SELECT $1, r.seat, nullif(r.player_id, '')::uuid, r.score, r.rank, $6
			FROM unnest($2::int[], $3::text[], $4::int[], $5::int[]) AS r (seat, player_id, score, rank)
			ON CONFLICT (game_id, seat) DO UPDATE SET player_id = excluded.player_id,
				score = excluded.score, rank = excluded.rank, finished_at = excluded.finished_at
			WHERE (results.player_id, results.score, results.rank, results.finished_at)
				IS DISTINCT FROM (excluded.player_id, excluded.score, excluded.rank, excluded.finished_at)`,
			enc.id, rs, rp, rsc, rr, row.LastMoveAt)
	}
}

// humanTurns lists the inbox rows a game row calls for: the seats in
// ToAct held by a player, once each, in seat order of ToAct.
func humanTurns(row GameRow) []turnKey {
	var out []turnKey
	seen := map[int]bool{}
	for _, seat := range row.ToAct {
		if seen[seat] {
			continue
		}
		seen[seat] = true
		// A seat of an imported game is nobody's turn: nobody here can
		// sign in as its player.
		if p := seatPlayer(row, seat); p != "" && !ImportedPlayer(p) {
			out = append(out, turnKey{playerID: p, seat: seat})
		}
	}
	return out
}

// seatPlayer is the player id of a seat, "" for a bot, a free seat or a
// seat the row does not list.
func seatPlayer(row GameRow, seat int) string {
	for _, s := range row.Seats {
		if s.Seat == seat {
			return s.PlayerID
		}
	}
	return ""
}

// encodedRow is a GameRow checked and in its database form.
type encodedRow struct {
	// row is the checked row, its player ids in canonical form.
	row                   GameRow
	id                    string
	options, seats, final []byte
	toAct                 []int32
	seatNumbers           []int32
	seatPlayers, seatBots []string
}

// encodeRow checks a row and encodes it. A bad row is a bug of the
// caller's fold, reported rather than stored.
func encodeRow(row GameRow) (encodedRow, error) {
	bad := func(format string, a ...any) (encodedRow, error) {
		return encodedRow{}, fmt.Errorf("game row %.40q: %w: %s", row.ID, ErrInvalid, fmt.Sprintf(format, a...))
	}
	id, err := canonicalUUID(row.ID)
	if err != nil {
		return bad("the id is not a UUID")
	}
	switch {
	case row.Status != "open" && row.Status != "active" && row.Status != "finished":
		return bad("status %q", row.Status)
	case row.Ruleset == "" || len(row.Ruleset) > maxText:
		return bad("ruleset %q", row.Ruleset)
	case row.Version < 0:
		return bad("version %d", row.Version)
	case len(row.Seats) > maxSeats || len(row.ToAct) > maxSeats:
		return bad("too many seats")
	case row.CreatedAt.IsZero() || row.LastMoveAt.IsZero():
		return bad("created_at and last_move_at are required")
	}
	if row.CreatedBy != "" {
		if _, err := canonicalUUID(row.CreatedBy); err != nil {
			return bad("created_by %q is not a player id", row.CreatedBy)
		}
	}
	row.ID = id
	enc := encodedRow{id: id, toAct: make([]int32, len(row.ToAct))}
	for i, s := range row.ToAct {
		if s < 0 || s >= maxSeats {
			return bad("seat %d to act", s)
		}
		enc.toAct[i] = int32(s)
	}
	stored := make([]seatJSON, len(row.Seats))
	seen := map[int]bool{}
	row.Seats = append([]SeatRow(nil), row.Seats...)
	for i := range row.Seats {
		s := &row.Seats[i]
		switch {
		case s.Seat < 0 || s.Seat >= maxSeats || seen[s.Seat]:
			return bad("seat %d is out of range or listed twice", s.Seat)
		case len(s.Bot) > maxText:
			return bad("seat %d: bot too long", s.Seat)
		}
		seen[s.Seat] = true
		if s.PlayerID != "" {
			p, err := canonicalUUID(s.PlayerID)
			if err != nil {
				return bad("seat %d: player %.40q is not a player id", s.Seat, s.PlayerID)
			}
			s.PlayerID = p
		}
		if s.Reserved != "" {
			p, err := canonicalUUID(s.Reserved)
			if err != nil {
				return bad("seat %d: reserved for %.40q, not a player id", s.Seat, s.Reserved)
			}
			s.Reserved = p
		}
		// A name given is not stored (see seatJSON).
		s.Name = ""
		stored[i] = seatJSON{Seat: s.Seat, PlayerID: s.PlayerID, Bot: s.Bot, Budget: s.Budget, Reserved: s.Reserved}
		enc.seatNumbers = append(enc.seatNumbers, int32(s.Seat))
		enc.seatPlayers = append(enc.seatPlayers, s.PlayerID)
		enc.seatBots = append(enc.seatBots, s.Bot)
	}
	if enc.seatNumbers == nil {
		enc.seatNumbers = []int32{}
	}
	if row.Final != nil {
		finalSeats := map[int]bool{}
		for _, p := range row.Final.Players {
			if p.Seat < 0 || p.Seat >= maxSeats || finalSeats[p.Seat] {
				return bad("final: seat %d is out of range or listed twice", p.Seat)
			}
			finalSeats[p.Seat] = true
		}
		if enc.final, err = json.Marshal(row.Final); err != nil {
			return bad("final: %v", err)
		}
	}
	if enc.options, err = json.Marshal(row.Options); err != nil {
		return bad("options: %v", err)
	}
	if enc.seats, err = json.Marshal(stored); err != nil {
		return bad("seats: %v", err)
	}
	enc.row = row
	return enc, nil
}

// Visibilities as games.visibility stores them.
const (
	visibilityPublic  = "public"
	visibilityPrivate = "private"
)

// visibilityOf is a row's games.visibility.
func visibilityOf(row GameRow) string {
	if row.Private {
		return visibilityPrivate
	}
	return visibilityPublic
}

func canonicalUUID(s string) (string, error) {
	u, err := uuid.Parse(s)
	if err != nil {
		return "", err
	}
	return u.String(), nil
}
