package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/api/tabletext"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/play"
)

// LegalMove is one legal move of one seat, in both forms a move may be
// posted in.
type LegalMove struct {
	Seat     int             `json:"seat"`
	Move     json.RawMessage `json:"move"`
	Notation string          `json:"notation"`
}

// gameResponse is a game's state plus what the caller may do in it.
type gameResponse struct {
	play.GameView
	// YourSeats are the caller's seats (empty for spectators).
	YourSeats []int `json:"your_seats"`
	// LegalMoves are the caller's legal moves now.
	LegalMoves []LegalMove `json:"legal_moves"`
	// InvitationURL is the game's invitation link, for a caller seated
	// at it while a seat is free for anyone (see withInvitation).
	InvitationURL string `json:"invitation_url,omitempty"`
}

// callerSeats are the seats whose moves a request asks about: ?seat= if
// given (anyone may look at any seat's moves: the game is public),
// otherwise the caller's seats.
func callerSeats(g *play.Game, p *play.Player, seat *int) []int {
	if seat != nil {
		return []int{*seat}
	}
	if p == nil {
		return nil
	}
	return g.SeatsOf(p.ID)
}

// legalMovesOf lists the legal moves of seats, seat by seat.
func legalMovesOf(g *play.Game, seats []int) []LegalMove {
	out := []LegalMove{}
	for _, seat := range seats {
		for _, m := range g.LegalMoves(seat) {
			out = append(out, LegalMove{Seat: seat, Move: m.JSON, Notation: m.Notation})
		}
	}
	return out
}

// newGameResponse builds the state JSON for a caller.
func newGameResponse(g *play.Game, p *play.Player) gameResponse {
	resp := gameResponse{GameView: g.View(), YourSeats: []int{}}
	if p != nil {
		if seats := g.SeatsOf(p.ID); len(seats) > 0 {
			resp.YourSeats = seats
		}
	}
	resp.LegalMoves = legalMovesOf(g, resp.YourSeats)
	return resp
}

// createRequest is the body of POST /v1/games.
type createRequest = play.CreateGame

func (s *Server) createGame(c echo.Context) error {
	p, err := s.authenticate(c)
	if err != nil {
		return err
	}
	key, err := idempotencyKey(c)
	if err != nil {
		return err
	}
	var req createRequest
	if err := decodeJSON(c, &req, false); err != nil {
		return err
	}
	if len(req.Seats) > maxSeats {
		return newProblem(http.StatusBadRequest, ProblemInvalidRequest, "too_many_seats", "Max", num(maxSeats))
	}
	// The commonest mistake, said here with the names to choose from
	// (play refuses it too, in a sentence of its own).
	if _, err := s.svc.Rules().Get(req.Ruleset); err != nil {
		return s.unknownRuleset(http.StatusBadRequest, ProblemInvalidRequest, req.Ruleset)
	}
	if err := s.limitNewGame(c, p, req.Seats); err != nil {
		return err
	}
	req.Channel = channelOf(c)
	g, err := s.svc.CreateGame(c.Request().Context(), p, req, key)
	if err != nil {
		return err
	}
	return s.seatedAnswer(c, http.StatusCreated, g, p)
}

// seatedAnswer is the game as its seated caller p gets it after creating
// it or taking a seat: with its invitation link while seats are free, its
// address and its version as the ETag.
func (s *Server) seatedAnswer(c echo.Context, status int, g *play.Game, p play.Player) error {
	resp := newGameResponse(g, &p)
	if err := s.withInvitation(c, &resp, g, &p); err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set(echo.HeaderLocation, "/v1/games/"+g.ID)
	h.Set("ETag", etag(g.Version))
	return c.JSON(status, resp)
}

// unknownRuleset is the problem of a rule set id that names none; it
// lists the ids there are.
func (s *Server) unknownRuleset(status int, typ, given string) *Problem {
	known := slices.Sorted(maps.Keys(s.svc.Rules()))
	return newProblem(status, typ, "unknown_ruleset", "Ruleset", truncate(given, 64),
		"Known", localized(func(l *i18n.Localizer) string { return l.List(known) }))
}

