package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/play"
)

// registerRequest is the body of POST /v1/players.
type registerRequest struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

// registerResponse shows the token once: only its hash is stored.
type registerResponse struct {
	play.Player
	Token string `json:"token"`
}

func (s *Server) registerPlayer(c echo.Context) error {
	var req registerRequest
	if err := decodeJSON(c, &req, false); err != nil {
		return err
	}
	if err := s.limits.Allow(c.Request().Context(), limits.Registrations, clientKey(c)); err != nil {
		return err
	}
	p, token, err := s.svc.RegisterPlayer(c.Request().Context(), req.Name, req.Email, play.Preferences{})
	if err != nil {
		return err
	}
	if p.Email != "" && s.notifier != nil && s.notifier.VerifyAddresses() {
		// The one mail an unverified address gets before its owner
		// answers it. The player exists either way: a failure to queue
		// is logged, and POST /v1/me/verification asks again.
		if err := s.web.SendVerification(c, p); err != nil {
			s.log.WarnContext(c.Request().Context(), "verification mail not queued", "player", p.ID, "err", err)
		}
	}
	p = s.shownPlayer(p)
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return c.JSON(http.StatusCreated, registerResponse{Player: p, Token: token})
}
