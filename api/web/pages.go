package web

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
	"github.com/azuld/azuld/projections"
)

//go:embed templates/*.html
var templateFS embed.FS

// pageNames are the templates under templates/, each rendered inside
// layout.html.
var pageNames = []string{"signin", "register", "registered", "link", "lobby", "new-game", "table", "error", "account", "account-delete"}

func parsePages(sf *staticFiles) (map[string]*template.Template, error) {
	funcs := template.FuncMap{
		"static":  sf.url,
		"title":   compose.Title,
		"ago":     ago,
		"waited":  waited,
		"when":    when,
		"rfc3339": func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"short":   func(id string) string { return id[:min(8, len(id))] },
		// inc numbers seats from 1 for people (the API counts from 0).
		"inc": func(i int) int { return i + 1 },
	}
	pages := map[string]*template.Template{}
	for _, name := range pageNames {
		t, err := template.New(name).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("web: parse page %s: %w", name, err)
		}
		pages[name] = t
	}
	// The table and the replay share one template.
	pages["replay"] = pages["table"]
	return pages, nil
}

// span writes a duration roughly ("5m", "3h 5m", "2d 4h").
func span(d time.Duration) string {
	switch {
	case d < time.Hour:
		return fmt.Sprintf("%dm", max(1, int(d/time.Minute)))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh %dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
	return fmt.Sprintf("%dd %dh", int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour))
}

// ago says how long ago t was ("just now", "3h 5m ago").
func ago(now, t time.Time) string {
	if now.Sub(t) < time.Minute {
		return "just now"
	}
	return span(now.Sub(t)) + " ago"
}

// waited says how long since t ("under a minute", "3h 5m").
func waited(now, t time.Time) string {
	if now.Sub(t) < time.Minute {
		return "under a minute"
	}
	return span(now.Sub(t))
}

// when names a coming moment with the time left ("Fri 27 Nov 23:08 UTC,
// in 2d 23h"); a past one says so.
func when(now, t time.Time) string {
	at := t.UTC().Format("Mon 2 Jan 15:04 MST")
	if !t.After(now) {
		return at + ", passed"
	}
	return at + ", in " + span(t.Sub(now))
}

// page is what every page shows; the page's own data sits in the fields
// it uses.
type page struct {
	Name  string
	Title string
	// Session is the signed-in player (nil: a visitor).
	Session *session
	// CSRF is the token the page's forms send.
	CSRF   string
	Now    time.Time
	Notice string
	Form   *form
	Lobby  *lobby
	// Address is the lobby's banner about an unverified or undeliverable
	// address (nil: none).
	Address *addressBanner
	Game    *tableView
	// Token is a new player's API token, shown once.
	Token string
	// Error is the error page's message.
	Error string
	// Account is the account page's data.
	Account *accountView
}

// form is a submitted form: its values and the errors by field ("" is the
// form's own).
type form struct {
	Values map[string]string
	Errors map[string]string
}

func newForm() *form { return &form{Values: map[string]string{}, Errors: map[string]string{}} }

// Get and Err are for the templates.
func (f *form) Get(k string) string { return f.Values[k] }
func (f *form) Err(k string) string { return f.Errors[k] }

// Invalid is the class of a field with an error.
func (f *form) Invalid(k string) string {
	if f.Errors[k] != "" {
		return "field invalid"
	}
	return "field"
}

// newPage starts a page for the request.
func (w *Web) newPage(c echo.Context, s *session, name, title string) *page {
	p := &page{Name: name, Title: title, Session: s, Now: w.now()}
	if s != nil {
		p.CSRF = s.CSRF
	} else {
		p.CSRF = w.anonCSRF(c)
	}
	return p
}

// session reads the request's session; a database failure is an error.
func (w *Web) session(c echo.Context) (*session, error) {
	return w.currentSession(c.Request().Context(), c.Request())
}

