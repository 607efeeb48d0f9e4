package api

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/api/web"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/play"
	"github.com/azuld/azuld/projections"
)

// playerProfile is the body of GET /v1/players/{id}: public data only,
// never an address. The game lists and the head-to-head are left out
// when the player hides them (games_hidden), and on a bot's profile.
type playerProfile struct {
	PlayerID string `json:"player_id,omitempty"`
	Bot      string `json:"bot,omitempty"`
	Name     string `json:"name"`
	// MemberSince is the day the player registered, YYYY-MM-DD (UTC);
	// none for a bot.
	MemberSince string          `json:"member_since,omitempty"`
	Ratings     []ratingEntry   `json:"ratings"`
	Results     []resultSummary `json:"results"`
	GamesHidden bool            `json:"games_hidden"`
	// RecentGames are the latest finished games, RunningGames the running
	// ones (omitted when hidden and for a bot).
	RecentGames  []profileGame `json:"recent_games,omitempty"`
	RunningGames []profileGame `json:"running_games,omitempty"`
	// RecentGamesCursor and RunningGamesCursor, when the lists go on,
	// are the cursors of GET /v1/players/{id}/games that continue them.
	RecentGamesCursor  string      `json:"recent_games_cursor,omitempty"`
	RunningGamesCursor string      `json:"running_games_cursor,omitempty"`
	HeadToHead         *headToHead `json:"head_to_head,omitempty"`
}

// resultSummary is a player's results in one rule set and number of
// players.
type resultSummary struct {
	Ruleset string `json:"ruleset"`
	Players int    `json:"players"`
	Games   int    `json:"games"`
	Wins    int    `json:"wins"`
	// Placings are the games by place: first places, second places, …
	Placings  []int   `json:"placings"`
	MeanRank  float64 `json:"mean_rank"`
	MeanScore float64 `json:"mean_score"`
	BestScore int     `json:"best_score"`
}

// profileSeat is another seat of a profile's game.
type profileSeat struct {
	Seat     int    `json:"seat"`
	PlayerID string `json:"player_id,omitempty"`
	Bot      string `json:"bot,omitempty"`
	Name     string `json:"name"`
}

// profileGame is one game of a profile's lists, from the profile
// player's side.
type profileGame struct {
	ID         string        `json:"id"`
	Ruleset    string        `json:"ruleset"`
	Status     string        `json:"status"`
	Seats      []int         `json:"seats"`
	Opponents  []profileSeat `json:"opponents"`
	LastMoveAt time.Time     `json:"last_move_at"`
	// A finished game: the player's place and score (their better seat),
	// and the winners.
	Rank    int           `json:"rank,omitempty"`
	Score   *int          `json:"score,omitempty"`
	Winners []profileSeat `json:"winners,omitempty"`
	// A running game: the seats to act, and whether the player is one.
	ToAct     []profileSeat `json:"to_act,omitempty"`
	TheirTurn bool          `json:"their_turn,omitempty"`
}

// headToHead is the profile's player against the viewer.
type headToHead struct {
	Games int `json:"games"`
	// Ahead: the profile's player placed ahead of the viewer.
	Ahead  int `json:"ahead"`
	Behind int `json:"behind"`
	Tied   int `json:"tied"`
}

// limitReads counts an anonymous read of the leaderboard or a profile
// against the client's address.
func (s *Server) limitReads(c echo.Context) error {
	return s.limits.Allow(c.Request().Context(), limits.ProfileReads, clientKey(c))
}

// profileSubject reads the {id} of a profile route: "me" (the caller),
// a player's id, or a bot's subject ("bot:greedy"). Anything else is not
// found.
func (s *Server) profileSubject(c echo.Context) (playerID, bot string, err error) {
	id := c.Param("id")
	switch {
	case id == "me":
		p, err := s.authenticate(c)
		return p.ID, "", err
	case strings.HasPrefix(id, projections.BotSubject) && len(id) > len(projections.BotSubject):
		return "", strings.TrimPrefix(id, projections.BotSubject), nil
	}
	if u, err := uuid.Parse(id); err != nil || len(id) != 36 || u.String() != strings.ToLower(id) {
		return "", "", newProblem(http.StatusNotFound, ProblemNotFound, "not_found")
	}
	return strings.ToLower(id), "", nil
}

