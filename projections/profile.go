package projections

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/azuld/azuld/engine/bots"
)

// A profile (docs/ratings.md, "Profiles") is what anyone may read about a
// player or a bot kind: the name, since when a player is a member, their
// ratings, their results per rule set and number of players, and (unless
// the player hides them) their latest finished and running games and
// their record against the viewer. Never an address. Every list is
// bounded, and a profile costs a fixed number of queries whatever the
// number of games.

// Bounds of a profile's lists.
const (
	// RecentGames is how many finished games a profile lists.
	RecentGames = 10
	// RunningGames is how many running games a profile lists (the most
	// recently moved first).
	RunningGames = 20
	// HistoryPoints is how many rated games of each rule set and number of
	// players the chart shows (the latest).
	HistoryPoints = 300
)

// ErrNoProfile: no player has that id (never had, or was erased), or the
// bot kind is unknown.
var ErrNoProfile = errors.New("no such player")

// ProfileRequest selects a profile and says who reads it.
type ProfileRequest struct {
	// PlayerID (a UUID) or Bot (a bot kind) is the profile's subject.
	PlayerID string
	Bot      string
	// Viewer is the signed-in reader's player id, "" for a visitor.
	Viewer string
	// Rulesets are the rule sets a bot's ratings are looked up in.
	Rulesets []string
	// History also reads the rating history (the chart of the web page).
	History bool
}

// Profile is a player's or a bot kind's public profile.
type Profile struct {
	PlayerID string
	Bot      string
	// Name is the player's name, or the bot's kind (people read it in
	// their language).
	Name string
	// MemberSince is when the player registered (zero for a bot).
	MemberSince time.Time
	Ratings     []RatingRow
	Results     []ResultSummary
	// GamesHidden: the player hides their game lists from others and the
	// viewer is not them; Recent, Running and HeadToHead are then empty.
	GamesHidden bool
	// OwnProfile: the viewer is the profile's player.
	OwnProfile bool
	// HidesGames is the player's choice to hide their game lists.
	HidesGames bool
	// Recent are the latest finished games (at most RecentGames), Running
	// the running ones (at most RunningGames); a bot's profile has none.
	Recent, Running []GameRow
	// MoreRecent and MoreRunning, when the lists go on, are the cursors
	// of their next pages in LoadPlayerGames ("" otherwise).
	MoreRecent, MoreRunning string
	// HeadToHead is the player's record against the viewer (nil for a
	// visitor, on one's own profile and on a bot's).
	HeadToHead *HeadToHead
	// History is each rated game's rating after it, oldest first per rule
	// set and number of players (with ProfileRequest.History).
	History []RatingPoint
}

// ResultSummary is a player's results in one rule set and number of
// players: every finished game they sat in (a bot's: every rated game).
type ResultSummary struct {
	Ruleset string
	Players int
	Games   int
	// Wins are the games placed first, a shared first place included.
	Wins int
	// Placings counts the games by place: Placings[0] first places,
	// Placings[1] second places, and so on, one entry per seat.
	Placings  []int
	MeanRank  float64
	MeanScore float64
	BestScore int
}

// HeadToHead is how a profile's player did against the viewer in the
// finished games both sat in.
type HeadToHead struct {
	Games int
	// Ahead: the profile's player placed ahead of the viewer; Behind: the
	// viewer placed ahead; Tied: the same place.
	Ahead, Behind, Tied int
}

// RatingPoint is a rating after one rated game.
type RatingPoint struct {
	Ruleset    string
	Players    int
	GameID     string
	FinishedAt time.Time
	// Ordinal is the rating after the game, mu - 3 sigma.
	Ordinal float64
}

