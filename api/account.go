package api

import (
	"context"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/account"
	"github.com/azuld/azuld/api/web"
	"github.com/azuld/azuld/play"
)

// verifierFunc adapts a function to account.Verifier.
type verifierFunc func(ctx context.Context, playerID string) error

func (f verifierFunc) SendVerification(ctx context.Context, playerID string) error {
	return f(ctx, playerID)
}

// accountRoutes registers the player's own account: profile, tokens and
// web sessions (all under /v1/me).
func (s *Server) accountRoutes(v1 *echo.Group) {
	v1.PATCH("/me", s.updateProfile)
	v1.GET("/me/tokens", s.listTokens)
	v1.POST("/me/tokens", s.createToken)
	v1.DELETE("/me/tokens/:id", s.revokeToken)
	v1.GET("/me/sessions", s.listSessions)
	v1.DELETE("/me/sessions/:id", s.endSession)
}

// authGeneration reads the shared auth generation for the token cache
// (nil without accounts: nothing can be revoked then).
func (s *Server) authGeneration(ctx context.Context) (int64, error) {
	if s.accounts == nil {
		return 0, nil
	}
	return s.accounts.Generation(ctx)
}

// accountsOrUnavailable is the accounts service, or 503 without one.
func (s *Server) accountsOrUnavailable() (*account.Service, error) {
	if s.accounts == nil {
		return nil, newProblem(http.StatusServiceUnavailable, ProblemUnavailable, "no_accounts")
	}
	return s.accounts, nil
}

// updateProfile is PATCH /v1/me: the fields sent change, the others stay.
// Unknown fields and an empty object are refused (400).
func (s *Server) updateProfile(c echo.Context) error {
	p, acc, err := s.accountOf(c)
	if err != nil {
		return err
	}
	var u account.Update
	if err := decodeJSON(c, &u, false); err != nil {
		return err
	}
	if u.Email != nil {
		// The server's own mail domain is nobody's address.
		if err := s.svc.CheckAddress(strings.TrimSpace(*u.Email)); err != nil {
			return err
		}
	}
	prof, err := acc.Update(c.Request().Context(), p.ID, u)
	if err != nil {
		return err
	}
	view, err := s.profileView(c.Request().Context(), prof.ID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, view)
}

func (s *Server) listTokens(c echo.Context) error {
	p, acc, err := s.accountOf(c)
	if err != nil {
		return err
	}
	tokens, err := acc.Tokens(c.Request().Context(), p.ID)
	if err != nil {
		return err
	}
	if tokens == nil {
		tokens = []account.Token{}
	}
	return c.JSON(http.StatusOK, map[string]any{"tokens": tokens, "limit": account.MaxTokens})
}

// createTokenRequest is the body of POST /v1/me/tokens.
type createTokenRequest struct {
	Name string `json:"name"`
}

func (s *Server) createToken(c echo.Context) error {
	p, acc, err := s.accountOf(c)
	if err != nil {
		return err
	}
	var req createTokenRequest
	if err := decodeJSON(c, &req, false); err != nil {
		return err
	}
	t, err := acc.CreateToken(c.Request().Context(), p.ID, req.Name)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return c.JSON(http.StatusCreated, t)
}

func (s *Server) revokeToken(c echo.Context) error {
	p, acc, err := s.accountOf(c)
	if err != nil {
		return err
	}
	if err := acc.RevokeToken(c.Request().Context(), p.ID, c.Param("id")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

func (s *Server) listSessions(c echo.Context) error {
	p, acc, err := s.accountOf(c)
	if err != nil {
		return err
	}
	sessions, err := acc.Sessions(c.Request().Context(), p.ID, web.SessionHash(c.Request()))
	if err != nil {
		return err
	}
	if sessions == nil {
		sessions = []account.Session{}
	}
	return c.JSON(http.StatusOK, map[string]any{"sessions": sessions})
}

func (s *Server) endSession(c echo.Context) error {
	p, acc, err := s.accountOf(c)
	if err != nil {
		return err
	}
	if err := acc.EndSession(c.Request().Context(), p.ID, c.Param("id")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// accountOf authenticates the caller and hands out the account service.
func (s *Server) accountOf(c echo.Context) (play.Player, *account.Service, error) {
	p, err := s.authenticate(c)
	if err != nil {
		return play.Player{}, nil, err
	}
	acc, err := s.accountsOrUnavailable()
	return p, acc, err
}
