package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/i18n/notation"
	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/play"
)

// maxNotation bounds a move in text notation (the longest real one is
// about 40 characters).
const maxNotation = 200

// moveBody is a move as posted, in one of the accepted forms.
type moveBody struct {
	Move     json.RawMessage
	Notation string
	Seat     *int
}

// parseMoveBody reads the body of POST /v1/games/{id}/moves:
//
//   - text/plain: the move in notation ("F2 red 3");
//   - JSON {"notation": "F2 red 3", "seat": 1};
//   - JSON {"move": {...}, "seat": 1}: an entry of legal-moves posted back
//     as it is (its "notation" is then ignored);
//   - JSON the move itself: {"type": "take", ..., "seat": 1}.
//
// "seat" is optional everywhere (also ?seat=): it picks one of several
// seats the caller holds.
func parseMoveBody(c echo.Context) (moveBody, error) {
	mt, err := mediaType(c)
	if err != nil {
		return moveBody{}, err
	}
	body, err := readBody(c)
	if err != nil {
		return moveBody{}, err
	}
	trimmed := bytes.TrimSpace(body)
	mt = sniffedType(mt, trimmed)
	switch {
	case mt == echo.MIMETextPlain:
		return notationBody(string(trimmed))
	case isJSONType(mt):
		return jsonMoveBody(trimmed)
	}
	return moveBody{}, newProblem(http.StatusUnsupportedMediaType, ProblemUnsupportedMediaType,
		"move_media_type", "Type", truncate(mt, 64))
}

// notationBody checks a move in text notation before the engine parses it.
func notationBody(text string) (moveBody, error) {
	switch {
	case text == "":
		return moveBody{}, newProblem(http.StatusUnprocessableEntity, ProblemMalformedMove, "no_move")
	case len(text) > maxNotation || !utf8.ValidString(text):
		return moveBody{}, newProblem(http.StatusUnprocessableEntity, ProblemMalformedMove,
			"notation_long", "Max", num(maxNotation))
	}
	return moveBody{Notation: text}, nil
}

// jsonMoveBody reads the JSON forms of a move.
func jsonMoveBody(body []byte) (moveBody, error) {
	if len(body) == 0 {
		return moveBody{}, newProblem(http.StatusUnprocessableEntity, ProblemMalformedMove, "no_move")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil || fields == nil {
		if err != nil {
			return moveBody{}, jsonProblem(err)
		}
		return moveBody{}, newProblem(http.StatusBadRequest, ProblemBadRequest, "json_not_object", "Given", "null")
	}
	var mb moveBody
	if raw, ok := fields["seat"]; ok {
		var seat int
		if err := json.Unmarshal(raw, &seat); err != nil || seat < 0 || seat >= maxSeats {
			return moveBody{}, newProblem(http.StatusBadRequest, ProblemBadRequest, "seat_range", "Max", num(maxSeats-1))
		}
		mb.Seat = &seat
		delete(fields, "seat")
	}
	if raw, ok := fields["move"]; ok {
		if len(raw) == 0 || raw[0] != '{' {
			return moveBody{}, newProblem(http.StatusUnprocessableEntity, ProblemMalformedMove, "move_not_object")
		}
		mb.Move = raw
		return mb, nil
	}
	if _, ok := fields["type"]; ok {
		move, err := json.Marshal(fields)
		if err != nil {
			return moveBody{}, fmt.Errorf("re-encode move: %w", err)
		}
		mb.Move = move
		return mb, nil
	}
	if raw, ok := fields["notation"]; ok {
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			return moveBody{}, newProblem(http.StatusUnprocessableEntity, ProblemMalformedMove, "notation_not_string")
		}
		if len(fields) > 1 {
			return moveBody{}, newProblem(http.StatusBadRequest, ProblemBadRequest, "notation_fields")
		}
		nb, err := notationBody(text)
		nb.Seat = mb.Seat
		return nb, err
	}
	return moveBody{}, newProblem(http.StatusUnprocessableEntity, ProblemMalformedMove, "no_move")
}

// moveResponse is the body of a successful move.
type moveResponse struct {
	// Version is the game's version after this move.
	Version int64           `json:"version"`
	Events  []events.Record `json:"events"`
	// CurrentVersion is the game's version when the answer was made (the
	// game's ETag): past Version only when a service without job workers
	// moved bots within the request.
	CurrentVersion int64  `json:"current_version"`
	Status         string `json:"status"`
	ToAct          []int  `json:"to_act"`
	// Replayed is true when the Idempotency-Key had been used: nothing
	// new was written and this is the first attempt's result.
	Replayed bool `json:"replayed,omitempty"`
}

