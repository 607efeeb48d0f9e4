package projections

import (
	"context"
	"encoding/base64"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/azuld/azuld/engine/bots"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/rating"
)

// The ratings read model (migration 000019, docs/ratings.md): ratings
// holds each player's and each bot kind's current rating per rule set and
// number of players, rating_history the rating before and after each
// rated game. A game is rated once, when it finishes, by the database
// function rating_apply (package rating's update, written out in SQL: the
// follower of the log writes its read models in a batch that cannot read
// back between statements, and each game's update must read what the
// previous one wrote). Rebuild rates every finished game again in the
// order of the appends that finished them, which is the order the
// follower rated them in, so a rebuild gives the same numbers.

// BotSubject is the prefix of a bot kind's subject in the ratings.
const BotSubject = "bot:"

// BotSubjectOf is the ratings' subject of a bot seat: "bot:" and its
// kind, and for a search bot thinking longer or shorter than
// bots.DefaultBudget, "@" and its budget ("bot:search@1s"). Each budget
// is a player of its own strength, rated apart; the default keeps the
// plain kind, as games rated before budgets were told apart have it.
func BotSubjectOf(kind, budget string) string {
	if budget == "" || kind != bots.Search {
		return BotSubject + kind
	}
	if d, err := time.ParseDuration(budget); err == nil && d == bots.DefaultBudget {
		return BotSubject + kind
	}
	return BotSubject + kind + "@" + budget
}

// ActiveWithin is how recent a rated game must be for its player to show
// on the leaderboard.
const ActiveWithin = 90 * 24 * time.Hour

// ratedSeats is a finished game as rating_apply rates it: its
// participants in the order of its final ranking, each a subject (a
// player's id, or a bot kind's BotSubjectOf) with its seat and rank.
type ratedSeats struct {
	id, ruleset string
	finishedAt  time.Time
	// subjects[i] is players[i] for a player, BotSubject+bots[i] for a
	// bot (the other of the two is "").
	subjects, players, bots []string
	seats, ranks            []int32
}

// ratedGame is a finished game's rating input, or false when the game
// is not rated: a game created unrated, a seat that no player or bot
// holds, a player or bot kind holding two seats (nobody is rated against
// themselves), fewer than two seats.
func ratedGame(enc encodedRow) (ratedSeats, bool) {
	row := enc.row
	if row.Unrated || row.Status != "finished" || row.Final == nil || len(row.Final.Players) < 2 || len(row.Final.Players) != len(row.Seats) {
		return ratedSeats{}, false
	}
	n := len(row.Final.Players)
	g := ratedSeats{id: enc.id, ruleset: row.Ruleset, finishedAt: row.LastMoveAt,
		subjects: make([]string, n), players: make([]string, n), bots: make([]string, n),
		seats: make([]int32, n), ranks: make([]int32, n)}
	for i, p := range row.Final.Players {
		idx := slices.IndexFunc(row.Seats, func(s SeatRow) bool { return s.Seat == p.Seat })
		if idx < 0 || p.Rank < 1 {
			return ratedSeats{}, false
		}
		s := row.Seats[idx]
		switch {
		case s.PlayerID != "":
			g.subjects[i], g.players[i] = s.PlayerID, s.PlayerID
		case s.Bot != "":
			// The bot column names it as its subject does ("search@1s"),
			// so that the leaderboard tells the budgets apart.
			g.subjects[i] = BotSubjectOf(s.Bot, s.Budget)
			g.bots[i] = strings.TrimPrefix(g.subjects[i], BotSubject)
		default:
			return ratedSeats{}, false
		}
		if slices.Contains(g.subjects[:i], g.subjects[i]) {
			return ratedSeats{}, false
		}
		g.seats[i], g.ranks[i] = int32(p.Seat), int32(p.Rank)
	}
	return g, true
}

const rateSQL = `SELECT rating_apply($1::uuid, $2::text, $3::timestamptz, $4::text[], $5::text[], $6::text[],
	$7::int[], $8::int[], $9::float8, $10::float8, $11::float8, $12::float8, $13::float8)`

// queueRating queues the rating of a game that has just finished (nothing
// for one that is not finished or not rated). Applying it twice changes
// nothing: rating_apply skips a game it has rated.
func queueRating(b *pgx.Batch, enc encodedRow) {
	g, ok := ratedGame(enc)
	if !ok {
		return
	}
	// The model's constants, the same for every update.
	p := rating.Default()
	b.Queue(rateSQL, g.id, g.ruleset, g.finishedAt, g.subjects, g.players, g.bots, g.seats, g.ranks,
		p.Mu, p.Sigma, p.Beta, p.Kappa, p.Tau)
}

