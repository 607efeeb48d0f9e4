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
	p, token, err := s.svc.RegisterPlayer(c.Request().Context(), req.Name, req.Email)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return c.JSON(http.StatusCreated, registerResponse{Player: p, Token: token})
}

func (s *Server) me(c echo.Context) error {
	p, err := s.authenticate(c)
	if err != nil {
		return err
	}
	if s.accounts == nil {
		return c.JSON(http.StatusOK, p)
	}
	// The whole profile: language and time zone too.
	prof, err := s.accounts.Profile(c.Request().Context(), p.ID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, prof)
}
