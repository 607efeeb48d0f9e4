package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/api/web"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
)

// verificationResponse says where the link went.
type verificationResponse struct {
	Sent  bool   `json:"sent"`
	Email string `json:"email"`
}

// me is GET /v1/me. The player is read afresh, not from the token cache:
// the address's status changes behind the token (a bounce, a link
// followed).
func (s *Server) me(c echo.Context) error {
	p, err := s.authenticate(c)
	if err != nil {
		return err
	}
	view, err := s.profileView(c.Request().Context(), p.ID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, view)
}

// profileView is the account as GET and PATCH /v1/me show it: the
// profile (language and time zone too) with the address's status as this
// server treats it.
func (s *Server) profileView(ctx context.Context, playerID string) (any, error) {
	if s.accounts == nil {
		p, err := s.svc.Player(ctx, playerID)
		return s.shownPlayer(p), err
	}
	prof, err := s.accounts.Profile(ctx, playerID)
	if err != nil {
		return nil, err
	}
	shown := s.shownPlayer(play.Player{EmailVerified: prof.EmailVerified, EmailStatus: prof.EmailStatus})
	prof.EmailStatus = shown.EmailStatus
	return prof, nil
}

// shownPlayer is a player as this server treats its address: with
// verification off, an unverified address is mailed like any other, so
// its status says ok (email_verified still tells the truth).
func (s *Server) shownPlayer(p play.Player) play.Player {
	if p.EmailStatus == play.EmailUnverified && (s.notifier == nil || !s.notifier.VerifyAddresses()) {
		p.EmailStatus = play.EmailOK
	}
	return p
}

// resendVerification is POST /v1/me/verification: the verification link
// mailed again, at most once more a day (notify.LinkMailsPerDay with the
// first).
func (s *Server) resendVerification(c echo.Context) error {
	p, err := s.authenticate(c)
	if err != nil {
		return err
	}
	if p, err = s.svc.Player(c.Request().Context(), p.ID); err != nil {
		return err
	}
	err = s.web.SendVerification(c, p)
	switch {
	case err == nil:
		return c.JSON(http.StatusAccepted, verificationResponse{Sent: true, Email: p.Email})
	case errors.Is(err, notify.ErrLinkMailLimit):
		c.Response().Header().Set("Retry-After", "86400")
		return newProblem(http.StatusTooManyRequests, ProblemVerificationLimit, "verification_limit")
	case errors.Is(err, web.ErrAlreadyVerified):
		return newProblem(http.StatusConflict, ProblemAlreadyVerified, "already_verified")
	case errors.Is(err, web.ErrNoAddress):
		return newProblem(http.StatusConflict, ProblemAlreadyVerified, "no_address")
	case errors.Is(err, web.ErrNoMail):
		return newProblem(http.StatusServiceUnavailable, ProblemNoMail, "no_mail")
	}
	return err
}