// seatLeftType is the server event of a seat its player left: a game
// that has one is not rated (rating_apply looks for it by this name).
const seatLeftType = "game.seat_left"

// finishedGame is a game Rebuild rates, with the first event of the
// append that finished it.
type finishedGame struct {
	enc     encodedRow
	version int64
	// seatLeft: a seat was left during the game, which is then not rated.
	seatLeft bool
}

// finishingVersion is the version of the first event of the append that
// finished a game (batches are its appends; the game as all of them leave
// it is finished): the latest append before which it was not finished.
// foldFirst folds the first end events.
func finishingVersion(batches [][]events.Record, foldFirst func(end int) (GameRow, error)) (int64, error) {
	end := 0
	for _, b := range batches {
		end += len(b)
	}
	for k := len(batches) - 1; k > 0; k-- {
		end -= len(batches[k])
		earlier, err := foldFirst(end)
		if err != nil {
			return 0, fmt.Errorf("fold the first %d events: %w", end, err)
		}
		if earlier.Status != "finished" {
			return batches[k][0].Version, nil
		}
	}
	return batches[0][0].Version, nil
}

// ratingKey names one rating: a subject in a rule set and number of
// players.
type ratingKey struct {
	ruleset string
	players int
	subject string
}

// ratingState is one rating as a rerate holds it in memory.
type ratingState struct {
	player, bot string
	mu, sigma   float64
	games       int
	lastGameAt  time.Time
}

// rerate empties the ratings and rates the finished games again, in the
// order of the appends that finished them ((tx_id, global_position), the
// follower's order). It deletes rather than truncates: readers of the
// ratings see the old ones until the transaction commits.
//
// The ratings are held in memory while the games are rated one after
// the other, each by rating_compute, the arithmetic rating_apply runs on
// the live path (so the numbers are the same to the last bit), and every
// rating and history row is written once at the end, by COPY. Rating
// through rating_apply instead updated a bot's row once per game it
// played, thousands of times in one transaction, and each update had to
// walk the row's versions before it: 100,000 games were still being
// rated after 24 minutes.
func rerate(ctx context.Context, tx pgx.Tx, games []finishedGame) error {
	if _, err := tx.Exec(ctx, "DELETE FROM rating_history"); err != nil {
		return fmt.Errorf("empty the ratings: %w", err)
	}
	if _, err := tx.Exec(ctx, "DELETE FROM ratings"); err != nil {
		return fmt.Errorf("empty the ratings: %w", err)
	}
	games = slices.DeleteFunc(slices.Clone(games), func(g finishedGame) bool { return g.seatLeft })
	if len(games) == 0 {
		return nil
	}
	ids, versions := make([]string, len(games)), make([]int64, len(games))
	byID := make(map[string]encodedRow, len(games))
	for i, g := range games {
		ids[i], versions[i] = g.enc.id, g.version
		byID[g.enc.id] = g.enc
	}
	rows, err := tx.Query(ctx, `SELECT f.id::text FROM unnest($1::uuid[], $2::bigint[]) AS f (id, version)
		JOIN events e ON e.stream_id = f.id AND e.version = f.version
		ORDER BY e.tx_id, e.global_position`, ids, versions)
	if err != nil {
		return fmt.Errorf("order the finished games: %w", err)
	}
	order, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("order the finished games: %w", err)
	}
	p := rating.Default()
	current := map[ratingKey]*ratingState{}
	var history [][]any
	for _, id := range order {
		g, ok := ratedGame(byID[id])
		if !ok {
			continue
		}
		n := len(g.subjects)
		mu, sigma := make([]float64, n), make([]float64, n)
		for i, s := range g.subjects {
			mu[i], sigma[i] = p.Mu, p.Sigma
			if r := current[ratingKey{g.ruleset, n, s}]; r != nil {
				mu[i], sigma[i] = r.mu, r.sigma
			}
		}
		var newMu, newSigma []float64
		if err := tx.QueryRow(ctx, `SELECT new_mu, new_sg FROM rating_compute($1, $2, $3, $4, $5, $6)`,
			mu, sigma, g.ranks, p.Beta, p.Kappa, p.Tau).Scan(&newMu, &newSigma); err != nil {
			return fmt.Errorf("rate game %s: %w", id, err)
		}
		if len(newMu) != n || len(newSigma) != n {
			return fmt.Errorf("rate game %s: %d ratings for %d seats", id, len(newMu), n)
		}
		for i, s := range g.subjects {
			k := ratingKey{g.ruleset, n, s}
			r := current[k]
			if r == nil {
				r = &ratingState{player: g.players[i], bot: g.bots[i]}
				current[k] = r
			}
			r.mu, r.sigma, r.games = newMu[i], newSigma[i], r.games+1
			if g.finishedAt.After(r.lastGameAt) {
				r.lastGameAt = g.finishedAt
			}
			history = append(history, []any{g.id, s, nullUUID(g.players[i]), g.ruleset, n, g.seats[i], g.ranks[i],
				mu[i], sigma[i], newMu[i], newSigma[i], g.finishedAt})
		}
	}
	ratings := make([][]any, 0, len(current))
	for k, r := range current {
		ratings = append(ratings, []any{k.ruleset, k.players, k.subject, nullUUID(r.player), r.bot, r.mu, r.sigma, r.games, r.lastGameAt})
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"ratings"},
		[]string{"ruleset", "players", "subject", "player_id", "bot", "mu", "sigma", "games", "last_game_at"},
		pgx.CopyFromRows(ratings)); err != nil {
		return fmt.Errorf("write the ratings: %w", err)
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"rating_history"},
		[]string{"game_id", "subject", "player_id", "ruleset", "players", "seat", "rank",
			"mu_before", "sigma_before", "mu_after", "sigma_after", "finished_at"},
		pgx.CopyFromRows(history)); err != nil {
		return fmt.Errorf("write the rating history: %w", err)
	}
	return nil
}