// getGame serves the current state. The body depends on the caller (its
// seats and legal moves), hence Vary: Authorization.
func (s *Server) getGame(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	p, err := s.optionalPlayer(c)
	if err != nil {
		return err
	}
	g, err := s.svc.Game(c.Request().Context(), id)
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set("ETag", etag(g.Version))
	h.Add("Vary", "Authorization")
	h.Set(echo.HeaderCacheControl, "no-cache")
	h.Add("Vary", "Accept")
	h.Add("Vary", "Cookie") // a web session is a caller too
	if noneMatch(c, g.Version) {
		return c.NoContent(http.StatusNotModified)
	}
	if wantsText(c) {
		return c.String(http.StatusOK, s.gameText(s.reader(c), g, p))
	}
	resp := newGameResponse(g, p)
	if err := s.withInvitation(c, &resp, g, p); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, resp)
}

// wantsText reports whether the client asked for text rather than JSON
// (curl -H 'Accept: text/plain', a terminal client).
func wantsText(c echo.Context) bool {
	accept := c.Request().Header.Get(echo.HeaderAccept)
	return strings.Contains(accept, echo.MIMETextPlain) && !strings.Contains(accept, echo.MIMEApplicationJSON)
}

// gameText is the table as text in the reader's words, followed by the
// caller's legal moves, numbered, in the reader's words (which POST
// …/moves reads back as text/plain).
func (s *Server) gameText(l *i18n.Localizer, g *play.Game, p *play.Player) string {
	var b strings.Builder
	b.WriteString(l.T("api.text.header", "ID", g.ID, "Version", strconv.FormatInt(g.Version, 10), "Status", l.T("api.text.status."+g.Status)) + "\n\n")
	b.WriteString(s.tableText(l, g, p))
	if p == nil {
		return b.String()
	}
	moves := legalMovesOf(g, g.SeatsOf(p.ID))
	if len(moves) == 0 {
		b.WriteString("\n" + l.T("api.text.no_move") + "\n")
		return b.String()
	}
	b.WriteString("\n" + l.T("api.text.moves", "ID", g.ID) + "\n")
	for i, m := range moves {
		b.WriteString(l.T("api.text.move", "N", fmt.Sprintf("%4d", i+1), "Seat", strconv.Itoa(m.Seat), "Move", s.words.Say(l.Lang(), g.Config.Ruleset, m.Notation)) + "\n")
	}
	return b.String()
}

// tableText is the table drawn from the state in the reader's words, the
// caller's seat marked.
func (s *Server) tableText(l *i18n.Localizer, g *play.Game, p *play.Player) string {
	if p == nil {
		return tabletext.Of(l, g, "")
	}
	return tabletext.Of(l, g, p.ID)
}

// joinRequest is the optional body of POST /v1/games/{id}/join.
type joinRequest struct {
	Seat *int `json:"seat"`
}

func (s *Server) joinGame(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	p, err := s.authenticate(c)
	if err != nil {
		return err
	}
	var req joinRequest
	if err := decodeJSON(c, &req, true); err != nil {
		return err
	}
	if req.Seat == nil {
		if req.Seat, err = querySeat(c); err != nil {
			return err
		}
	}
	if req.Seat != nil && (*req.Seat < 0 || *req.Seat >= maxSeats) {
		return newProblem(http.StatusBadRequest, ProblemBadRequest, "seat_range", "Max", num(maxSeats-1))
	}
	g, err := s.svc.JoinVia(c.Request().Context(), id, p, req.Seat, channelOf(c))
	if errors.Is(err, play.ErrForbidden) {
		return s.joinProblem(c, id, p, req.Seat, err)
	}
	if err != nil {
		return err
	}
	c.Response().Header().Set("ETag", etag(g.Version))
	return c.JSON(http.StatusOK, newGameResponse(g, &p))
}

// joinProblem says why a seat could not be taken, from the game as it is
// now, in play's order: no seat is free (the game started), the caller
// sits at the table already, or the seat asked for is taken.
func (s *Server) joinProblem(c echo.Context, id string, p play.Player, seat *int, err error) error {
	g, lerr := s.svc.Game(c.Request().Context(), id)
	if lerr != nil {
		return err
	}
	switch {
	case g.Status != play.StatusOpen:
		return newProblem(http.StatusForbidden, ProblemForbidden, "join_full")
	case len(g.ReservedFor(p.ID)) > 0 && seat != nil:
		return newProblem(http.StatusForbidden, ProblemForbidden, "join_not_your_reserved", "Seat", num(*seat), "Yours", num(g.ReservedFor(p.ID)[0]))
	case len(g.SeatsOf(p.ID)) > 0:
		return newProblem(http.StatusForbidden, ProblemForbidden, "join_seated")
	case seat != nil && *seat < len(g.Seats) && (g.Seats[*seat].PlayerID != "" || g.Seats[*seat].Bot != ""):
		return newProblem(http.StatusForbidden, ProblemForbidden, "join_seat_taken", "Seat", num(*seat))
	case seat != nil && *seat >= len(g.Seats):
		return newProblem(http.StatusBadRequest, ProblemBadRequest, "game_seats", "Max", num(len(g.Seats)-1))
	case seat != nil && g.Seats[*seat].Reserved != "":
		return newProblem(http.StatusForbidden, ProblemForbidden, "join_reserved", "Seat", num(*seat))
	case seat == nil && len(g.Awaiting()) > 0:
		return newProblem(http.StatusForbidden, ProblemForbidden, "join_all_reserved")
	}
	return newProblem(http.StatusForbidden, ProblemForbidden, "join_full")
}

