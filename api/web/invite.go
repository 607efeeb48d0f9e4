package web

import (
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"regexp"
	"time"

	"github.com/labstack/echo/v4"
	qrcode "github.com/skip2/go-qrcode"

	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/play"
)

// invitePath is where an invitation link points; another part of the
// server (the request log) hides its last segment, the token.
const invitePath = "/invite/"

// inviteCookie keeps, for a visitor who opened an invitation link signed
// out, the token to come back to once signed in or registered.
const inviteCookie = "azul_invite"

// inviteCookieAge is how long the visitor has to sign in or register.
const inviteCookieAge = 3600

// inviteToken is the shape of a token as the cookie may carry it back: a
// cookie holding anything else is ignored (never a redirect elsewhere).
var inviteToken = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

// InvitationURL is the invitation link of a token, on the public address.
func (w *Web) InvitationURL(c echo.Context, token string) string {
	return w.base(c) + invitePath + token
}

// inviteView is the table page's invitation panel for a seated player:
// the link, and the link as a QR code (a PNG data: URL).
type inviteView struct {
	URL string
	QR  template.URL
}

// newInviteView builds the panel for a seated player of an open game with
// seats free for strangers; nil otherwise.
func (w *Web) newInviteView(c echo.Context, g *play.Game, me *play.Player) (*inviteView, error) {
	if me == nil || len(g.SeatsOf(me.ID)) == 0 || w.pool == nil {
		return nil, nil
	}
	token, err := w.svc.InvitationToken(c.Request().Context(), g)
	if err != nil || token == "" {
		return nil, err
	}
	v := &inviteView{URL: w.InvitationURL(c, token)}
	png, err := qrcode.Encode(v.URL, qrcode.Medium, 256)
	if err != nil {
		return nil, fmt.Errorf("draw the invitation's QR code: %w", err)
	}
	// The data: URL is built here from the PNG's bytes alone.
	v.QR = template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(png))
	return v, nil
}

// invitation is the invitation page's data.
type invitation struct {
	Token string
	// SignedOut: the visitor must sign in or register first; the page
	// then names nobody.
	SignedOut bool
	// Inviter is the game's creator, Title its rule set, Players the
	// names at the table.
	Inviter, Title, Players string
	Rated                   bool
	// PerMove is the time control in words ("" without one).
	PerMove string
	// Free counts the seats the link may still give; Seated: the reader
	// holds one already.
	Free   int
	Seated bool
	GameID string
}

// invitePage shows an invitation: to a signed-in player what it invites
// to, with the button that takes the seat; to a visitor the way to sign
// in or register, after which they come back here.
func (w *Web) invitePage(c echo.Context) error {
	s, err := w.session(c)
	if err != nil {
		return w.fail(c, nil, err)
	}
	token := c.Param("token")
	g, err := w.invitedGame(c, s, token)
	if err != nil {
		return err
	}
	p := w.newPage(c, s, "invite", "web.invite.title")
	inv := &invitation{Token: token, GameID: g.ID, Free: len(g.OpenSeats())}
	if s == nil {
		inv.SignedOut = true
		w.setCookie(c, inviteCookie, token, inviteCookieAge)
	} else if inv.Seated = len(g.SeatsOf(s.Player.ID)) > 0; inv.Seated || inv.Free > 0 {
		// A used-up link names nobody: its holder is no longer invited.
		describeInvitation(p.L, g, inv)
	}
	p.Invite = inv
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return w.render(c, http.StatusOK, "invite", p)
}

// invitedGame reads the game a token invites to, past the failed token
// limit; a token that names none is counted against the client's address
// and answered with the error page (the error returned is the response).
func (w *Web) invitedGame(c echo.Context, s *session, token string) (*play.Game, error) {
	ctx := c.Request().Context()
	if err := w.limits.Peek(ctx, limits.FailedTokens, clientKey(c)); err != nil {
		return nil, w.fail(c, s, err)
	}
	g, err := w.svc.InvitedGame(ctx, token)
	if errors.Is(err, play.ErrNoInvitation) {
		return nil, w.badInvitation(c, s)
	}
	if err != nil {
		return nil, w.fail(c, s, err)
	}
	return g, nil
}

// badInvitation counts a token that names nothing and says so.
func (w *Web) badInvitation(c echo.Context, s *session) error {
	if err := w.limits.Allow(c.Request().Context(), limits.FailedTokens, clientKey(c)); err != nil {
		return w.fail(c, s, err)
	}
	return w.fail(c, s, errorf(play.ErrNotFound, "web.invite.unknown"))
}

// describeInvitation fills in what the invitation is to.
func describeInvitation(l *i18n.Localizer, g *play.Game, inv *invitation) {
	inv.Title = rulesetTitle(l, g.Config.Ruleset)
	inv.Rated = g.Rated
	var names []string
	for _, seat := range g.Seats {
		if seat.PlayerID == "" && seat.Bot == "" {
			continue
		}
		name := seatLabel(l, seat.Name, seat.Bot, seat.PlayerID)
		if seat.PlayerID == g.CreatedBy && inv.Inviter == "" {
			inv.Inviter = name
		}
		names = append(names, name)
	}
	inv.Players = l.List(names)
	if inv.Inviter == "" {
		inv.Inviter = l.T("web.invite.someone")
	}
	if tc := g.TimeControl; tc != nil && tc.PerMove > 0 {
		inv.PerMove = l.Span(time.Duration(tc.PerMove))
	}
}

// acceptInvite takes the seat an invitation offers and opens the table.
func (w *Web) acceptInvite(c echo.Context) error {
	s, err := w.session(c)
	if err != nil {
		return w.fail(c, nil, err)
	}
	token := c.Param("token")
	if s == nil {
		// Signed out (the session ended since): back through sign-in.
		if inviteToken.MatchString(token) {
			w.setCookie(c, inviteCookie, token, inviteCookieAge)
		}
		return c.Redirect(http.StatusSeeOther, "/signin")
	}
	if err := checkForm(c, s); err != nil {
		return w.fail(c, s, err)
	}
	ctx := c.Request().Context()
	if err := w.limits.Peek(ctx, limits.FailedTokens, clientKey(c)); err != nil {
		return w.fail(c, s, err)
	}
	g, err := w.svc.AcceptInvitation(ctx, token, s.Player, "web")
	switch {
	case errors.Is(err, play.ErrNoInvitation):
		return w.badInvitation(c, s)
	case errors.Is(err, play.ErrForbidden):
		invited, lerr := w.svc.InvitedGame(ctx, token)
		if lerr != nil {
			return w.fail(c, s, lerr)
		}
		if len(invited.SeatsOf(s.Player.ID)) > 0 {
			// Taken already (a second click): the table is where to go.
			return c.Redirect(http.StatusSeeOther, "/games/"+invited.ID)
		}
		return w.fail(c, s, errorf(play.ErrForbidden, "web.invite.full"))
	case err != nil:
		return w.fail(c, s, err)
	}
	return c.Redirect(http.StatusSeeOther, "/games/"+g.ID)
}

// afterSignin is where a browser that has just signed in goes: back to the
// invitation it opened signed out, else the lobby. The cookie is spent.
func (w *Web) afterSignin(c echo.Context) string {
	ck, err := c.Cookie(inviteCookie)
	if err != nil {
		return "/"
	}
	w.setCookie(c, inviteCookie, "", -1)
	if !inviteToken.MatchString(ck.Value) {
		return "/"
	}
	return invitePath + ck.Value
}
