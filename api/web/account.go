package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/account"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/play"
)

// accountView is the account page: the profile form, the tokens and the
// sessions.
type accountView struct {
	Profile   account.Profile
	Languages []string
	// Zones are the time zones the field suggests.
	Zones     []string
	Tokens    []account.Token
	MaxTokens int
	Sessions  []account.Session
	// NewToken is a token just created, shown this once.
	NewToken *account.NewToken
	// TokenForm and ProfileForm carry what was sent and its errors.
	TokenForm *form
}

// Zones are the time zones the account page suggests (a datalist: any
// IANA name is accepted).
var Zones = []string{
	"UTC", "Europe/Amsterdam", "Europe/Brussels", "Europe/Berlin", "Europe/Vienna", "Europe/Zurich", "Europe/Rome",
	"Europe/Paris", "Europe/London", "Europe/Dublin", "Europe/Lisbon", "Europe/Madrid", "Europe/Copenhagen",
	"Europe/Stockholm", "Europe/Oslo", "Europe/Helsinki", "Europe/Warsaw", "Europe/Prague", "Europe/Athens",
	"Europe/Istanbul", "Europe/Moscow", "America/New_York", "America/Chicago", "America/Denver",
	"America/Los_Angeles", "America/Toronto", "America/Sao_Paulo", "America/Mexico_City", "Africa/Johannesburg",
	"Asia/Kolkata", "Asia/Shanghai", "Asia/Tokyo", "Asia/Singapore", "Australia/Sydney", "Pacific/Auckland",
}

// registerAccount adds the account page and its forms. Every form posts
// the session's CSRF token (formSession checks it).
func (w *Web) registerAccount(e *echo.Echo) {
	for _, r := range []struct {
		method, path string
		h            echo.HandlerFunc
	}{
		{http.MethodGet, "/account", w.accountPage},
		{http.MethodPost, "/account/profile", w.accountProfile},
		{http.MethodPost, "/account/tokens", w.accountCreateToken},
		{http.MethodPost, "/account/tokens/:id/revoke", w.accountRevokeToken},
		{http.MethodPost, "/account/sessions/:id/end", w.accountEndSession},
		{http.MethodPost, "/account/sessions/end-others", w.accountEndOthers},
	} {
		e.Add(r.method, r.path, r.h, w.headers)
	}
}

// errNoAccounts: the server runs without the account service.
var errNoAccounts = errors.New("accounts are not enabled on this server")

// signedIn is the session of an account request; ok is false when the
// answer (a redirect to sign in, or an error page) has been given.
func (w *Web) signedIn(c echo.Context, post bool) (s *session, ok bool, err error) {
	if post {
		s, ok, err = w.formSession(c)
		if !ok {
			return nil, false, err
		}
	} else if s, err = w.session(c); err != nil {
		return nil, false, w.fail(c, nil, err)
	}
	if s == nil {
		return nil, false, c.Redirect(http.StatusSeeOther, "/signin")
	}
	if w.accounts == nil {
		return nil, false, w.fail(c, s, fmt.Errorf("%w: %w", play.ErrNotFound, errNoAccounts))
	}
	return s, true, nil
}

// renderAccount draws the account page with the player's current state.
func (w *Web) renderAccount(c echo.Context, s *session, status int, f *form, tf *form, created *account.NewToken, notice string) error {
	ctx := c.Request().Context()
	prof, err := w.accounts.Profile(ctx, s.Player.ID)
	if err != nil {
		return w.fail(c, s, err)
	}
	tokens, err := w.accounts.Tokens(ctx, s.Player.ID)
	if err != nil {
		return w.fail(c, s, err)
	}
	sessions, err := w.accounts.Sessions(ctx, s.Player.ID, s.Hash)
	if err != nil {
		return w.fail(c, s, err)
	}
	if f == nil {
		f = newForm()
		f.Values["name"], f.Values["email"] = prof.Name, prof.Email
		f.Values["language"], f.Values["time_zone"] = prof.Language, prof.TimeZone
		if prof.HideGames {
			f.Values["hide_games"] = "1"
		}
	}
	if tf == nil {
		tf = newForm()
	}
	// The header shows the name as it is now.
	s.Player.Name = prof.Name
	s.Language, s.TimeZone = prof.Language, prof.TimeZone
	p := w.newPage(c, s, "account", "web.account.title")
	p.Form, p.Notice = f, notice
	if notice != "" {
		p.Notice = p.L.T(notice, "Email", prof.Email)
	}
	p.Account = &accountView{
		Profile: prof, Languages: account.Languages, Zones: Zones, Tokens: tokens, MaxTokens: account.MaxTokens,
		Sessions: sessions, NewToken: created, TokenForm: tf,
	}
	return w.render(c, status, "account", p)
}

func (w *Web) accountPage(c echo.Context) error {
	s, ok, err := w.signedIn(c, false)
	if !ok {
		return err
	}
	return w.renderAccount(c, s, http.StatusOK, nil, nil, nil, "")
}

// userMessage is an account error as the page shows it, without the
// sentinel's prefix.
func userMessage(err error) string {
	msg := err.Error()
	for _, prefix := range []string{play.ErrInvalid.Error() + ": ", play.ErrNotFound.Error() + ": "} {
		msg = strings.TrimPrefix(msg, prefix)
	}
	return msg
}

