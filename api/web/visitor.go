package web

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/projections"
)

// visitorView is the visitor's start page: what anyone may watch, who
// plays best, and the way in.
type visitorView struct {
	Watch []lobbyGame
	// Board is the top of the default leaderboard (nil without a
	// database of ratings); BoardTitle names its rule set and players.
	Board      *boardView
	BoardTitle string
	// BoardHref is the whole of that leaderboard.
	BoardHref string
}

// visitorSize bounds the start page's watch list and leaderboard.
const visitorSize = 10

// watchPage is GET /watch, and GET / for a visitor: the running public
// games (the API's watch list, best-rated first) and the top of the
// leaderboard, with sign-in and register links for a visitor.
func (w *Web) watchPage(c echo.Context) error {
	s, err := w.session(c)
	if err != nil {
		return w.fail(c, nil, err)
	}
	return w.visitorPage(c, s)
}

// visitorPage renders the start page for s (nil: a visitor). Both lists
// are reads anyone may cause, so the page counts as one read of the
// leaderboard against the client's address.
func (w *Web) visitorPage(c echo.Context, s *session) error {
	if err := w.readLimit(c); err != nil {
		return w.fail(c, s, err)
	}
	ctx := c.Request().Context()
	p := w.newPage(c, s, "visitor", "web.visitor.title")
	f := projections.Filter{Watch: true, Limit: visitorSize}
	if s != nil {
		// Private games are listed to their seated players only.
		f.Viewer = s.Player.ID
	}
	games, _, err := w.svc.ListGames(ctx, f)
	if err != nil {
		return w.fail(c, s, err)
	}
	v := &visitorView{}
	for _, g := range games {
		v.Watch = append(v.Watch, lobbyGame{ID: g.ID, Ruleset: g.Ruleset, Title: rulesetTitle(p.L, g.Ruleset),
			Players: playerNames(p.L, g), Since: g.LastMoveAt, Rated: !g.Unrated})
	}
	if w.pool != nil {
		b := &boardView{Players: 2}
		var opts []rulesetOption
		for _, id := range rulesetIDs(w.svc.Rules()) {
			opts = append(opts, rulesetOption{ID: id})
		}
		b.Ruleset = defaultBoardRuleset(opts)
		// Provisional ratings too, marked as such: on a young server
		// nobody has played enough games to be listed otherwise, and the
		// ordinal (μ − 3σ) ranks an uncertain rating low anyway.
		b.Provisional = true
		rows, _, err := projections.ListRatings(ctx, w.pool, projections.Leaderboard{Ruleset: b.Ruleset, Players: b.Players, Provisional: true, Limit: visitorSize})
		if err != nil {
			return w.fail(c, s, err)
		}
		b.Rows = boardRows(p.L, s, rows, 1)
		v.Board, v.BoardTitle = b, boardTitle(p.L, b.Ruleset, b.Players)
		v.BoardHref = "/ratings?" + url.Values{"ruleset": {b.Ruleset}, "players": {strconv.Itoa(b.Players)}, "provisional": {"1"}}.Encode()
	}
	p.Visitor = v
	return w.render(c, http.StatusOK, "visitor", p)
}

// gamesIndex is GET /games, an address people type: the games to watch.
func (w *Web) gamesIndex(c echo.Context) error {
	return c.Redirect(http.StatusSeeOther, "/watch")
}
