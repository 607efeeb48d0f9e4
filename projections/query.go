package projections

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/azuld/azuld/engine"
	"github.com/jackc/pgx/v5"
)

// gameColumns are the columns scanGame reads, in its order.
// The seats' names are read from players at read time (a deleted
// account has none: FormerPlayer), through game_seats' primary key.
const gameColumns = `g.id::text, g.ruleset, g.options, g.status, g.version, g.to_act, g.seats,
	coalesce(g.created_by::text, ''), g.created_at, g.last_move_at, g.deadline, g.final,
	NOT g.rated, g.visibility = 'private',
	(SELECT coalesce(json_object_agg(p.id::text, p.name), '{}')
		FROM game_seats s JOIN players p ON p.id = s.player_id WHERE s.game_id = g.id)`

// ListGames returns a page of the games list, the game with the latest
// move first, and the cursor of the next page ("" on the last page).
// Pagination is by keyset on (last_move_at, id): a game that moves while
// a client pages may show up again or be skipped, but pages never repeat
// or lose the games that did not move.
func ListGames(ctx context.Context, db DB, f Filter) ([]GameRow, string, error) {
	limit := f.Limit
	switch {
	case limit == 0:
		limit = DefaultLimit
	case limit < 0 || limit > MaxLimit:
		return nil, "", fmt.Errorf("list games: %w: limit %d is not in 1..%d", ErrInvalid, f.Limit, MaxLimit)
	}
	var where []string
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	switch f.Status {
	case "":
	case "open", "active", "finished":
		where = append(where, "g.status = "+arg(f.Status))
	default:
		return nil, "", fmt.Errorf("list games: %w: status %.40q", ErrInvalid, f.Status)
	}
	if f.Watch && (f.Status != "" || f.Player != "") {
		return nil, "", fmt.Errorf("list games: %w: the watch list takes no status or player", ErrInvalid)
	}
	if f.Ruleset != "" {
		where = append(where, "g.ruleset = "+arg(f.Ruleset))
	}
	if f.Player != "" {
		id, err := canonicalUUID(f.Player)
		if err != nil {
			return nil, "", fmt.Errorf("list games: %w: player %.40q is not a player id", ErrInvalid, f.Player)
		}
		where = append(where, "EXISTS (SELECT 1 FROM game_seats s WHERE s.game_id = g.id AND s.player_id = "+arg(id)+")")
	}
	if f.Invited != "" {
		id, err := canonicalUUID(f.Invited)
		if err != nil {
			return nil, "", fmt.Errorf("list games: %w: player %.40q is not a player id", ErrInvalid, f.Invited)
		}
		// Only the reserved field: a seatJSON would also match its seat
		// number (0), and miss an invitation to any other seat.
		reserved, _ := json.Marshal([]map[string]string{{"reserved": id}})
		where = append(where, "g.status = 'open' AND g.seats @> "+arg(string(reserved))+"::jsonb")
	}
	if f.Without != "" {
		id, err := canonicalUUID(f.Without)
		if err != nil {
			return nil, "", fmt.Errorf("list games: %w: player %.40q is not a player id", ErrInvalid, f.Without)
		}
		where = append(where, "NOT EXISTS (SELECT 1 FROM game_seats w WHERE w.game_id = g.id AND w.player_id = "+arg(id)+")")
	}
	switch {
	case f.Watch:
		where = append(where, "g.status = 'active' AND g.visibility = 'public'")
	case f.Everything:
	case f.Viewer == "":
		where = append(where, "g.visibility = 'public'")
	default:
		id, err := canonicalUUID(f.Viewer)
		if err != nil {
			return nil, "", fmt.Errorf("list games: %w: viewer %.40q is not a player id", ErrInvalid, f.Viewer)
		}
		// A seat kept for the viewer (a rematch's invitation) lets them
		// see the game as a seat of theirs would.
		kept, _ := json.Marshal([]seatJSON{{Reserved: id}})
		where = append(where, "(g.visibility = 'public' OR EXISTS (SELECT 1 FROM game_seats v WHERE v.game_id = g.id AND v.player_id = "+arg(id)+
			") OR g.seats @> "+arg(string(kept))+"::jsonb)")
	}
	if f.Watch {
		return listWatched(ctx, db, f, limit, where, args)
	}
	if f.Cursor != "" {
		at, id, err := decodeCursor(f.Cursor)
		if err != nil {
			return nil, "", fmt.Errorf("list games: %w", err)
		}
		where = append(where, "(g.last_move_at, g.id) < ("+arg(at)+"::timestamptz, "+arg(id)+"::uuid)")
	}
	q := "SELECT " + gameColumns + " FROM games g"
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY g.last_move_at DESC, g.id DESC LIMIT " + arg(limit+1)

	games, _, err := queryGames(ctx, db, q, false, args...)
	if err != nil {
		return nil, "", fmt.Errorf("list games: %w", err)
	}
	next := ""
	if len(games) > limit {
		games = games[:limit]
		last := games[limit-1]
		next = encodeCursor(last.LastMoveAt, last.ID)
	}
	return games, next, nil
}