// nullUUID is a player's id for a uuid column, or NULL for a bot's "".
func nullUUID(id string) any {
	if id == "" {
		return nil
	}
	return id
}

// RatingRow is one rating: a player's or a bot kind's, in one rule set
// and number of players.
type RatingRow struct {
	Ruleset string
	Players int
	// PlayerID is set for a player, Bot for a bot kind.
	PlayerID string
	Bot      string
	// Name is the player's name, read from players (FormerPlayer for a
	// deleted account), or the bot's kind.
	Name        string
	Mu, Sigma   float64
	Ordinal     float64
	Games       int
	LastGameAt  time.Time
	Provisional bool
}

// Leaderboard selects a page of a leaderboard.
type Leaderboard struct {
	Ruleset string
	Players int
	// Provisional also lists the provisional ratings.
	Provisional bool
	// Limit is the page size (0: DefaultLimit; at most MaxLimit).
	Limit int
	// Cursor is the nextCursor of the previous page.
	Cursor string
	// Now is the time activity is measured from (zero: now).
	Now time.Time
}

const ratingColumns = `r.ruleset, r.players, coalesce(r.player_id::text, ''), r.bot,
	CASE WHEN r.player_id IS NULL THEN r.bot ELSE coalesce(p.name, '') END,
	r.mu, r.sigma, r.ordinal, r.games, r.last_game_at, r.subject`

// ListRatings returns a page of a leaderboard: the players and bots with
// a rated game within ActiveWithin, best ordinal first (ties by subject,
// descending),
// without the provisional ratings unless asked, and the next page's
// cursor ("" on the last page).
func ListRatings(ctx context.Context, db DB, f Leaderboard) ([]RatingRow, string, error) {
	limit := f.Limit
	switch {
	case limit == 0:
		limit = DefaultLimit
	case limit < 0 || limit > MaxLimit:
		return nil, "", fmt.Errorf("list ratings: %w: limit %d is not in 1..%d", ErrInvalid, f.Limit, MaxLimit)
	}
	if f.Ruleset == "" || f.Players < 2 || f.Players > maxSeats {
		return nil, "", fmt.Errorf("list ratings: %w: rule set %.40q, %d players", ErrInvalid, f.Ruleset, f.Players)
	}
	now := f.Now
	if now.IsZero() {
		now = time.Now()
	}
	args := []any{f.Ruleset, f.Players, now.Add(-ActiveWithin)}
	where := ""
	if !f.Provisional {
		args = append(args, rating.ProvisionalGames, rating.ProvisionalSigma)
		where += ` AND r.games >= $4 AND r.sigma <= $5`
	}
	if f.Cursor != "" {
		ord, subject, err := decodeRatingCursor(f.Cursor)
		if err != nil {
			return nil, "", fmt.Errorf("list ratings: %w", err)
		}
		args = append(args, ord, subject)
		where += fmt.Sprintf(` AND (r.ordinal, r.subject) < ($%d, $%d)`, len(args)-1, len(args))
	}
	// The page is chosen on ratings alone, in the order of its index
	// (the filters and the limit are plain in the text, so that the plan
	// is that index's whatever the values), and only its rows are joined
	// with players for their names.
	q := `SELECT ` + ratingColumns + ` FROM (
			SELECT * FROM ratings r
			WHERE r.ruleset = $1 AND r.players = $2 AND r.last_game_at > $3` + where + `
			ORDER BY r.ordinal DESC, r.subject DESC LIMIT ` + strconv.Itoa(limit+1) + `) r
		LEFT JOIN players p ON p.id = r.player_id
		ORDER BY r.ordinal DESC, r.subject DESC`
	out, subjects, err := queryRatings(ctx, db, q, args...)
	if err != nil {
		return nil, "", fmt.Errorf("list ratings: %w", err)
	}
	next := ""
	if len(out) > limit {
		out, subjects = out[:limit], subjects[:limit]
		last := out[limit-1]
		next = encodeRatingCursor(last.Ordinal, subjects[limit-1])
	}
	return out, next, nil
}