func (s *Server) postMove(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	p, err := s.authenticate(c)
	if err != nil {
		return err
	}
	expected, err := parseIfMatch(c)
	if err != nil {
		return err
	}
	key, err := idempotencyKey(c)
	if err != nil {
		return err
	}
	seat, err := querySeat(c)
	if err != nil {
		return err
	}
	mb, err := parseMoveBody(c)
	if err != nil {
		return err
	}
	if mb.Seat != nil {
		if seat != nil && *seat != *mb.Seat {
			return newProblem(http.StatusBadRequest, ProblemBadRequest, "seat_differs")
		}
		seat = mb.Seat
	}
	if err := s.limitAccount(c, limits.Moves, p); err != nil {
		return err
	}
	ctx := c.Request().Context()
	if mb.Notation != "" {
		if mb.Notation, err = s.canonicalNotation(c, id, mb.Notation); err != nil {
			return err
		}
	}
	res, err := s.svc.Move(ctx, play.MoveRequest{
		GameID:          id,
		Actor:           events.Actor{Kind: "player", PlayerID: p.ID},
		Seat:            seat,
		Move:            mb.Move,
		Notation:        mb.Notation,
		ExpectedVersion: expected,
		IdempotencyKey:  key,
		Channel:         channelOf(c),
	})
	if err != nil {
		if key != "" && errors.Is(err, events.ErrOutcomeUnknown) {
			// The key makes a retry safe: it is answered with this
			// move's result if it was made, or makes it now.
			return unavailable("outcome_unknown_keyed")
		}
		return s.moveProblem(c, id, p, seat, err)
	}
	out := moveResponse{Version: res.Version, Events: res.Events, CurrentVersion: res.Version, Replayed: res.Replayed}
	g := res.Game
	if g == nil {
		// A replayed command: report where the game is now.
		if g, err = s.svc.Game(ctx, id); err != nil {
			return err
		}
	}
	out.CurrentVersion, out.Status, out.ToAct = g.Version, g.Status, g.ToAct()
	if out.ToAct == nil {
		out.ToAct = []int{}
	}
	if out.Events == nil {
		out.Events = []events.Record{}
	}
	h := c.Response().Header()
	h.Set("ETag", etag(out.CurrentVersion))
	h.Set(echo.HeaderLocation, "/v1/games/"+id+"/state?version="+strconv.FormatInt(res.Version, 10))
	if res.Replayed {
		h.Set("Idempotent-Replayed", "true")
	}
	return c.JSON(http.StatusCreated, out)
}

// seatsDetail says a plural message about seats: "seat 1 is to move",
// "seats 0 and 2 are to move".
func seatsDetail(id string, seats []int) func(l *i18n.Localizer) string {
	return func(l *i18n.Localizer) string {
		return l.N(id, len(seats), "Seats", seatList(seats)(l))
	}
}

// seatList names seats in the reader's words: "0, 1 and 2".
func seatList(seats []int) localized {
	return func(l *i18n.Localizer) string {
		items := make([]string, len(seats))
		for i, s := range seats {
			items[i] = l.Num(s)
		}
		return l.List(items)
	}
}

// moveProblem explains a refused move. When the move itself was wrong the
// problem lists the caller's legal moves, so a client can recover at once.
func (s *Server) moveProblem(c echo.Context, id string, p play.Player, seat *int, err error) error {
	pr := toProblem(err)
	var rule *engine.RuleError
	wrongMove := errors.As(err, &rule) || errors.Is(err, engine.ErrBadCommand) || errors.Is(err, engine.ErrNotYourTurn)
	if !wrongMove && !errors.Is(err, play.ErrForbidden) {
		return pr
	}
	g, lerr := s.svc.Game(c.Request().Context(), id)
	if lerr != nil {
		return pr
	}
	seats := g.SeatsOf(p.ID)
	// Say what is wrong from the game as it is: whose turn it is, which
	// game this is, which seat is not the caller's.
	switch {
	case errors.Is(err, engine.ErrNotYourTurn) && len(g.ToAct()) > 0:
		pr = rendered(pr.Status, pr.Type, "to_act", seatsDetail("api.detail.to_act", g.ToAct()))
	case errors.Is(err, engine.ErrBadCommand):
		pr = newProblem(pr.Status, pr.Type, "malformed_move_of", "Game",
			localized(func(l *i18n.Localizer) string { return l.T("game.ruleset." + g.Config.Ruleset) }))
	case errors.Is(err, play.ErrForbidden) && len(seats) == 0:
		return newProblem(pr.Status, pr.Type, "no_seat_here")
	case errors.Is(err, play.ErrForbidden) && seat != nil && !seatsContain(seats, *seat):
		return newProblem(pr.Status, pr.Type, "not_your_seat", "Seat", num(*seat))
	case !wrongMove:
		return pr
	}
	if seat != nil && seatsContain(seats, *seat) {
		seats = []int{*seat}
	}
	pr.LegalMoves = legalMovesOf(g, seats)
	v := g.Version
	pr.CurrentVersion = &v
	return pr
}

// canonicalNotation reads a move written in the reader's words ("F2 rood
// 3"), another language's where unambiguous, or the notation, into the
// notation the engine reads. A word that means several things is refused
// with its candidates, in the reader's language.
func (s *Server) canonicalNotation(c echo.Context, id, text string) (string, error) {
	g, err := s.svc.Game(c.Request().Context(), id)
	if err != nil {
		// The move itself reports a missing game the usual way.
		return text, nil
	}
	l := s.reader(c)
	canon, err := s.words.Read(l.Lang(), g.Config.Ruleset, text)
	var amb *notation.AmbiguousError
	if errors.As(err, &amb) {
		msg := amb.Message()
		return "", rendered(http.StatusUnprocessableEntity, ProblemMalformedMove, "ambiguous_word", func(*i18n.Localizer) string { return msg })
	}
	if err != nil {
		return "", err
	}
	return canon, nil
}