// watchBest is a game's place on the watch list: the highest rating
// ordinal among its seats' players in its rule set and number of players,
// a seat without a rating (a bot, a player new to these rules) counting
// as 0. Bots count as 0 too: the watch list is for watching people. It is
// kept in games.watch_best (queueWatchBest), written when the game starts
// or its seats change: reading it for every running game on each request
// took 1.9 s with 10,000 of them.
const watchBest = `(SELECT coalesce(max(coalesce(r.ordinal, 0)), 0)::float8 FROM game_seats s
	LEFT JOIN ratings r ON r.ruleset = g.ruleset AND r.players = jsonb_array_length(g.seats)
		AND r.subject = s.player_id::text
	WHERE s.game_id = g.id)`

// queueWatchBest queues the statement that writes a running game's place
// on the watch list, when it may have changed: the game has just started,
// or its seats changed while it runs (a seat left to a bot). It follows
// the statements that write the game's seats. Ratings that change while
// the game runs leave it where it started.
func queueWatchBest(b *pgx.Batch, before *GameRow, after GameRow, id string) {
	if after.Status != "active" {
		return
	}
	if before != nil && before.Status == "active" && slices.Equal(before.Seats, after.Seats) {
		return
	}
	b.Queue(`UPDATE games g SET watch_best = `+watchBest+` WHERE g.id = $1::uuid`, id)
}

// listWatched is the watch list: running public games, the best-rated
// first, then the latest move; its keyset is (best, last move, id).
func listWatched(ctx context.Context, db DB, f Filter, limit int, where []string, args []any) ([]GameRow, string, error) {
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if f.Cursor != "" {
		best, at, id, err := decodeWatchCursor(f.Cursor)
		if err != nil {
			return nil, "", fmt.Errorf("list games: %w", err)
		}
		where = append(where, "(g.watch_best, g.last_move_at, g.id) < ("+arg(best)+"::float8, "+arg(at)+"::timestamptz, "+arg(id)+"::uuid)")
	}
	q := "SELECT " + gameColumns + ", g.watch_best FROM games g WHERE " + strings.Join(where, " AND ") +
		" ORDER BY g.watch_best DESC, g.last_move_at DESC, g.id DESC LIMIT " + arg(limit+1)
	games, bests, err := queryGames(ctx, db, q, true, args...)
	if err != nil {
		return nil, "", fmt.Errorf("list games: %w", err)
	}
	next := ""
	if len(games) > limit {
		games = games[:limit]
		last := games[limit-1]
		next = encodeWatchCursor(bests[limit-1], last.LastMoveAt, last.ID)
	}
	return games, next, nil
}