// LoadProfile reads a profile. An unknown or erased player, and an
// unknown bot kind, is ErrNoProfile; an id that is no UUID is ErrInvalid.
func LoadProfile(ctx context.Context, db DB, req ProfileRequest) (Profile, error) {
	if req.Bot != "" {
		return loadBotProfile(ctx, db, req)
	}
	id, err := canonicalUUID(req.PlayerID)
	if err != nil {
		return Profile{}, fmt.Errorf("profile: %w: %.40q is not a player id", ErrInvalid, req.PlayerID)
	}
	p := Profile{PlayerID: id}
	err = db.QueryRow(ctx, `SELECT name, created_at, hide_games FROM players WHERE id = $1`, id).Scan(&p.Name, &p.MemberSince, &p.HidesGames)
	if errors.Is(err, pgx.ErrNoRows) {
		return Profile{}, fmt.Errorf("profile %s: %w", id, ErrNoProfile)
	}
	if err != nil {
		return Profile{}, fmt.Errorf("profile %s: %w", id, err)
	}
	p.OwnProfile = req.Viewer == id
	p.GamesHidden = p.HidesGames && !p.OwnProfile
	if p.Ratings, err = PlayerRatings(ctx, db, id); err != nil {
		return Profile{}, err
	}
	// One seat per game: a player who held two seats of a game (against
	// themselves) counts it once, at their better place.
	if p.Results, err = resultSummaries(ctx, db, `SELECT DISTINCT ON (r.game_id) r.game_id, r.rank, r.score
		FROM results r WHERE r.player_id = $1 ORDER BY r.game_id, r.rank, r.score DESC`, id); err != nil {
		return Profile{}, fmt.Errorf("profile %s: %w", id, err)
	}
	if !p.GamesHidden {
		if p.Recent, p.Running, err = profileGames(ctx, db, id, req.Viewer); err != nil {
			return Profile{}, err
		}
		p.Recent, p.MoreRecent = cutPage(p.Recent, RecentGames)
		p.Running, p.MoreRunning = cutPage(p.Running, RunningGames)
		if req.Viewer != "" && !p.OwnProfile {
			if p.HeadToHead, err = headToHead(ctx, db, id, req.Viewer); err != nil {
				return Profile{}, err
			}
		}
	}
	if req.History {
		if p.History, err = ratingHistory(ctx, db, `r.player_id = $1`, id); err != nil {
			return Profile{}, fmt.Errorf("profile %s: %w", id, err)
		}
	}
	return p, nil
}

// loadBotProfile reads a bot kind's profile: its ratings and its results
// in rated games (bots sit in very many games, and their seats are found
// through the rating history's index); no member since, no game lists.
func loadBotProfile(ctx context.Context, db DB, req ProfileRequest) (Profile, error) {
	if !bots.Known(req.Bot) {
		return Profile{}, fmt.Errorf("profile of bot %.40q: %w", req.Bot, ErrNoProfile)
	}
	subject := BotSubject + req.Bot
	p := Profile{Bot: req.Bot, Name: req.Bot}
	// The subject is not the first column of any index of ratings: name
	// each rule set and number of players, so that the primary key
	// answers.
	var err error
	p.Ratings, _, err = queryRatings(ctx, db, `SELECT `+ratingColumns+` FROM ratings r
		LEFT JOIN players p ON false
		WHERE r.ruleset = ANY ($1) AND r.players = ANY ($2) AND r.subject = $3
		ORDER BY r.last_game_at DESC, r.ruleset, r.players`, req.Rulesets, []int32{2, 3, 4}, subject)
	if err != nil {
		return Profile{}, fmt.Errorf("profile of bot %s: %w", req.Bot, err)
	}
	if p.Results, err = resultSummaries(ctx, db, `SELECT h.game_id, h.rank, r.score
		FROM rating_history h JOIN results r ON r.game_id = h.game_id AND r.seat = h.seat
		WHERE h.subject = $1`, subject); err != nil {
		return Profile{}, fmt.Errorf("profile of bot %s: %w", req.Bot, err)
	}
	if req.History {
		if p.History, err = ratingHistory(ctx, db, `r.ruleset = ANY ($2) AND r.players = ANY ($3) AND r.subject = $1`,
			subject, req.Rulesets, []int32{2, 3, 4}); err != nil {
			return Profile{}, fmt.Errorf("profile of bot %s: %w", req.Bot, err)
		}
	}
	return p, nil
}

