package api

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/play"
)

// rematch serves POST /v1/games/{id}/rematch: the rematch of a finished
// game for one of its players, created on the first request (201) and the
// same game afterwards (200). A caller who holds no seat in the game gets
// 404, as for a game that does not exist; a game not over, 409.
func (s *Server) rematch(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	p, err := s.authenticate(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	old, err := s.svc.Game(ctx, id)
	if err != nil {
		return err
	}
	if len(old.SeatsOf(p.ID)) > 0 && old.Status == play.StatusFinished && old.Rematch == "" {
		// A new game, with invitations to the other players: counted as
		// POST /v1/games counts them.
		var others []play.SeatSpec
		for _, seat := range old.Seats {
			if seat.PlayerID != "" && seat.PlayerID != p.ID {
				others = append(others, play.SeatSpec{Player: seat.PlayerID})
			}
		}
		if err := s.limitNewGame(c, p, others); err != nil {
			return err
		}
	}
	g, created, err := s.svc.Rematch(ctx, id, p, channelOf(c))
	if errors.Is(err, play.ErrNotFinished) {
		return newProblem(http.StatusConflict, ProblemNotFinished, "rematch_not_finished")
	}
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set(echo.HeaderLocation, "/v1/games/"+g.ID)
	h.Set("ETag", etag(g.Version))
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return c.JSON(status, newGameResponse(g, &p))
}

// declineGame serves POST /v1/games/{id}/decline: the caller declines the
// seats of a rematch reserved for them. They become ordinary free seats
// (anyone may join them) and the rematch's creator is told. 404 for a
// caller with no seat in the game, reserved or taken; 403 for a player
// seated in it with nothing to decline.
func (s *Server) declineGame(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	p, err := s.authenticate(c)
	if err != nil {
		return err
	}
	g, err := s.svc.Decline(c.Request().Context(), id, p, channelOf(c))
	if errors.Is(err, play.ErrForbidden) {
		return newProblem(http.StatusForbidden, ProblemForbidden, "decline_nothing")
	}
	if err != nil {
		return err
	}
	c.Response().Header().Set("ETag", etag(g.Version))
	return c.JSON(http.StatusOK, newGameResponse(g, &p))
}
