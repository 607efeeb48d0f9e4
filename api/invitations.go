package api

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/play"
)

// withInvitation adds the game's invitation link to a response for a
// player seated at it while seats are free for strangers: the link is
// theirs to pass on, and nobody else's to see.
func (s *Server) withInvitation(c echo.Context, resp *gameResponse, g *play.Game, p *play.Player) error {
	if p == nil || len(g.SeatsOf(p.ID)) == 0 || s.pool == nil {
		return nil
	}
	token, err := s.svc.InvitationToken(c.Request().Context(), g)
	if err != nil || token == "" {
		return err
	}
	resp.InvitationURL = s.web.InvitationURL(c, token)
	return nil
}

// acceptRequest is the body of POST /v1/invitations/accept. The token
// travels in the body: a path is what request logs record.
type acceptRequest struct {
	Token string `json:"token"`
}

// acceptInvitation takes a free seat with an invitation link's token
// (POST /v1/invitations/accept). A token that names nothing is a failed
// token guess, limited like a wrong bearer token.
func (s *Server) acceptInvitation(c echo.Context) error {
	p, err := s.authenticate(c)
	if err != nil {
		return err
	}
	var req acceptRequest
	if err := decodeJSON(c, &req, false); err != nil {
		return err
	}
	if err := s.checkTokenAttempt(c); err != nil {
		return err
	}
	token := req.Token
	g, err := s.svc.AcceptInvitation(c.Request().Context(), token, p, channelOf(c))
	if errors.Is(err, play.ErrNoInvitation) {
		s.countFailedToken(c)
		return newProblem(http.StatusNotFound, ProblemNotFound, "no_invitation")
	}
	if errors.Is(err, play.ErrForbidden) {
		invited, lerr := s.svc.InvitedGame(c.Request().Context(), token)
		if lerr != nil {
			return lerr
		}
		return s.joinProblem(c, invited.ID, p, nil, err)
	}
	if err != nil {
		return err
	}
	return s.seatedAnswer(c, http.StatusOK, g, p)
}