// resultSummaries sums up the seats a query lists (game_id, rank, score;
// one row per game) by rule set and number of seats, the most played
// first.
func resultSummaries(ctx context.Context, db DB, seats string, args ...any) ([]ResultSummary, error) {
	rows, err := db.Query(ctx, `WITH mine AS (`+seats+`)
		SELECT g.ruleset, jsonb_array_length(g.seats), count(*), count(*) FILTER (WHERE m.rank = 1),
			array_agg(m.rank), avg(m.rank)::float8, avg(m.score)::float8, max(m.score)
		FROM mine m JOIN games g ON g.id = m.game_id
		GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2`, args...)
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	defer rows.Close()
	var out []ResultSummary
	for rows.Next() {
		var r ResultSummary
		var ranks []int32
		if err := rows.Scan(&r.Ruleset, &r.Players, &r.Games, &r.Wins, &ranks, &r.MeanRank, &r.MeanScore, &r.BestScore); err != nil {
			return nil, fmt.Errorf("results: %w", err)
		}
		r.Placings = make([]int, max(r.Players, 1))
		for _, rank := range ranks {
			if rank >= 1 && int(rank) <= len(r.Placings) {
				r.Placings[rank-1]++
			}
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// cutPage keeps the first n games; when there were more, next is the
// cursor after them (LoadPlayerGames's order is the profile's).
func cutPage(games []GameRow, n int) (page []GameRow, next string) {
	if len(games) <= n {
		return games, ""
	}
	games = games[:n]
	return games, encodeCursor(games[n-1].LastMoveAt, games[n-1].ID)
}

// profileGames reads a player's game lists for a profile: the latest
// finished games (at most RecentGames) and the running ones (at most
// RunningGames), the latest move first, each with one game more when
// there is one (to know whether the list goes on).
//
// visibility: every game list a profile shows is read here and nowhere
// else, and leaves out the private games the viewer (the reader, "" for
// a visitor) holds no seat in.
func profileGames(ctx context.Context, db DB, playerID, viewer string) (recent, running []GameRow, err error) {
	const visible = ` AND (g.visibility = 'public' OR EXISTS (SELECT 1 FROM game_seats v
			WHERE v.game_id = g.id AND v.player_id = nullif($3, '')::uuid))`
	// The latest finished games through results' index (player,
	// finished_at): four rows per game at most (a player holding every
	// seat), so four times the page finds the page's games.
	recent, _, err = queryGames(ctx, db, `SELECT `+gameColumns+` FROM games g WHERE g.id IN (
			SELECT r.game_id FROM results r WHERE r.player_id = $1
			ORDER BY r.finished_at DESC LIMIT $2 * 4)`+visible+`
		ORDER BY g.last_move_at DESC, g.id DESC LIMIT $2`, false, playerID, RecentGames+1, viewer)
	if err != nil {
		return nil, nil, fmt.Errorf("profile %s: finished games: %w", playerID, err)
	}
	// Running games through game_seats' partial index of seats in games
	// not over.
	running, _, err = queryGames(ctx, db, `SELECT `+gameColumns+` FROM games g WHERE g.id IN (
			SELECT s.game_id FROM game_seats s WHERE s.player_id = $1 AND NOT s.finished)
			AND g.status = 'active'`+visible+`
		ORDER BY g.last_move_at DESC, g.id DESC LIMIT $2`, false, playerID, RunningGames+1, viewer)
	if err != nil {
		return nil, nil, fmt.Errorf("profile %s: running games: %w", playerID, err)
	}
	return recent, running, nil
}

// PlayerGamesRequest asks for a page of a player's games, as their
// profile lists them.
type PlayerGamesRequest struct {
	PlayerID string
	// Viewer is the signed-in reader's player id, "" for a visitor.
	Viewer string
	// Status is "finished" or "active" (running).
	Status string
	// Cursor is the page's (a profile's More* or a page's Next); "" for
	// the first page. Limit is the page size (0: DefaultLimit).
	Cursor string
	Limit  int
}

// PlayerGames is a page of a player's games.
type PlayerGames struct {
	Games []GameRow
	// Next is the next page's cursor ("" on the last page).
	Next string
	// Hidden: the player hides their games from the viewer; Games is
	// then empty.
	Hidden bool
}

// LoadPlayerGames pages through a player's finished or running games,
// the latest move first: the lists of their profile, whole. It shows
// what the profile does: nothing when the player hides their games from
// the viewer, and no private game the viewer holds no seat in. The
// paging is the games list's (ListGames), whose cursors it takes. An
// unknown or erased player is ErrNoProfile; a bad status, limit or
// cursor ErrInvalid.
func LoadPlayerGames(ctx context.Context, db DB, req PlayerGamesRequest) (PlayerGames, error) {
	id, err := canonicalUUID(req.PlayerID)
	if err != nil {
		return PlayerGames{}, fmt.Errorf("games of player: %w: %.40q is not a player id", ErrInvalid, req.PlayerID)
	}
	if req.Status != "finished" && req.Status != "active" {
		return PlayerGames{}, fmt.Errorf("games of player %s: %w: status %.40q", id, ErrInvalid, req.Status)
	}
	var hides bool
	err = db.QueryRow(ctx, `SELECT hide_games FROM players WHERE id = $1`, id).Scan(&hides)
	if errors.Is(err, pgx.ErrNoRows) {
		return PlayerGames{}, fmt.Errorf("games of player %s: %w", id, ErrNoProfile)
	}
	if err != nil {
		return PlayerGames{}, fmt.Errorf("games of player %s: %w", id, err)
	}
	if hides && req.Viewer != id {
		return PlayerGames{Hidden: true}, nil
	}
	// A visitor (Viewer "") sees the public games only.
	games, next, err := ListGames(ctx, db, Filter{Player: id, Status: req.Status, Viewer: req.Viewer, Cursor: req.Cursor, Limit: req.Limit})
	if err != nil {
		return PlayerGames{}, fmt.Errorf("games of player %s: %w", id, err)
	}
	return PlayerGames{Games: games, Next: next}, nil
}

// headToHead counts the finished games two players both sat in and who
// placed ahead (each at their better seat, should they have held two).
func headToHead(ctx context.Context, db DB, player, viewer string) (*HeadToHead, error) {
	var h HeadToHead
	err := db.QueryRow(ctx, `
		WITH a AS (SELECT game_id, min(rank) AS rank FROM results WHERE player_id = $1 GROUP BY game_id),
		     b AS (SELECT game_id, min(rank) AS rank FROM results WHERE player_id = $2 GROUP BY game_id)
		SELECT count(*), count(*) FILTER (WHERE a.rank < b.rank), count(*) FILTER (WHERE a.rank > b.rank),
			count(*) FILTER (WHERE a.rank = b.rank)
		FROM a JOIN b USING (game_id)`, player, viewer).Scan(&h.Games, &h.Ahead, &h.Behind, &h.Tied)
	if err != nil {
		return nil, fmt.Errorf("profile %s: head-to-head: %w", player, err)
	}
	return &h, nil
}

// ratingHistory reads the latest HistoryPoints rated games of each of the
// subject's ratings (where selects the ratings rows r), oldest first.
func ratingHistory(ctx context.Context, db DB, where string, args ...any) ([]RatingPoint, error) {
	rows, err := db.Query(ctx, `SELECT r.ruleset, r.players, h.game_id::text, h.finished_at, h.ordinal
		FROM ratings r CROSS JOIN LATERAL (
			SELECT h.game_id, h.finished_at, h.mu_after - 3 * h.sigma_after AS ordinal FROM rating_history h
			WHERE h.subject = r.subject AND h.ruleset = r.ruleset AND h.players = r.players
			ORDER BY h.finished_at DESC LIMIT `+fmt.Sprint(HistoryPoints)+`) h
		WHERE `+where+`
		ORDER BY r.ruleset, r.players, h.finished_at, h.game_id`, args...)
	if err != nil {
		return nil, fmt.Errorf("rating history: %w", err)
	}
	defer rows.Close()
	var out []RatingPoint
	for rows.Next() {
		var p RatingPoint
		if err := rows.Scan(&p.Ruleset, &p.Players, &p.GameID, &p.FinishedAt, &p.Ordinal); err != nil {
			return nil, fmt.Errorf("rating history: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}
