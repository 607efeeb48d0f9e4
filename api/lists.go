package api

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/play"
	"github.com/azuld/azuld/projections"
)

// Game list paging.
const (
	defaultGamesLimit = 50
	maxGamesLimit     = 200
	maxCursor         = 200
)

// gameSummary is one game of the games list (from the read model, not
// folded: listing stays cheap).
type gameSummary struct {
	ID         string         `json:"id"`
	Ruleset    string         `json:"ruleset"`
	Options    engine.Options `json:"options"`
	Status     string         `json:"status"`
	Version    int64          `json:"version"`
	ToAct      []int          `json:"to_act"`
	Seats      []play.Seat    `json:"seats"`
	CreatedBy  string         `json:"created_by"`
	CreatedAt  time.Time      `json:"created_at"`
	LastMoveAt time.Time      `json:"last_move_at"`
	Deadline   *time.Time     `json:"deadline,omitempty"`
	Final      *engine.Final  `json:"final,omitempty"`
	Rated      bool           `json:"rated"`
	Visibility string         `json:"visibility"`
}

func newGameSummary(r projections.GameRow) gameSummary {
	g := gameSummary{
		ID: r.ID, Ruleset: r.Ruleset, Options: r.Options, Status: r.Status, Version: r.Version,
		ToAct: r.ToAct, Seats: make([]play.Seat, 0, len(r.Seats)), CreatedBy: r.CreatedBy,
		CreatedAt: r.CreatedAt, LastMoveAt: r.LastMoveAt, Deadline: r.Deadline, Final: r.Final,
		Rated: !r.Unrated, Visibility: play.VisibilityPublic,
	}
	if r.Private {
		g.Visibility = play.VisibilityPrivate
	}
	if g.ToAct == nil {
		g.ToAct = []int{}
	}
	for _, s := range r.Seats {
		g.Seats = append(g.Seats, play.Seat{Seat: s.Seat, PlayerID: s.PlayerID, Name: s.Name, Bot: s.Bot, Reserved: s.Reserved,
			Imported: projections.ImportedPlayer(s.PlayerID)})
	}
	return g
}

// gameList is a page of the games list.
type gameList struct {
	Games []gameSummary `json:"games"`
	// NextCursor (and Next, the URL with it) fetch the next page.
	NextCursor string `json:"next_cursor,omitempty"`
	Next       string `json:"next,omitempty"`
}

func (s *Server) listGames(c echo.Context) error {
	f := projections.Filter{}
	// Private games are listed to their seated players only.
	viewer, err := s.optionalPlayer(c)
	if err != nil {
		return err
	}
	if viewer != nil {
		f.Viewer = viewer.ID
	}
	switch watch := c.QueryParam("watch"); watch {
	case "":
	case "1", "true":
		f.Watch = true
		// Anyone may ask, with any cursor (a page the cache has not
		// seen): counted like the leaderboard it ranks by.
		if err := s.limitReads(c); err != nil {
			return err
		}
		if c.QueryParam("status") != "" || c.QueryParam("player") != "" {
			return newProblem(http.StatusBadRequest, ProblemBadRequest, "watch_filters")
		}
	default:
		return newProblem(http.StatusBadRequest, ProblemBadRequest, "watch")
	}
	switch status := c.QueryParam("status"); status {
	case "", play.StatusOpen, play.StatusActive, play.StatusFinished:
		f.Status = status
	default:
		return newProblem(http.StatusBadRequest, ProblemBadRequest, "list_status")
	}
	if rs := c.QueryParam("ruleset"); rs != "" {
		if _, err := s.svc.Rules().Get(rs); err != nil {
			return s.unknownRuleset(http.StatusBadRequest, ProblemBadRequest, rs)
		}
		f.Ruleset = rs
	}
	switch player := c.QueryParam("player"); {
	case player == "me":
		p, err := s.authenticate(c)
		if err != nil {
			return err
		}
		f.Player = p.ID
	case player != "":
		u, err := uuid.Parse(player)
		if err != nil || len(player) != 36 {
			return newProblem(http.StatusBadRequest, ProblemBadRequest, "list_player")
		}
		f.Player = u.String()
	}
	switch invited := c.QueryParam("invited"); invited {
	case "":
	case "me":
		// The caller's open invitations: rematches with a seat kept for
		// them.
		p, err := s.authenticate(c)
		if err != nil {
			return err
		}
		f.Invited = p.ID
	default:
		return newProblem(http.StatusBadRequest, ProblemBadRequest, "list_invited")
	}
	limit, err := queryInt(c, "limit", defaultGamesLimit, 1, maxGamesLimit)
	if err != nil {
		return err
	}
	f.Limit = int(limit)
	f.Cursor = c.QueryParam("cursor")
	if len(f.Cursor) > maxCursor {
		return newProblem(http.StatusBadRequest, ProblemBadRequest, "cursor")
	}
	rows, next, err := s.svc.ListGames(c.Request().Context(), f)
	if err != nil {
		return err
	}
	out := gameList{Games: make([]gameSummary, 0, len(rows)), NextCursor: next}
	for _, r := range rows {
		out.Games = append(out.Games, newGameSummary(r))
	}
	if next != "" {
		q := c.QueryParams()
		q.Set("cursor", next)
		q.Set("limit", strconv.FormatInt(limit, 10))
		out.Next = "/v1/games?" + encodeQuery(q)
	}
	return c.JSON(http.StatusOK, out)
}

// encodeQuery writes query parameters in a stable order.
func encodeQuery(q url.Values) string { return q.Encode() }

// turn is one game waiting for the caller.
type turn struct {
	GameID   string     `json:"game_id"`
	Ruleset  string     `json:"ruleset"`
	Seats    []int      `json:"seats"`
	Version  int64      `json:"version"`
	Since    time.Time  `json:"since"`
	Deadline *time.Time `json:"deadline,omitempty"`
}

// turnsResponse is the caller's turn inbox.
type turnsResponse struct {
	Turns []turn `json:"turns"`
}

func (s *Server) myTurns(c echo.Context) error {
	p, err := s.authenticate(c)
	if err != nil {
		return err
	}
	rows, err := s.svc.Turns(c.Request().Context(), p.ID)
	if err != nil {
		return err
	}
	out := turnsResponse{Turns: make([]turn, 0, len(rows))}
	for _, r := range rows {
		out.Turns = append(out.Turns, turn{
			GameID: r.GameID, Ruleset: r.Ruleset, Seats: r.Seats, Version: r.Version,
			Since: r.Since, Deadline: r.Deadline,
		})
	}
	return c.JSON(http.StatusOK, out)
}
