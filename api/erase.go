package api

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// deleteMe deletes the caller's account (DELETE /v1/me): the running games
// go on with the seat played by a bot (or forfeited, as the game's time
// control says), games not started free the seat, and the account with
// everything that holds the player's name or address is erased. The
// games' histories stay complete: they name the player by id only.
func (s *Server) deleteMe(c echo.Context) error {
	// Who asks (and, for a browser, its CSRF token) is checked first.
	p, err := s.authenticate(c)
	if err != nil {
		return err
	}
	if c.Request().ContentLength > 0 {
		return newProblem(http.StatusBadRequest, ProblemBadRequest, "erase_body")
	}
	if err := s.svc.DeleteAccount(c.Request().Context(), p.ID); err != nil {
		return err
	}
	s.auth.forgetPlayer(p.ID)
	return c.NoContent(http.StatusNoContent)
}