// legalMovesResponse is the body of GET /v1/games/{id}/legal-moves.
type legalMovesResponse struct {
	GameID  string      `json:"game_id"`
	Version int64       `json:"version"`
	ToAct   []int       `json:"to_act"`
	Seats   []int       `json:"seats"`
	Moves   []LegalMove `json:"moves"`
}

func (s *Server) legalMoves(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	seat, err := querySeat(c)
	if err != nil {
		return err
	}
	p, err := s.optionalPlayer(c)
	if err != nil {
		return err
	}
	if p == nil && seat == nil {
		return newProblem(http.StatusUnauthorized, ProblemUnauthenticated, "legal_moves_whose")
	}
	// Before nearly every move a client asks this: the state comes from
	// the game cache, brought up to date, rather than folded again.
	g, err := s.svc.CurrentState(c.Request().Context(), id)
	if err != nil {
		return err
	}
	if seat != nil && *seat >= len(g.Seats) {
		return newProblem(http.StatusBadRequest, ProblemBadRequest, "game_seats", "Max", num(len(g.Seats)-1))
	}
	seats := callerSeats(g, p, seat)
	toAct := g.ToAct()
	if toAct == nil {
		toAct = []int{}
	}
	if seats == nil {
		seats = []int{}
	}
	c.Response().Header().Set("ETag", etag(g.Version))
	return c.JSON(http.StatusOK, legalMovesResponse{
		GameID: g.ID, Version: g.Version, ToAct: toAct, Seats: seats, Moves: legalMovesOf(g, seats),
	})
}

// gameState serves the state after the first N events (?version=N), or
// the current state; as text with Accept: text/plain. A past version
// never changes, so it may be cached.
func (s *Server) gameState(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	version, err := queryInt(c, "version", 0, 1, 1<<53)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	var g *play.Game
	if version == 0 {
		g, err = s.svc.Game(ctx, id)
	} else {
		g, err = s.svc.GameAt(ctx, id, version)
	}
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set("ETag", etag(g.Version))
	if version > 0 {
		h.Set(echo.HeaderCacheControl, "public, max-age=31536000, immutable")
	} else {
		h.Set(echo.HeaderCacheControl, "no-cache")
	}
	h.Add("Vary", "Accept")
	if noneMatch(c, g.Version) {
		return c.NoContent(http.StatusNotModified)
	}
	if version == 0 {
		if wantsText(c) {
			return c.String(http.StatusOK, s.tableText(s.reader(c), g, nil))
		}
		return c.JSON(http.StatusOK, g.View())
	}
	// A version inside an undone branch shows that branch, marked.
	undoneBy, err := s.svc.UndoneBy(ctx, id, version)
	if err != nil {
		return err
	}
	if wantsText(c) {
		// The table alone, in the reader's words (a terminal client
		// shows it; the JSON says whether the version was undone).
		return c.String(http.StatusOK, s.tableText(s.reader(c), g, nil))
	}
	return c.JSON(http.StatusOK, replayState{GameView: g.View(), Undone: undoneBy > 0, UndoneBy: undoneBy})
}

// replayState is a past state; Undone marks a state of an undone branch.
type replayState struct {
	play.GameView
	Undone   bool  `json:"undone,omitempty"`
	UndoneBy int64 `json:"undone_by,omitempty"`
}

// Event log paging.
const (
	defaultEventsLimit = 100
	maxEventsLimit     = 1000
)

// seatsContain reports whether seat is among seats.
func seatsContain(seats []int, seat int) bool { return slices.Contains(seats, seat) }