// queryGames runs a query of gameColumns (and, when best is set, a last
// float8 column, returned beside).
func queryGames(ctx context.Context, db DB, q string, best bool, args ...any) ([]GameRow, []float64, error) {
	rows, err := db.Query(ctx, q, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	games := make([]GameRow, 0, 16)
	var bests []float64
	for rows.Next() {
		var g GameRow
		if best {
			var b float64
			g, err = scanGame(rows, &b)
			bests = append(bests, b)
		} else {
			g, err = scanGame(rows)
		}
		if err != nil {
			return nil, nil, err
		}
		games = append(games, g)
	}
	return games, bests, rows.Err()
}

// Game reads one game's row; found is false for an unknown game.
func Game(ctx context.Context, db DB, gameID string) (row GameRow, found bool, err error) {
	id, err := canonicalUUID(gameID)
	if err != nil {
		return GameRow{}, false, nil
	}
	rows, err := db.Query(ctx, "SELECT "+gameColumns+" FROM games g WHERE g.id = $1", id)
	if err != nil {
		return GameRow{}, false, fmt.Errorf("read game %s: %w", id, err)
	}
	defer rows.Close()
	if rows.Next() {
		row, err = scanGame(rows)
		if err != nil {
			return GameRow{}, false, fmt.Errorf("read game %s: %w", id, err)
		}
		found = true
	}
	if err := rows.Err(); err != nil {
		return GameRow{}, false, fmt.Errorf("read game %s: %w", id, err)
	}
	return row, found, nil
}

type scanner interface{ Scan(dest ...any) error }

// scanGame reads a row of gameColumns, and then into more, the columns
// after them.
func scanGame(r scanner, more ...any) (GameRow, error) {
	var g GameRow
	var options, seats, final, namesJSON []byte
	var toAct []int32
	dest := []any{&g.ID, &g.Ruleset, &options, &g.Status, &g.Version, &toAct, &seats,
		&g.CreatedBy, &g.CreatedAt, &g.LastMoveAt, &g.Deadline, &final, &g.Unrated, &g.Private, &namesJSON}
	if err := r.Scan(append(dest, more...)...); err != nil {
		return GameRow{}, err
	}
	var names map[string]string
	if err := json.Unmarshal(namesJSON, &names); err != nil {
		return GameRow{}, fmt.Errorf("game %s: names: %w", g.ID, err)
	}
	if err := json.Unmarshal(options, &g.Options); err != nil {
		return GameRow{}, fmt.Errorf("game %s: options: %w", g.ID, err)
	}
	var stored []seatJSON
	if err := json.Unmarshal(seats, &stored); err != nil {
		return GameRow{}, fmt.Errorf("game %s: seats: %w", g.ID, err)
	}
	g.Seats = make([]SeatRow, len(stored))
	for i, s := range stored {
		g.Seats[i] = SeatRow{Seat: s.Seat, PlayerID: s.PlayerID, Bot: s.Bot, Budget: s.Budget, Reserved: s.Reserved}
		if s.PlayerID != "" && !ImportedPlayer(s.PlayerID) {
			if n, ok := names[s.PlayerID]; ok {
				g.Seats[i].Name = n
			} else {
				g.Seats[i].Name = FormerPlayer
			}
		}
	}
	g.ToAct = make([]int, len(toAct))
	for i, s := range toAct {
		g.ToAct[i] = int(s)
	}
	if final != nil {
		g.Final = &engine.Final{}
		if err := json.Unmarshal(final, g.Final); err != nil {
			return GameRow{}, fmt.Errorf("game %s: final: %w", g.ID, err)
		}
	}
	return g, nil
}

// The cursor is opaque to clients: "v1.<unix microseconds>.<game id>" in
// base64url. Timestamps are stored to the microsecond, so it is exact.
const cursorVersion = "v1"

func encodeCursor(at time.Time, id string) string {
	raw := cursorVersion + "." + strconv.FormatInt(at.UnixMicro(), 10) + "." + id
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// maxCursor bounds what decodeCursor reads: a real cursor has about 80
// bytes.
const maxCursor = 200

func decodeCursor(cursor string) (time.Time, string, error) {
	bad := fmt.Errorf("%w: the cursor is not one this server gave", ErrInvalid)
	if len(cursor) > maxCursor {
		return time.Time{}, "", bad
	}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return time.Time{}, "", bad
	}
	parts := strings.Split(string(raw), ".")
	if len(parts) != 3 || parts[0] != cursorVersion {
		return time.Time{}, "", bad
	}
	micros, err := strconv.ParseInt(parts[1], 10, 64)
	// PostgreSQL's timestamptz spans 4713 BC to 294276 AD; stay well inside.
	const maxMicros = 1 << 62 / 1000
	if err != nil || micros < -maxMicros || micros > maxMicros {
		return time.Time{}, "", bad
	}
	id, err := canonicalUUID(parts[2])
	if err != nil {
		return time.Time{}, "", bad
	}
	at := time.UnixMicro(micros).UTC()
	// Only the form this server writes: no "+1", "007", line breaks.
	if encodeCursor(at, id) != cursor {
		return time.Time{}, "", bad
	}
	return at, id, nil
}

// A watch list cursor is "w1.<the best ordinal's bits in hex>.<unix
// microseconds>.<game id>" in base64url.
const watchCursorVersion = "w1"

func encodeWatchCursor(best float64, at time.Time, id string) string {
	raw := watchCursorVersion + "." + strconv.FormatUint(math.Float64bits(best), 16) + "." +
		strconv.FormatInt(at.UnixMicro(), 10) + "." + id
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

func decodeWatchCursor(cursor string) (float64, time.Time, string, error) {
	bad := fmt.Errorf("%w: the cursor is not one this server gave", ErrInvalid)
	if len(cursor) > maxCursor {
		return 0, time.Time{}, "", bad
	}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return 0, time.Time{}, "", bad
	}
	parts := strings.Split(string(raw), ".")
	if len(parts) != 4 || parts[0] != watchCursorVersion {
		return 0, time.Time{}, "", bad
	}
	bits, err := strconv.ParseUint(parts[1], 16, 64)
	best := math.Float64frombits(bits)
	if err != nil || math.IsNaN(best) || math.IsInf(best, 0) {
		return 0, time.Time{}, "", bad
	}
	micros, err := strconv.ParseInt(parts[2], 10, 64)
	const maxMicros = 1 << 62 / 1000
	if err != nil || micros < -maxMicros || micros > maxMicros {
		return 0, time.Time{}, "", bad
	}
	id, err := canonicalUUID(parts[3])
	if err != nil {
		return 0, time.Time{}, "", bad
	}
	at := time.UnixMicro(micros).UTC()
	if encodeWatchCursor(best, at, id) != cursor {
		return 0, time.Time{}, "", bad
	}
	return best, at, id, nil
}

// Inbox lists the games waiting for a player, one row per game: the most
// urgent first (earliest deadline, then longest wait). Who must act comes
// from the games row, which the move's own statement writes, so a player
// sees a turn as soon as the move that brought it is answered; when the
// turn began comes from the turn inbox, which follows from the log, and
// until the follower has written it, from the game's last move.
func Inbox(ctx context.Context, db DB, playerID string) ([]TurnRow, error) {
	id, err := canonicalUUID(playerID)
	if err != nil {
		return nil, fmt.Errorf("turn inbox: %w: player %.40q is not a player id", ErrInvalid, playerID)
	}
	rows, err := db.Query(ctx, `SELECT s.game_id::text, g.ruleset, array_agg(s.seat ORDER BY s.seat), g.version,
			min(coalesce(i.since, g.last_move_at)) AS since, g.deadline
		FROM game_seats s
		JOIN games g ON g.id = s.game_id
		LEFT JOIN turn_inbox i ON i.player_id = s.player_id AND i.game_id = s.game_id AND i.seat = s.seat
		WHERE s.player_id = $1 AND NOT s.finished AND s.seat = ANY(g.to_act)
		GROUP BY s.game_id, g.ruleset, g.version, g.deadline
		ORDER BY g.deadline NULLS LAST, since, s.game_id`, id)
	if err != nil {
		return nil, fmt.Errorf("turn inbox of %s: %w", id, err)
	}
	defer rows.Close()
	out := []TurnRow{}
	for rows.Next() {
		var t TurnRow
		var seats []int32
		if err := rows.Scan(&t.GameID, &t.Ruleset, &seats, &t.Version, &t.Since, &t.Deadline); err != nil {
			return nil, fmt.Errorf("turn inbox of %s: %w", id, err)
		}
		t.Seats = make([]int, len(seats))
		for i, s := range seats {
			t.Seats[i] = int(s)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("turn inbox of %s: %w", id, err)
	}
	return out, nil
}

// Results lists a player's results in finished games, the latest first
// (a player holding several seats of one game has one row per seat).
func Results(ctx context.Context, db DB, playerID string) ([]ResultRow, error) {
	id, err := canonicalUUID(playerID)
	if err != nil {
		return nil, fmt.Errorf("results: %w: player %.40q is not a player id", ErrInvalid, playerID)
	}
	rows, err := db.Query(ctx, `SELECT r.game_id::text, g.ruleset, r.seat, r.score, r.rank,
			jsonb_array_length(g.seats), r.finished_at
		FROM results r JOIN games g ON g.id = r.game_id
		WHERE r.player_id = $1
		ORDER BY r.finished_at DESC, r.game_id, r.seat`, id)
	if err != nil {
		return nil, fmt.Errorf("results of %s: %w", id, err)
	}
	defer rows.Close()
	out := []ResultRow{}
	for rows.Next() {
		var r ResultRow
		if err := rows.Scan(&r.GameID, &r.Ruleset, &r.Seat, &r.Score, &r.Rank, &r.Seats, &r.FinishedAt); err != nil {
			return nil, fmt.Errorf("results of %s: %w", id, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("results of %s: %w", id, err)
	}
	return out, nil
}