// statusOf maps an error of the command path to the HTTP status the API
// gives it, and whether its message may be shown (a fault of the server's
// is not).
func statusOf(err error) (int, bool) {
	var rule *engine.RuleError
	var conflict *events.ConflictError
	var refusal *limits.Refusal
	switch {
	case errors.As(err, &refusal):
		return http.StatusTooManyRequests, true
	case errors.Is(err, ErrCSRF), errors.Is(err, play.ErrForbidden), errors.Is(err, engine.ErrNotYourTurn):
		return http.StatusForbidden, true
	case errors.Is(err, play.ErrUnauthenticated):
		return http.StatusUnauthorized, true
	case errors.Is(err, play.ErrNotFound), errors.Is(err, events.ErrNotFound):
		return http.StatusNotFound, true
	case errors.As(err, &rule), errors.Is(err, engine.ErrBadCommand), errors.Is(err, events.ErrIdempotencyMismatch):
		return http.StatusUnprocessableEntity, true
	case errors.As(err, &conflict), errors.Is(err, events.ErrConflict), errors.Is(err, engine.ErrGameOver):
		return http.StatusConflict, true
	case errors.Is(err, play.ErrInvalid), errors.Is(err, projections.ErrInvalid), errors.Is(err, events.ErrInvalid):
		return http.StatusBadRequest, true
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return http.StatusServiceUnavailable, false
	}
	return http.StatusInternalServerError, false
}

// fail shows the error page for err (logging server faults).
func (w *Web) fail(c echo.Context, s *session, err error) error {
	status, show := statusOf(err)
	msg := err.Error()
	var refusal *limits.Refusal
	if errors.As(err, &refusal) {
		c.Response().Header().Set("Retry-After", strconv.Itoa(refusal.RetryAfter))
	}
	if !show {
		w.log.ErrorContext(c.Request().Context(), "web page failed", "path", c.Request().URL.Path, "err", msg)
		msg = "Something went wrong on the server. Please try again in a moment."
	}
	p := w.newPage(c, s, "error", http.StatusText(status))
	p.Error = msg
	return w.render(c, status, "error", p)
}

// home is the lobby, or the sign-in page for a visitor.
func (w *Web) home(c echo.Context) error {
	s, err := w.session(c)
	if err != nil {
		return w.fail(c, nil, err)
	}
	if s == nil {
		return w.render(c, http.StatusOK, "signin", w.signinPage(c, newForm()))
	}
	return w.lobbyPage(c, s)
}

func (w *Web) signinPage(c echo.Context, f *form) *page {
	p := w.newPage(c, nil, "signin", "Sign in")
	p.Form = f
	return p
}

func (w *Web) signinForm(c echo.Context) error {
	s, err := w.session(c)
	if err != nil {
		return w.fail(c, nil, err)
	}
	if s != nil {
		return c.Redirect(http.StatusSeeOther, "/")
	}
	return w.render(c, http.StatusOK, "signin", w.signinPage(c, newForm()))
}

// signin asks for a link by mail (email) or signs in with an API token
// (token).
func (w *Web) signin(c echo.Context) error {
	s, ok, err := w.formSession(c)
	if !ok {
		return err
	}
	f := newForm()
	email := strings.TrimSpace(c.FormValue("email"))
	token := strings.TrimSpace(c.FormValue("token"))
	f.Values["email"] = email
	ctx := c.Request().Context()
	switch {
	case token != "":
		// Past the failed token limit, a token is not even looked at.
		if err := w.limits.Peek(ctx, limits.FailedTokens, clientKey(c)); err != nil {
			return w.fail(c, nil, err)
		}
		p, err := w.svc.Authenticate(ctx, token)
		if errors.Is(err, play.ErrUnauthenticated) {
			if err := w.limits.Allow(ctx, limits.FailedTokens, clientKey(c)); err != nil {
				return w.fail(c, nil, err)
			}
			f.Errors["token"] = "This is not a token of this server: it is the azt_… token POST /v1/players or the registration page showed."
			return w.render(c, http.StatusUnauthorized, "signin", w.signinPage(c, f))
		}
		if err != nil {
			return w.fail(c, nil, err)
		}
		if err := w.dropSession(c.Request().Context(), s); err != nil {
			return w.fail(c, nil, err)
		}
		if _, err := w.startSession(c, p); err != nil {
			return w.fail(c, nil, err)
		}
		return c.Redirect(http.StatusSeeOther, "/")
	case email != "":
		if w.mailer == nil {
			f.Errors["email"] = "This server sends no mail: sign in with your API token."
			return w.render(c, http.StatusServiceUnavailable, "signin", w.signinPage(c, f))
		}
		if !plausibleEmail(email) {
			f.Errors["email"] = "email must be a plain address like ana@example.org"
			return w.render(c, http.StatusBadRequest, "signin", w.signinPage(c, f))
		}
		// Counted whether or not the address is registered, so a refusal
		// tells nothing either.
		if err := w.limits.Allow(ctx, limits.SigninLinks, clientKey(c)); err != nil {
			return w.fail(c, nil, err)
		}
		if err := w.limits.Allow(ctx, limits.SigninLinksTo, strings.ToLower(email)); err != nil {
			return w.fail(c, nil, err)
		}
		if err := w.mailLinks(c, email); err != nil {
			return w.fail(c, nil, err)
		}
		p := w.signinPage(c, newForm())
		// The same answer whether or not the address is known, so the
		// form tells nobody who plays here.
		p.Notice = "If " + email + " belongs to a player, a sign-in link is on its way. It works once, for " +
			fmt.Sprint(int(w.linkTTL.Minutes())) + " minutes."
		return w.render(c, http.StatusOK, "signin", p)
	}
	f.Errors[""] = "Give your email address, or paste your API token."
	return w.render(c, http.StatusBadRequest, "signin", w.signinPage(c, f))
}

