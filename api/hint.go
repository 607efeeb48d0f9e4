package api

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/i18n/tell"
	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/play"
)

// hintReason is one reason of a hint: its kind (stable, for programs)
// and its words in the reader's language.
type hintReason struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// hintBody is the body of GET /v1/games/{id}/hint.
type hintBody struct {
	GameID   string          `json:"game_id"`
	Version  int64           `json:"version"`
	Seat     int             `json:"seat"`
	Move     json.RawMessage `json:"move"`
	Notation string          `json:"notation"`
	Reasons  []hintReason    `json:"reasons"`
}

// gameHint serves GET /v1/games/{id}/hint: the strongest level's
// suggestion for the caller's seat that must act (or ?seat=N), with its
// reasons in words, in an unrated game only. It changes nothing and
// tells no one; each hint counts against the caller's hints limit.
func (s *Server) gameHint(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	seat, err := querySeat(c)
	if err != nil {
		return err
	}
	p, err := s.authenticate(c)
	if err != nil {
		return err
	}
	h, err := s.svc.Hint(c.Request().Context(), play.HintRequest{GameID: id, Player: p, Seat: seat,
		Allow: func(ctx context.Context) error { return s.limits.Allow(ctx, limits.Hints, p.ID) }})
	if err != nil {
		return err
	}
	l := s.reader(c)
	out := hintBody{GameID: h.GameID, Version: h.Version, Seat: h.Seat, Move: h.Move.JSON, Notation: h.Move.Notation,
		Reasons: make([]hintReason, len(h.Reasons))}
	for i, r := range h.Reasons {
		out.Reasons[i] = hintReason{Kind: r.Kind, Text: tell.Reason(l, r)}
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "private, no-store")
	return c.JSON(http.StatusOK, out)
}