// accountProfile saves the profile form; a bad field re-shows the form
// with what was sent, and nothing is saved.
func (w *Web) accountProfile(c echo.Context) error {
	s, ok, err := w.signedIn(c, true)
	if !ok {
		return err
	}
	f := newForm()
	u := account.Update{}
	for _, k := range []string{"name", "email", "language", "time_zone"} {
		v := c.FormValue(k)
		f.Values[k] = v
		switch k {
		case "name":
			u.Name = &v
		case "email":
			u.Email = &v
		case "language":
			u.Language = &v
		case "time_zone":
			u.TimeZone = &v
		}
	}
	// A checkbox sends nothing when it is not ticked.
	hide := c.FormValue("hide_games") == "1"
	u.HideGames = &hide
	if hide {
		f.Values["hide_games"] = "1"
	}
	// Language and zone are checked here, so that a bad one is refused
	// next to its field in the reader's language and nothing is saved.
	l := w.localizer(c, s)
	if !i18n.Supported(f.Values["language"]) {
		f.Errors["language"] = l.T("web.form.error.language", "Supported", w.supportedList())
	}
	if len(f.Values["time_zone"]) > 64 {
		f.Errors["time_zone"] = l.T("web.form.error.time_zone", "Zone", truncate(f.Values["time_zone"], 64), "Examples", strings.Join(Zones[:6], ", "))
	} else if _, err := i18n.LoadZone(f.Values["time_zone"]); err != nil {
		f.Errors["time_zone"] = l.T("web.form.error.time_zone", "Zone", f.Values["time_zone"], "Examples", strings.Join(Zones[:6], ", "))
	}
	if len(f.Errors) > 0 {
		f.Errors[""] = l.T("web.account.error.not_saved")
		return w.renderAccount(c, s, http.StatusBadRequest, f, nil, nil, "")
	}
	if err := w.svc.CheckAddress(strings.TrimSpace(f.Values["email"])); err != nil {
		f.Errors["email"] = inputText(l, err)
		f.Errors[""] = l.T("web.account.error.not_saved")
		return w.renderAccount(c, s, http.StatusBadRequest, f, nil, nil, "")
	}
	before, err := w.accounts.Profile(c.Request().Context(), s.Player.ID)
	if err != nil {
		return w.fail(c, s, err)
	}
	after, err := w.accounts.Update(c.Request().Context(), s.Player.ID, u)
	if status, show := statusOf(err); err != nil && show && status < 500 {
		msg := userMessage(err)
		switch {
		case strings.HasPrefix(msg, "name"):
			f.Errors["name"] = inputText(l, err)
		case strings.HasPrefix(msg, "email"):
			f.Errors["email"] = inputText(l, err)
		default:
			f.Errors[""] = errorText(l, err, status, show)
		}
		if f.Errors[""] == "" {
			f.Errors[""] = l.T("web.account.error.not_saved")
		}
		return w.renderAccount(c, s, status, f, nil, nil, "")
	}
	if err != nil {
		return w.fail(c, s, err)
	}
	notice := "web.account.saved"
	if after.Email != "" && !strings.EqualFold(after.Email, before.Email) {
		notice = w.linkNotice("web.account.saved_confirm")
	}
	return w.renderAccount(c, s, http.StatusOK, nil, nil, nil, notice)
}

// accountCreateToken makes a token and shows it once.
func (w *Web) accountCreateToken(c echo.Context) error {
	s, ok, err := w.signedIn(c, true)
	if !ok {
		return err
	}
	name := c.FormValue("name")
	t, err := w.accounts.CreateToken(c.Request().Context(), s.Player.ID, name)
	if status, show := statusOf(err); err != nil && show && status < 500 {
		tf := newForm()
		tf.Values["name"] = name
		tf.Errors["name"] = w.localizer(c, s).T("web.account.error.token_name", "Max", strconv.Itoa(account.MaxTokens))
		return w.renderAccount(c, s, status, nil, tf, nil, "")
	}
	if err != nil {
		return w.fail(c, s, err)
	}
	return w.renderAccount(c, s, http.StatusCreated, nil, nil, &t, "")
}

func (w *Web) accountRevokeToken(c echo.Context) error {
	s, ok, err := w.signedIn(c, true)
	if !ok {
		return err
	}
	if err := w.accounts.RevokeToken(c.Request().Context(), s.Player.ID, c.Param("id")); err != nil {
		return w.fail(c, s, err)
	}
	return c.Redirect(http.StatusSeeOther, "/account#tokens")
}

func (w *Web) accountEndSession(c echo.Context) error {
	s, ok, err := w.signedIn(c, true)
	if !ok {
		return err
	}
	if err := w.accounts.EndSession(c.Request().Context(), s.Player.ID, c.Param("id")); err != nil {
		return w.fail(c, s, err)
	}
	return c.Redirect(http.StatusSeeOther, "/account#sessions")
}

func (w *Web) accountEndOthers(c echo.Context) error {
	s, ok, err := w.signedIn(c, true)
	if !ok {
		return err
	}
	if _, err := w.accounts.EndOtherSessions(c.Request().Context(), s.Player.ID, s.Hash); err != nil {
		return w.fail(c, s, err)
	}
	return c.Redirect(http.StatusSeeOther, "/account#sessions")
}

// AddressChanged mails the verification link to a player's new address
// (the account service's Verifier): following it proves the address is
// theirs. It goes even when the server does not require verification, so
// a mistyped address shows at once; a server that sends no mail has
// nothing to send.
func (w *Web) AddressChanged(ctx context.Context, playerID string) error {
	p, err := w.svc.Player(ctx, playerID)
	if err != nil {
		return fmt.Errorf("verification mail: %w", err)
	}
	err = w.mailVerification(ctx, w.baseURL, p)
	if errors.Is(err, ErrNoMail) || errors.Is(err, ErrNoAddress) {
		return nil
	}
	return err
}