// clientKey is the request's client address as limits key it.
func clientKey(c echo.Context) string { return limits.AddressKey(c.RealIP()) }

// plausibleEmail is a cheap check before a lookup.
func plausibleEmail(s string) bool {
	at := strings.IndexByte(s, '@')
	return at > 0 && at < len(s)-1 && len(s) <= 254 && !strings.ContainsAny(s, " \r\n<>")
}

// maxLinksPerMail bounds the players one address can hold links for.
const maxLinksPerMail = 5

// mailLinks queues one sign-in link for each player registered with the
// address.
func (w *Web) mailLinks(c echo.Context, email string) error {
	ctx := c.Request().Context()
	rows, err := w.pool.Query(ctx, `SELECT id::text, name, email FROM players WHERE lower(email) = lower($1) ORDER BY created_at DESC LIMIT $2`, email, maxLinksPerMail)
	if err != nil {
		return fmt.Errorf("look up players by email: %w", err)
	}
	var players []play.Player
	for rows.Next() {
		var p play.Player
		if err := rows.Scan(&p.ID, &p.Name, &p.Email); err != nil {
			rows.Close()
			return fmt.Errorf("read player: %w", err)
		}
		players = append(players, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("look up players by email: %w", err)
	}
	for _, p := range players {
		// An address not (yet) shown to read mail gets few links: a
		// stranger may type it here.
		if err := notify.AllowLinkMail(ctx, w.pool, p.ID, w.now(), w.verify); errors.Is(err, notify.ErrLinkMailLimit) {
			continue
		} else if err != nil {
			return err
		}
		token, err := w.newSigninLink(ctx, p.ID)
		if errors.Is(err, errTooManyLinks) {
			// The same answer: the earlier links are still good.
			continue
		}
		if err != nil {
			return err
		}
		a := notify.SigninArgs{PlayerID: p.ID, To: p.Email, Name: p.Name, Link: w.base(c) + "/signin/link/" + token, Valid: w.linkTTL, At: w.now().UTC()}
		if err := w.mailer.QueueSignin(ctx, a); err != nil {
			return err
		}
	}
	return nil
}

// base is the public address links point at.
func (w *Web) base(c echo.Context) string {
	if w.baseURL != "" {
		return w.baseURL
	}
	scheme := "http"
	if w.secure(c.Request()) {
		scheme = "https"
	}
	return scheme + "://" + c.Request().Host
}

// linkForm is the page a mailed link opens: one button that uses it. A
// GET never uses a link up, because mail scanners open links too.
func (w *Web) linkForm(c echo.Context) error {
	s, err := w.session(c)
	if err != nil {
		return w.fail(c, nil, err)
	}
	p := w.newPage(c, s, "link", "Sign in")
	p.Form = newForm()
	p.Form.Values["token"] = c.Param("token")
	return w.render(c, http.StatusOK, "link", p)
}

// useLink spends the link and starts a session.
func (w *Web) useLink(c echo.Context) error {
	s, ok, err := w.formSession(c)
	if !ok {
		return err
	}
	ctx := c.Request().Context()
	if err := w.limits.Peek(ctx, limits.FailedTokens, clientKey(c)); err != nil {
		return w.fail(c, s, err)
	}
	p, err := w.useSigninLink(ctx, c.Param("token"))
	if errors.Is(err, errLinkUsed) {
		if err := w.limits.Allow(ctx, limits.FailedTokens, clientKey(c)); err != nil {
			return w.fail(c, s, err)
		}
		pg := w.newPage(c, s, "link", "Sign in")
		pg.Form = newForm()
		pg.Form.Errors[""] = err.Error()
		return w.render(c, http.StatusGone, "link", pg)
	}
	if err != nil {
		return w.fail(c, s, err)
	}
	if err := w.dropSession(c.Request().Context(), s); err != nil {
		return w.fail(c, nil, err)
	}
	if _, err := w.startSession(c, p); err != nil {
		return w.fail(c, nil, err)
	}
	return c.Redirect(http.StatusSeeOther, "/")
}

func (w *Web) registerForm(c echo.Context) error {
	s, err := w.session(c)
	if err != nil {
		return w.fail(c, nil, err)
	}
	p := w.newPage(c, s, "register", "Register")
	p.Form = newForm()
	return w.render(c, http.StatusOK, "register", p)
}

// register creates a player, signs the browser in as it and shows the
// API token once.
func (w *Web) register(c echo.Context) error {
	s, ok, err := w.formSession(c)
	if !ok {
		return err
	}
	f := newForm()
	name, email := c.FormValue("name"), strings.TrimSpace(c.FormValue("email"))
	f.Values["name"], f.Values["email"] = name, email
	if email == "" {
		f.Errors["email"] = "email is needed to sign in by mail"
	}
	if strings.TrimSpace(name) == "" {
		f.Errors["name"] = "name must be 1 to 64 characters on one line"
	}
	var p play.Player
	var token string
	if len(f.Errors) == 0 {
		if err := w.limits.Allow(c.Request().Context(), limits.Registrations, clientKey(c)); err != nil {
			return w.fail(c, s, err)
		}
		p, token, err = w.svc.RegisterPlayer(c.Request().Context(), name, email, play.Preferences{})
		if err != nil {
			status, show := statusOf(err)
			if !show {
				return w.fail(c, nil, err)
			}
			msg := strings.TrimPrefix(err.Error(), play.ErrInvalid.Error()+": ")
			switch {
			case strings.HasPrefix(msg, "email"):
				f.Errors["email"] = msg
			case strings.HasPrefix(msg, "name"):
				f.Errors["name"] = msg
			default:
				f.Errors[""] = msg
			}
			pg := w.newPage(c, s, "register", "Register")
			pg.Form = f
			return w.render(c, status, "register", pg)
		}
	}
	if len(f.Errors) > 0 {
		pg := w.newPage(c, s, "register", "Register")
		pg.Form = f
		return w.render(c, http.StatusBadRequest, "register", pg)
	}
	if err := w.dropSession(c.Request().Context(), s); err != nil {
		return w.fail(c, nil, err)
	}
	ns, err := w.startSession(c, p)
	if err != nil {
		return w.fail(c, nil, err)
	}
	pg := w.newPage(c, ns, "registered", "Welcome")
	pg.Token = token
	if w.verify && w.mailer != nil {
		// The address is mailed nothing else until its owner follows this.
		if err := w.SendVerification(c, p); err != nil {
			return w.fail(c, ns, err)
		}
		pg.Notice = "We have mailed a link to " + p.Email + ": follow it to confirm the address. Until then azuld mails you nothing about games; you can play here in the meantime."
	}
	return w.render(c, http.StatusCreated, "registered", pg)
}

func (w *Web) signout(c echo.Context) error {
	s, err := w.session(c)
	if err != nil {
		return w.fail(c, nil, err)
	}
	if s != nil {
		if err := checkForm(c, s); err != nil {
			return w.fail(c, s, err)
		}
	}
	if err := w.endSession(c, s); err != nil {
		return w.fail(c, nil, err)
	}
	return c.Redirect(http.StatusSeeOther, "/")
}

// requireSession redirects a visitor to the sign-in page.
func (w *Web) requireSession(c echo.Context) (*session, bool, error) {
	s, err := w.session(c)
	if err != nil {
		return nil, false, w.fail(c, nil, err)
	}
	if s == nil {
		return nil, false, c.Redirect(http.StatusSeeOther, "/signin")
	}
	return s, true, nil
}

// truncate shortens text quoted back at a visitor.
func truncate(s string, n int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// seatsJSON is the data-seats attribute.
func seatsJSON(seats []int) string {
	if seats == nil {
		seats = []int{}
	}
	b, _ := json.Marshal(seats)
	return string(b)
}