// getPlayer serves a profile: a player's or a bot kind's.
func (s *Server) getPlayer(c echo.Context) error {
	if err := s.limitReads(c); err != nil {
		return err
	}
	if s.pool == nil {
		return unavailable("no_database")
	}
	playerID, bot, err := s.profileSubject(c)
	if err != nil {
		return err
	}
	viewer, err := s.optionalPlayer(c)
	if err != nil {
		return err
	}
	req := projections.ProfileRequest{PlayerID: playerID, Bot: bot, Rulesets: s.rulesetIDs()}
	if viewer != nil {
		req.Viewer = viewer.ID
	}
	prof, err := projections.LoadProfile(c.Request().Context(), s.pool, req)
	if errors.Is(err, projections.ErrNoProfile) {
		return newProblem(http.StatusNotFound, ProblemNotFound, "not_found")
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, newPlayerProfile(s.reader(c), prof))
}

// rulesetIDs are the rule sets this server plays, sorted.
func (s *Server) rulesetIDs() []string {
	var ids []string
	for id := range s.svc.Rules() {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

func newPlayerProfile(l *i18n.Localizer, p projections.Profile) playerProfile {
	out := playerProfile{PlayerID: p.PlayerID, Bot: p.Bot, Name: p.Name, GamesHidden: p.GamesHidden,
		Ratings: make([]ratingEntry, 0, len(p.Ratings)), Results: make([]resultSummary, 0, len(p.Results))}
	if p.Bot != "" {
		out.Name = web.BotName(l, p.Bot)
	} else {
		out.MemberSince = p.MemberSince.UTC().Format(time.DateOnly)
	}
	for _, r := range p.Ratings {
		e := newRatingEntry(r)
		e.PlayerID, e.Bot, e.Name, e.Ruleset, e.Players = "", "", "", r.Ruleset, r.Players
		out.Ratings = append(out.Ratings, e)
	}
	for _, r := range p.Results {
		out.Results = append(out.Results, resultSummary{Ruleset: r.Ruleset, Players: r.Players, Games: r.Games, Wins: r.Wins,
			Placings: r.Placings, MeanRank: r.MeanRank, MeanScore: r.MeanScore, BestScore: r.BestScore})
	}
	for _, g := range p.Recent {
		out.RecentGames = append(out.RecentGames, newProfileGame(p.PlayerID, g))
	}
	for _, g := range p.Running {
		out.RunningGames = append(out.RunningGames, newProfileGame(p.PlayerID, g))
	}
	out.RecentGamesCursor, out.RunningGamesCursor = p.MoreRecent, p.MoreRunning
	if h := p.HeadToHead; h != nil {
		out.HeadToHead = &headToHead{Games: h.Games, Ahead: h.Ahead, Behind: h.Behind, Tied: h.Tied}
	}
	return out
}

// newProfileGame is a game as the profile of player shows it.
func newProfileGame(player string, g projections.GameRow) profileGame {
	out := profileGame{ID: g.ID, Ruleset: g.Ruleset, Status: g.Status, LastMoveAt: g.LastMoveAt,
		Seats: []int{}, Opponents: []profileSeat{}}
	seat := func(i int) profileSeat {
		s := g.Seats[i]
		return profileSeat{Seat: s.Seat, PlayerID: s.PlayerID, Bot: s.Bot, Name: s.Name}
	}
	for i, s := range g.Seats {
		if s.PlayerID == player {
			out.Seats = append(out.Seats, s.Seat)
		} else {
			out.Opponents = append(out.Opponents, seat(i))
		}
	}
	if g.Final != nil {
		for _, w := range g.Final.Winners {
			if w >= 0 && w < len(g.Seats) {
				out.Winners = append(out.Winners, seat(w))
			}
		}
		for _, fp := range g.Final.Players {
			if slices.Contains(out.Seats, fp.Seat) && (out.Rank == 0 || fp.Rank < out.Rank) {
				score := fp.Score
				out.Rank, out.Score = fp.Rank, &score
			}
		}
		return out
	}
	for _, i := range g.ToAct {
		if i >= 0 && i < len(g.Seats) {
			out.ToAct = append(out.ToAct, seat(i))
			out.TheirTurn = out.TheirTurn || g.Seats[i].PlayerID == player
		}
	}
	return out
}

// Paging of a player's games (GET /v1/players/{id}/games).
const (
	defaultPlayerGamesLimit = 20
	maxPlayerGamesLimit     = 100
)

// playerGames is a page of a player's games, from their side.
type playerGames struct {
	PlayerID string `json:"player_id"`
	// Status is "finished" or "running".
	Status string        `json:"status"`
	Games  []profileGame `json:"games"`
	// GamesHidden: the player hides their games from the caller (Games
	// is then empty), as on their profile.
	GamesHidden bool `json:"games_hidden"`
	// NextCursor (and Next, the URL with it) fetch the next page.
	NextCursor string `json:"next_cursor,omitempty"`
	Next       string `json:"next,omitempty"`
}

// getPlayerGames serves a page of a player's finished or running games:
// their profile's lists, whole, with the games list's keyset paging.
// Read like the profile: counted against the profile_reads limit,
// nothing when the player hides their games, and only the private games
// the caller sits in.
func (s *Server) getPlayerGames(c echo.Context) error {
	if err := s.limitReads(c); err != nil {
		return err
	}
	if s.pool == nil {
		return unavailable("no_database")
	}
	playerID, bot, err := s.profileSubject(c)
	if err != nil {
		return err
	}
	if bot != "" {
		// A bot's profile has no game lists: it sits in very many games.
		return newProblem(http.StatusNotFound, ProblemNotFound, "not_found")
	}
	out := playerGames{PlayerID: playerID, Status: c.QueryParam("status")}
	req := projections.PlayerGamesRequest{PlayerID: playerID, Cursor: c.QueryParam("cursor")}
	switch out.Status {
	case "", "finished":
		out.Status, req.Status = "finished", play.StatusFinished
	case "running":
		req.Status = play.StatusActive
	default:
		return newProblem(http.StatusBadRequest, ProblemBadRequest, "player_games_status")
	}
	if len(req.Cursor) > maxCursor {
		return newProblem(http.StatusBadRequest, ProblemBadRequest, "cursor")
	}
	limit, err := queryInt(c, "limit", defaultPlayerGamesLimit, 1, maxPlayerGamesLimit)
	if err != nil {
		return err
	}
	req.Limit = int(limit)
	viewer, err := s.optionalPlayer(c)
	if err != nil {
		return err
	}
	if viewer != nil {
		req.Viewer = viewer.ID
	}
	page, err := projections.LoadPlayerGames(c.Request().Context(), s.pool, req)
	switch {
	case errors.Is(err, projections.ErrNoProfile):
		return newProblem(http.StatusNotFound, ProblemNotFound, "not_found")
	case errors.Is(err, projections.ErrInvalid):
		return newProblem(http.StatusBadRequest, ProblemBadRequest, "cursor")
	case err != nil:
		return err
	}
	out.GamesHidden, out.NextCursor = page.Hidden, page.Next
	out.Games = make([]profileGame, 0, len(page.Games))
	for _, g := range page.Games {
		out.Games = append(out.Games, newProfileGame(playerID, g))
	}
	if page.Next != "" {
		q := url.Values{"status": {out.Status}, "cursor": {page.Next}, "limit": {strconv.FormatInt(limit, 10)}}
		out.Next = "/v1/players/" + playerID + "/games?" + encodeQuery(q)
	}
	return c.JSON(http.StatusOK, out)
}