// PlayerRatings returns a player's ratings, every rule set and number of
// players, most recently played first.
func PlayerRatings(ctx context.Context, db DB, playerID string) ([]RatingRow, error) {
	id, err := canonicalUUID(playerID)
	if err != nil {
		return nil, fmt.Errorf("player ratings: %w: %.40q is not a player id", ErrInvalid, playerID)
	}
	out, _, err := queryRatings(ctx, db, `SELECT `+ratingColumns+` FROM ratings r
		LEFT JOIN players p ON p.id = r.player_id
		WHERE r.player_id = $1 ORDER BY r.last_game_at DESC, r.ruleset, r.players`, id)
	if err != nil {
		return nil, fmt.Errorf("player ratings: %w", err)
	}
	return out, nil
}

// BotRatings returns the ratings of the bot kinds a seat may hold
// (bots.Kinds), at their default budget, in the given rule sets and every
// number of players: what a player choosing a bot is shown. Ordered by
// kind as bots.Kinds lists them, then rule set and number of players.
func BotRatings(ctx context.Context, db DB, rulesets []string) ([]RatingRow, error) {
	kinds := bots.Kinds()
	subjects := make([]string, len(kinds))
	for i, k := range kinds {
		subjects[i] = BotSubject + k
	}
	// The subject is not the first column of any index of ratings: name
	// each rule set and number of players, so that the primary key
	// answers.
	out, _, err := queryRatings(ctx, db, `SELECT `+ratingColumns+` FROM ratings r
		LEFT JOIN players p ON false
		WHERE r.ruleset = ANY ($1::text[]) AND r.players = ANY ($2::int[]) AND r.subject = ANY ($3::text[])
		ORDER BY array_position($3::text[], r.subject), r.ruleset, r.players`, rulesets, []int32{2, 3, 4}, subjects)
	if err != nil {
		return nil, fmt.Errorf("bot ratings: %w", err)
	}
	return out, nil
}

func queryRatings(ctx context.Context, db DB, q string, args ...any) ([]RatingRow, []string, error) {
	rows, err := db.Query(ctx, q, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var out []RatingRow
	var subjects []string
	for rows.Next() {
		var r RatingRow
		var subject string
		if err := rows.Scan(&r.Ruleset, &r.Players, &r.PlayerID, &r.Bot, &r.Name, &r.Mu, &r.Sigma,
			&r.Ordinal, &r.Games, &r.LastGameAt, &subject); err != nil {
			return nil, nil, err
		}
		if r.PlayerID != "" && r.Name == "" {
			r.Name = FormerPlayer
		}
		r.Provisional = rating.Provisional(rating.Rating{Mu: r.Mu, Sigma: r.Sigma}, r.Games)
		out = append(out, r)
		subjects = append(subjects, subject)
	}
	return out, subjects, rows.Err()
}

// A leaderboard cursor is the last row's ordinal (its exact bits) and
// subject, base64url.
func encodeRatingCursor(ordinal float64, subject string) string {
	raw := strconv.FormatUint(math.Float64bits(ordinal), 16) + " " + subject
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

func decodeRatingCursor(cursor string) (float64, string, error) {
	bad := fmt.Errorf("%w: malformed cursor", ErrInvalid)
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return 0, "", bad
	}
	bits, subject, ok := strings.Cut(string(raw), " ")
	if !ok || subject == "" || len(subject) > maxText {
		return 0, "", bad
	}
	u, err := strconv.ParseUint(bits, 16, 64)
	if err != nil {
		return 0, "", bad
	}
	ord := math.Float64frombits(u)
	if math.IsNaN(ord) || math.IsInf(ord, 0) {
		return 0, "", bad
	}
	return ord, subject, nil
}
