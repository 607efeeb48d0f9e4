package web

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/play"
)

// rematch is POST /games/{id}/rematch, the "Rematch" button of a finished
// game's page without script: the rematch, created or found, is shown.
// Counted under the rate limits as a new game with its invitations when
// it does not exist yet.
func (w *Web) rematch(c echo.Context) error {
	s, ok, err := w.requireSession(c)
	if !ok {
		return err
	}
	if err := checkForm(c, s); err != nil {
		return w.fail(c, s, err)
	}
	id, err := gameID(c)
	if err != nil {
		return w.fail(c, s, err)
	}
	ctx := c.Request().Context()
	old, err := w.svc.Game(ctx, id)
	if err != nil {
		return w.fail(c, s, err)
	}
	if len(old.SeatsOf(s.Player.ID)) > 0 && old.Status == play.StatusFinished && old.Rematch == "" {
		var others []play.SeatSpec
		for _, seat := range old.Seats {
			if seat.PlayerID != "" && seat.PlayerID != s.Player.ID {
				others = append(others, play.SeatSpec{Player: seat.PlayerID})
			}
		}
		if err := w.limitNewGame(ctx, s.Player, others); err != nil {
			return w.fail(c, s, err)
		}
	}
	g, _, err := w.svc.Rematch(ctx, id, s.Player, "web")
	if errors.Is(err, play.ErrNotFinished) {
		err = errorf(play.ErrNotFinished, "web.rematch.not_finished")
	}
	if err != nil {
		return w.fail(c, s, err)
	}
	return c.Redirect(http.StatusSeeOther, "/games/"+g.ID)
}

// decline is POST /games/{id}/decline: the player says no to the seat a
// rematch keeps for them, from the game's page or the lobby.
func (w *Web) decline(c echo.Context) error {
	s, ok, err := w.requireSession(c)
	if !ok {
		return err
	}
	if err := checkForm(c, s); err != nil {
		return w.fail(c, s, err)
	}
	id, err := gameID(c)
	if err != nil {
		return w.fail(c, s, err)
	}
	if _, err := w.svc.Decline(c.Request().Context(), id, s.Player, "web"); err != nil {
		if errors.Is(err, play.ErrForbidden) {
			err = errorf(play.ErrForbidden, "web.rematch.nothing_to_decline")
		}
		return w.fail(c, s, err)
	}
	return c.Redirect(http.StatusSeeOther, "/")
}
