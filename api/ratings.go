package api

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/projections"
)

// Rated games have 2 to 4 seats.
const (
	minRatedPlayers = 2
	maxRatedPlayers = 4
)

// ratingEntry is one rating as the API shows it: public data only (the
// player's name, never an address).
type ratingEntry struct {
	PlayerID string `json:"player_id,omitempty"`
	Bot      string `json:"bot,omitempty"`
	Name     string `json:"name,omitempty"`
	Ruleset  string `json:"ruleset,omitempty"`
	Players  int    `json:"players,omitempty"`
	// Rating is the ordinal, mu - 3 sigma, the number ranked by.
	Rating      float64   `json:"rating"`
	Mu          float64   `json:"mu"`
	Sigma       float64   `json:"sigma"`
	Games       int       `json:"games"`
	Provisional bool      `json:"provisional"`
	LastGameAt  time.Time `json:"last_game_at"`
}

func newRatingEntry(r projections.RatingRow) ratingEntry {
	return ratingEntry{PlayerID: r.PlayerID, Bot: r.Bot, Name: r.Name, Rating: r.Ordinal, Mu: r.Mu, Sigma: r.Sigma,
		Games: r.Games, Provisional: r.Provisional, LastGameAt: r.LastGameAt}
}

// leaderboard is the body of GET /v1/ratings.
type leaderboard struct {
	Ruleset    string        `json:"ruleset"`
	Players    int           `json:"players"`
	Ratings    []ratingEntry `json:"ratings"`
	NextCursor string        `json:"next_cursor,omitempty"`
	Next       string        `json:"next,omitempty"`
}

// listRatings serves a leaderboard: the active players and bots of a rule
// set and number of players, best first; the provisional ones only with
// provisional=1.
func (s *Server) listRatings(c echo.Context) error {
	if err := s.limitReads(c); err != nil {
		return err
	}
	if s.pool == nil {
		return unavailable("no_database")
	}
	rs := c.QueryParam("ruleset")
	if _, err := s.svc.Rules().Get(rs); err != nil {
		return s.unknownRuleset(http.StatusBadRequest, ProblemBadRequest, rs)
	}
	players, err := queryInt(c, "players", minRatedPlayers, minRatedPlayers, maxRatedPlayers)
	if err != nil {
		return err
	}
	provisional, err := queryInt(c, "provisional", 0, 0, 1)
	if err != nil {
		return err
	}
	limit, err := queryInt(c, "limit", defaultGamesLimit, 1, maxGamesLimit)
	if err != nil {
		return err
	}
	cursor := c.QueryParam("cursor")
	if len(cursor) > maxCursor {
		return newProblem(http.StatusBadRequest, ProblemBadRequest, "cursor")
	}
	// Every reader sees the same page: it is read at most once per
	// leadersTTL, however many ask.
	key := fmt.Sprintf("%s\x00%d\x00%d\x00%d\x00%s", rs, players, provisional, limit, cursor)
	now := time.Now()
	page, ok := s.leaders.Get(key, now)
	if !ok {
		rows, next, err := projections.ListRatings(c.Request().Context(), s.pool, projections.Leaderboard{
			Ruleset: rs, Players: int(players), Provisional: provisional == 1, Limit: int(limit), Cursor: cursor})
		if err != nil {
			return err
		}
		page = leaderPage{rows: rows, next: next}
		s.leaders.Put(key, now, page)
	}
	rows, next := page.rows, page.next
	out := leaderboard{Ruleset: rs, Players: int(players), Ratings: make([]ratingEntry, 0, len(rows)), NextCursor: next}
	for _, r := range rows {
		out.Ratings = append(out.Ratings, newRatingEntry(r))
	}
	if next != "" {
		q := c.QueryParams()
		q.Set("cursor", next)
		q.Set("limit", strconv.FormatInt(limit, 10))
		out.Next = "/v1/ratings?" + encodeQuery(q)
	}
	return c.JSON(http.StatusOK, out)
}

// leadersTTL is how long a leaderboard page is served again without a
// query: a game's new ratings show there a second later at most.
const leadersTTL = time.Second

// leadersEntries bounds the pages kept (each cursor is a page; a reader
// walking many is held by the profile_reads limit).
const leadersEntries = 256

// leaderPage is a page of a leaderboard as it was read.
type leaderPage struct {
	rows []projections.RatingRow
	next string
}

// playerRatings is the body of GET /v1/players/{id}/ratings.
type playerRatings struct {
	PlayerID string        `json:"player_id"`
	Name     string        `json:"name"`
	Ratings  []ratingEntry `json:"ratings"`
}

// getPlayerRatings serves a player's ratings in every rule set and
// number of players (provisional ones too, marked).
func (s *Server) getPlayerRatings(c echo.Context) error {
	if err := s.limitReads(c); err != nil {
		return err
	}
	if s.pool == nil {
		return unavailable("no_database")
	}
	id := c.Param("id")
	if u, err := uuid.Parse(id); err != nil || len(id) != 36 || u.String() != strings.ToLower(id) {
		return newProblem(http.StatusNotFound, ProblemNotFound, "not_found")
	}
	id = strings.ToLower(id)
	ctx := c.Request().Context()
	out := playerRatings{PlayerID: id, Ratings: []ratingEntry{}}
	if err := s.pool.QueryRow(ctx, `SELECT name FROM players WHERE id = $1`, id).Scan(&out.Name); errors.Is(err, pgx.ErrNoRows) {
		return newProblem(http.StatusNotFound, ProblemNotFound, "not_found")
	} else if err != nil {
		return fmt.Errorf("read player %s: %w", id, err)
	}
	rows, err := projections.PlayerRatings(ctx, s.pool, id)
	if err != nil {
		return err
	}
	for _, r := range rows {
		e := newRatingEntry(r)
		e.PlayerID, e.Name, e.Ruleset, e.Players = "", "", r.Ruleset, r.Players
		out.Ratings = append(out.Ratings, e)
	}
	return c.JSON(http.StatusOK, out)
}
