package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/account"
	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
)

// VerificationTTL is how long the link of a verification mail works:
// longer than a sign-in link's, because a new player may read the mail
// a day later; like any mailed link it works once.
const VerificationTTL = 48 * time.Hour

// Reasons SendVerification refuses.
var (
	// ErrAlreadyVerified: the address is verified and takes mail.
	ErrAlreadyVerified = errors.New("your address is verified already and takes mail: there is nothing to confirm")
	// ErrNoAddress: the player gave no address.
	ErrNoAddress = errors.New("your account has no email address to verify")
	// ErrNoMail: the server sends no mail at all.
	ErrNoMail = errors.New("this server sends no mail: sign in with your API token")
)

// SendVerification queues a verification mail for p (a link that
// verifies the address and signs in), counted by notify.AllowLinkMail:
// the mail at registration and one more a day on request.
func (w *Web) SendVerification(c echo.Context, p play.Player) error {
	return w.sendVerification(c.Request().Context(), w.base(c), p)
}

func (w *Web) sendVerification(ctx context.Context, base string, p play.Player) error {
	switch {
	case p.EmailStatus == play.EmailOK:
		return ErrAlreadyVerified
	case p.EmailStatus == play.EmailUnverified && !w.verify:
		// Without verification an unverified address is mailed anyway.
		return ErrAlreadyVerified
	}
	return w.mailVerification(ctx, base, p)
}

// mailVerification queues the verification link, whatever the address's
// status.
func (w *Web) mailVerification(ctx context.Context, base string, p play.Player) error {
	switch {
	case w.mailer == nil || w.pool == nil || w.accounts == nil:
		return ErrNoMail
	case p.Email == "":
		return ErrNoAddress
	}
	// Counted per address too, like the sign-in form's links: accounts
	// are cheap, and each could otherwise name the same stranger.
	if err := w.limits.Allow(ctx, limits.SigninLinksTo, limits.MailboxKey(p.Email)); err != nil {
		return err
	}
	if err := notify.AllowLinkMail(ctx, w.pool, p.ID, w.now(), w.verify); err != nil {
		return err
	}
	token, err := w.accounts.NewSigninLink(ctx, p.ID, VerificationTTL)
	if errors.Is(err, account.ErrTooManyLinks) {
		return notify.ErrLinkMailLimit
	}
	if err != nil {
		return err
	}
	// No name: the verification mail names nobody (compose.Verification).
	a := notify.SigninArgs{PlayerID: p.ID, Verify: true, To: p.Email,
		Link: base + "/signin/link/" + token, Valid: VerificationTTL, At: w.now().UTC()}
	return w.mailer.QueueSignin(ctx, a)
}

// addressBanner is the lobby's word on the player's address, nil when
// there is nothing to say.
type addressBanner struct {
	// Status is play.EmailUnverified or play.EmailUndeliverable.
	Status string
	Email  string
	// CanResend: the server sends mail, so a new link can be asked for.
	CanResend bool
	// NoRelay: the links are printed on the server's terminal, not
	// mailed.
	NoRelay bool
}

func (w *Web) addressBanner(p play.Player) *addressBanner {
	switch {
	case p.EmailStatus == play.EmailUndeliverable,
		p.EmailStatus == play.EmailUnverified && w.verify:
		return &addressBanner{Status: p.EmailStatus, Email: p.Email, CanResend: w.mailer != nil, NoRelay: w.mailer != nil && !w.relaysMail()}
	}
	return nil
}

// resendVerification is POST /verification: the lobby's button that mails
// the verification link again.
func (w *Web) resendVerification(c echo.Context) error {
	s, ok, err := w.formSession(c)
	if !ok {
		return err
	}
	if s == nil {
		return c.Redirect(http.StatusSeeOther, "/signin")
	}
	err = w.SendVerification(c, s.Player)
	p := w.newPage(c, s, "lobby", "web.lobby.title")
	status, notice := http.StatusOK, ""
	switch {
	case err == nil:
		notice = p.L.T(w.linkNotice("web.verify.sent"), "Email", s.Player.Email, "Valid", p.L.Span(VerificationTTL))
	case errors.Is(err, notify.ErrLinkMailLimit):
		status, notice = http.StatusTooManyRequests, p.L.T("web.verify.limit")
	case errors.Is(err, ErrAlreadyVerified):
		status, notice = http.StatusConflict, p.L.T("web.verify.already")
	case errors.Is(err, ErrNoAddress):
		status, notice = http.StatusConflict, p.L.T("web.verify.no_address")
	case errors.Is(err, ErrNoMail):
		status, notice = http.StatusServiceUnavailable, p.L.T("web.signin.error.no_mail")
	default:
		return w.fail(c, s, err)
	}
	l, err := w.buildLobby(c.Request().Context(), p.L, s.Player)
	if err != nil {
		return w.fail(c, s, err)
	}
	p.Lobby, p.Address, p.Notice = l, w.addressBanner(s.Player), notice
	return w.render(c, status, "lobby", p)
}

// unreachableSeats names the players of a game whose address stopped
// taking mail (the game's other seats were told once by mail; the page
// says it while it lasts).
func (w *Web) unreachableSeats(ctx context.Context, gameID string) ([]string, error) {
	if w.pool == nil {
		return nil, nil
	}
	rows, err := w.pool.Query(ctx, `
		SELECT p.name FROM undeliverable_notices n JOIN players p ON p.id = n.player_id
		WHERE n.game_id = $1 AND p.email_undeliverable_at IS NOT NULL ORDER BY p.name`, gameID)
	if err != nil {
		return nil, fmt.Errorf("read the game's unreachable players: %w", err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, fmt.Errorf("read the game's unreachable players: %w", err)
		}
		names = append(names, name)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the game's unreachable players: %w", err)
	}
	return names, nil
}
