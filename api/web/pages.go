package web

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/account"
	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
	"github.com/azuld/azuld/projections"
	"github.com/azuld/azuld/redact"
)

//go:embed templates/*.html
var templateFS embed.FS

// pageNames are the templates under templates/, each rendered inside
// layout.html.
var pageNames = []string{"signin", "register", "registered", "link", "lobby", "new-game", "table", "error", "account", "account-delete",
	"ratings", "profile", "profile-games", "invite", "visitor"}

func (w *Web) parsePages() (map[string]map[string]*template.Template, error) {
	out := map[string]map[string]*template.Template{}
	for _, lang := range w.langs {
		l := w.cat.Localizer(lang, time.UTC)
		// The functions a template calls; t and n are this language's,
		// the others take the page's localizer.
		funcs := template.FuncMap{
			"static":  w.static.url,
			"t":       l.T,
			"n":       l.N,
			"rfc3339": func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
			"short":   compose.ShortID,
			// inc numbers seats from 1 for people (the API counts from 0).
			"inc": func(i int) int { return i + 1 },
		}
		set := map[string]*template.Template{}
		for _, name := range pageNames {
			t := template.New(name).Funcs(funcs)
			for _, file := range []string{"templates/layout.html", "templates/" + name + ".html"} {
				src, err := templateFS.ReadFile(file)
				if err != nil {
					return nil, fmt.Errorf("web: read %s: %w", file, err)
				}
				if _, err := t.Parse(fixMessages(l, string(src))); err != nil {
					return nil, fmt.Errorf("web: parse page %s in %s: %w", name, lang, err)
				}
			}
			set[name] = t
		}
		// The table and the replay share one template.
		set["replay"] = set["table"]
		out[lang] = set
	}
	return out, nil
}

// plainMessage is a template action that renders a message without
// arguments: {{t "web.nav.lobby"}}.
var plainMessage = regexp.MustCompile(`\{\{\s*t\s+"([a-z0-9_.]+)"\s*\}\}`)

// fixMessages writes a page's messages that take no argument into the
// template source of one language, escaped as HTML (they stand in text
// or in quoted attributes): they are the same on every page, so a page
// in any language costs no more to render than the English-only
// templates did. Messages with arguments stay calls of t and n.
func fixMessages(l *i18n.Localizer, src string) string {
	return plainMessage.ReplaceAllStringFunc(src, func(action string) string {
		id := plainMessage.FindStringSubmatch(action)[1]
		return html.EscapeString(l.T(id))
	})
}

// page is what every page shows; the page's own data sits in the fields
// it uses.
type page struct {
	Name  string
	Title string
	// L is the reader: their language and time zone.
	L *i18n.Localizer
	// Path is the page's own path, where the language switcher returns.
	Path string
	// Langs are the switcher's entries.
	Langs []langName
	// Messages is the URL of the scripts' messages in the reader's
	// language (the table and the replay only).
	Messages string
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
	// Board is the leaderboard, Profile a player's or bot's profile.
	Board   *boardView
	Profile *profileView
	// PlayerGames is a page of a player's games.
	PlayerGames *playerGamesView
	// Invite is the invitation page's data; Next is where a new player
	// goes on from the registration page (an invitation they opened).
	Invite *invitation
	Next   string
	// Visitor is the start page of a visitor (and /watch).
	Visitor *visitorView
}

func (p *page) lang() string { return p.L.Lang() }

// Lang is the page's language code, for <html lang>.
func (p *page) Lang() string {
	if p.L.Lang() == i18n.Pseudo {
		return "en"
	}
	return p.L.Lang()
}

// Zone is the reader's IANA zone name, for the scripts.
func (p *page) Zone() string { return p.L.Zone().String() }

// Time is t in the reader's zone, the zone named.
func (p *page) Time(t time.Time) string { return p.L.Time(t) }

// Ago says how long ago t was ("3 hours ago"; "just now").
func (p *page) Ago(t time.Time) string {
	if p.Now.Sub(t) < time.Minute {
		return p.L.T("web.time.just_now")
	}
	return p.L.Ago(p.Now.Sub(t))
}

// Waited says how long since t ("3 hours 5 minutes").
func (p *page) Waited(t time.Time) string { return p.L.Span(p.Now.Sub(t)) }

// When names a coming moment in the reader's zone with the time left;
// a past one says so.
func (p *page) When(t time.Time) string {
	if !t.After(p.Now) {
		return p.L.T("web.time.passed", "Time", p.L.Time(t))
	}
	return p.L.T("web.time.when", "Time", p.L.Time(t), "In", p.L.In(t.Sub(p.Now)))
}

// Device names a signed-in browser ("Firefox on Linux", as the account
// service stores it) in the reader's words.
func (p *page) Device(d string) string {
	switch {
	case d == "":
		return p.L.T("web.account.unknown_device")
	case d == "unknown browser":
		return p.L.T("web.account.unknown_browser")
	}
	browser, os, ok := strings.Cut(d, " on ")
	if browser == "unknown browser" {
		browser = p.L.T("web.account.unknown_browser")
	}
	if !ok {
		return browser
	}
	return p.L.T("web.account.device", "Browser", browser, "OS", os)
}

// Switcher is the language switcher's entries, each language in its own
// name: for a visitor links that set the language cookie and come back
// here; for a player the buttons of a form that sets the account's
// language (the form and its CSRF field are the layout's). Written here
// rather than in the template: it is on every page, and built this way
// it costs a page a few string appends instead of some forty escaper
// calls.
func (p *page) Switcher() template.HTML {
	var b strings.Builder
	cur := p.L.Lang()
	if p.Session != nil {
		b.WriteString(`<input type="hidden" name="next" value="`)
		b.WriteString(html.EscapeString(p.Path))
		b.WriteString(`">`)
	}
	next := url.QueryEscape(p.Path)
	for _, l := range p.Langs {
		code, name := html.EscapeString(l.Code), html.EscapeString(l.Name)
		current := ""
		if l.Code == cur {
			current = ` aria-current="true"`
		}
		if p.Session != nil {
			b.WriteString(`<button type="submit" name="language" value="` + code + `" lang="` + code + `" class="linklike"` + current + `>` + name + `</button> `)
			continue
		}
		b.WriteString(`<a href="/language?lang=` + code + `&amp;next=` + html.EscapeString(next) + `" lang="` + code + `" hreflang="` + code + `"` + current + `>` + name + `</a> `)
	}
	return template.HTML(b.String()) //nolint:gosec // every part is escaped above
}

// TokenName is a token's name; the one the server names at registration
// is said in the reader's words.
func (p *page) TokenName(name string) string {
	if name == "registration" {
		return p.L.T("web.account.registration_token")
	}
	return name
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

// newPage starts a page for the request, in its reader's language; the
// title is a catalogue id.
func (w *Web) newPage(c echo.Context, s *session, name, title string) *page {
	l := w.localizer(c, s)
	p := &page{Name: name, Title: l.T(title), L: l, Session: s, Now: w.now(), Langs: w.switcher,
		Path: localPath(c.Request().URL.RequestURI())}
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
	case errors.As(err, &conflict), errors.Is(err, events.ErrConflict), errors.Is(err, engine.ErrGameOver), errors.Is(err, play.ErrNotFinished):
		return http.StatusConflict, true
	case errors.Is(err, play.ErrInvalid), errors.Is(err, projections.ErrInvalid), errors.Is(err, events.ErrInvalid):
		return http.StatusBadRequest, true
	case errors.Is(err, events.ErrOutcomeUnknown), events.Unavailable(err):
		// No primary database answered: a fail-over under way, or this
		// replica cut off from it. Not a fault of the server's.
		return http.StatusServiceUnavailable, true
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return http.StatusServiceUnavailable, false
	}
	return http.StatusInternalServerError, false
}

// pageError is an error the web client itself words: a catalogue id
// and its arguments, so the page says it in the reader's language.
type pageError struct {
	// kind is the sentinel the error wraps (its HTTP status).
	kind error
	id   string
	args []any
}

func (e *pageError) Error() string { return e.kind.Error() + ": " + e.id }
func (e *pageError) Unwrap() error { return e.kind }

// errorf is a pageError.
func errorf(kind error, id string, args ...any) error {
	return &pageError{kind: kind, id: id, args: args}
}

// fail shows the error page for err (logging server faults), in the
// reader's language: the server's errors are English for its log, so
// the page says what its status means, or the rule that was broken.
func (w *Web) fail(c echo.Context, s *session, err error) error {
	status, show := statusOf(err)
	var refusal *limits.Refusal
	if errors.As(err, &refusal) {
		c.Response().Header().Set("Retry-After", strconv.Itoa(refusal.RetryAfter))
	}
	if events.Unavailable(err) {
		c.Response().Header().Set("Retry-After", strconv.Itoa(events.RetryAfterSeconds))
		w.log.WarnContext(c.Request().Context(), "web page failed: no database", "path", redact.Path(c.Request().URL.Path, c.Path()), "err", err.Error())
	}
	if !show {
		w.log.ErrorContext(c.Request().Context(), "web page failed", "path", redact.Path(c.Request().URL.Path, c.Path()), "err", err.Error())
	}
	return w.failMessage(c, s, status, errorText(w.localizer(c, s), err, status, show))
}

// errorText is err as the reader reads it.
func errorText(l *i18n.Localizer, err error, status int, show bool) string {
	var pe *pageError
	var rule *engine.RuleError
	var refusal *limits.Refusal
	switch {
	case !show:
		return l.T("web.error.server")
	case errors.As(err, &pe):
		return l.T(pe.id, pe.args...)
	case errors.Is(err, ErrCSRF):
		return l.T("web.error.csrf")
	case errors.Is(err, events.ErrOutcomeUnknown):
		return l.T("web.error.outcome_unknown")
	case events.Unavailable(err):
		return l.T("web.error.unavailable")
	case errors.As(err, &refusal):
		what := "web.error.limit." + refusal.Limit
		if !l.Catalogue().Has(what) {
			what = "web.error.limit.any"
		}
		return l.T("web.error.limited", "What", l.T(what), "In", l.In(time.Duration(refusal.RetryAfter)*time.Second))
	case errors.As(err, &rule):
		return l.T("rule." + rule.Rule)
	}
	if pageWorded(status) {
		return l.T("web.error.status." + strconv.Itoa(status))
	}
	return l.T("web.error.server")
}

// pageWorded reports whether the error page has its own text for a
// status (web.error.status.*).
func pageWorded(status int) bool {
	switch status {
	case http.StatusForbidden, http.StatusUnauthorized, http.StatusNotFound, http.StatusUnprocessableEntity,
		http.StatusConflict, http.StatusBadRequest, http.StatusServiceUnavailable:
		return true
	}
	return false
}

// failMessage shows the error page with a message already in the
// reader's language.
func (w *Web) failMessage(c echo.Context, s *session, status int, msg string) error {
	p := w.newPage(c, s, "error", "web.error.title")
	p.Title = p.L.T("web.error.status_title", "Status", strconv.Itoa(status))
	p.Error = msg
	return w.render(c, status, "error", p)
}

// home is the lobby, or for a visitor the start page with the games
// to watch.
func (w *Web) home(c echo.Context) error {
	s, err := w.session(c)
	if err != nil {
		return w.fail(c, nil, err)
	}
	if s == nil {
		return w.visitorPage(c, nil)
	}
	return w.lobbyPage(c, s)
}

func (w *Web) signinPage(c echo.Context, f *form) *page {
	p := w.newPage(c, nil, "signin", "web.signin.title")
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
	l := w.localizer(c, s)
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
			f.Errors["token"] = l.T("web.signin.error.token")
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
		return c.Redirect(http.StatusSeeOther, w.afterSignin(c))
	case email != "":
		if w.mailer == nil {
			f.Errors["email"] = l.T("web.signin.error.no_mail")
			return w.render(c, http.StatusServiceUnavailable, "signin", w.signinPage(c, f))
		}
		if !plausibleEmail(email) {
			f.Errors["email"] = l.T("web.form.error.email")
			return w.render(c, http.StatusBadRequest, "signin", w.signinPage(c, f))
		}
		// Counted whether or not the address is registered, so a refusal
		// tells nothing either.
		if err := w.limits.Allow(ctx, limits.SigninLinks, clientKey(c)); err != nil {
			return w.fail(c, nil, err)
		}
		if err := w.limits.Allow(ctx, limits.SigninLinksTo, limits.MailboxKey(email)); err != nil {
			return w.fail(c, nil, err)
		}
		if err := w.mailLinks(c, email); err != nil {
			return w.fail(c, nil, err)
		}
		p := w.signinPage(c, newForm())
		// The same answer whether or not the address is known, so the
		// form tells nobody who plays here.
		p.Notice = p.L.T(w.linkNotice("web.signin.sent"), "Email", email, "Valid", p.L.Span(w.linkTTL))
		return w.render(c, http.StatusOK, "signin", p)
	}
	f.Errors[""] = l.T("web.signin.error.empty")
	return w.render(c, http.StatusBadRequest, "signin", w.signinPage(c, f))
}

// inputText is what a form says at the field of a refused name or
// address: the form's own words for a malformed one, the catalogue's
// explanation (api.input.<code>) for one refused for what it is.
func inputText(l *i18n.Localizer, err error) string {
	var input *play.InputError
	if errors.As(err, &input) {
		switch input.Code {
		case "name_link", "email_taken", "email_reserved":
			return l.T("api.input."+input.Code, input.Args...)
		case "name":
			return l.T("web.form.error.name")
		}
	}
	return l.T("web.form.error.email")
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
	rows, err := w.pool.Query(ctx, `SELECT id::text, name, email FROM players WHERE lower(email) = lower($1) AND email <> '' ORDER BY created_at DESC LIMIT $2`, email, maxLinksPerMail)
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
		token, err := w.accounts.NewSigninLink(ctx, p.ID, w.linkTTL)
		if errors.Is(err, account.ErrTooManyLinks) {
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
	p := w.newPage(c, s, "link", "web.signin.title")
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
	playerID, confirmed, err := w.accounts.UseSigninLink(ctx, c.Param("token"))
	if errors.Is(err, account.ErrLinkUsed) {
		if err := w.limits.Allow(ctx, limits.FailedTokens, clientKey(c)); err != nil {
			return w.fail(c, s, err)
		}
		pg := w.newPage(c, s, "link", "web.signin.title")
		pg.Form = newForm()
		pg.Form.Errors[""] = pg.L.T("web.link.used")
		return w.render(c, http.StatusGone, "link", pg)
	}
	if err != nil {
		return w.fail(c, s, err)
	}
	p, err := w.svc.Player(ctx, playerID)
	if err != nil {
		return w.fail(c, s, fmt.Errorf("sign-in link's player: %w", err))
	}
	if err := w.dropSession(c.Request().Context(), s); err != nil {
		return w.fail(c, nil, err)
	}
	if _, err := w.startSession(c, p); err != nil {
		return w.fail(c, nil, err)
	}
	next := w.afterSignin(c)
	if confirmed && next == "/" {
		// The lobby says that the click confirmed the address.
		next = "/?confirmed=1"
	}
	return c.Redirect(http.StatusSeeOther, next)
}

// linkNotice is the page's word that a link is on its way (id), or,
// with no relay, the same id's "_no_relay" form: the link was printed on
// the terminal azuld runs in, for its operator to pass on.
func (w *Web) linkNotice(id string) string {
	if w.relaysMail() {
		return id
	}
	return id + "_no_relay"
}

func (w *Web) registerForm(c echo.Context) error {
	s, err := w.session(c)
	if err != nil {
		return w.fail(c, nil, err)
	}
	p := w.newPage(c, s, "register", "web.register.title")
	p.Form = newForm()
	// The language the browser asks for is the account's first choice.
	p.Form.Values["language"] = p.L.Lang()
	if !i18n.Supported(p.Form.Values["language"]) {
		p.Form.Values["language"] = i18n.Default
	}
	p.Form.Values["time_zone"] = "UTC"
	return w.render(c, http.StatusOK, "register", p)
}

// register creates a player, signs the browser in as it and shows the
// API token once. The language comes from the form's choice (which
// Accept-Language set), the zone from the browser (a script fills the
// hidden field; UTC without one).
func (w *Web) register(c echo.Context) error {
	s, ok, err := w.formSession(c)
	if !ok {
		return err
	}
	l := w.localizer(c, s)
	f := newForm()
	name, email := c.FormValue("name"), strings.TrimSpace(c.FormValue("email"))
	lang, zone := c.FormValue("language"), strings.TrimSpace(c.FormValue("time_zone"))
	if zone == "" {
		zone = "UTC"
	}
	if lang == "" {
		lang = l.Lang()
		if !i18n.Supported(lang) {
			lang = i18n.Default
		}
	}
	f.Values["name"], f.Values["email"], f.Values["language"], f.Values["time_zone"] = name, email, lang, zone
	if email == "" {
		f.Errors["email"] = l.T("web.register.error.email_needed")
	}
	if strings.TrimSpace(name) == "" {
		f.Errors["name"] = l.T("web.form.error.name")
	}
	if !i18n.Supported(lang) {
		f.Errors["language"] = l.T("web.form.error.language", "Supported", w.supportedList())
	}
	if _, err := i18n.LoadZone(zone); err != nil {
		// A browser that names a zone this server does not know plays in
		// UTC rather than failing to register; the account page changes it.
		f.Values["time_zone"], zone = "UTC", "UTC"
	}
	var p play.Player
	var token string
	if len(f.Errors) == 0 {
		if err := w.limits.Allow(c.Request().Context(), limits.Registrations, clientKey(c)); err != nil {
			return w.fail(c, s, err)
		}
		p, token, err = w.svc.RegisterPlayer(c.Request().Context(), name, email, play.Preferences{Language: lang, TimeZone: zone})
		if err != nil {
			status, show := statusOf(err)
			if !show {
				return w.fail(c, nil, err)
			}
			msg := strings.TrimPrefix(err.Error(), play.ErrInvalid.Error()+": ")
			switch {
			case strings.HasPrefix(msg, "email"):
				f.Errors["email"] = inputText(l, err)
			case strings.HasPrefix(msg, "name"):
				f.Errors["name"] = inputText(l, err)
			default:
				f.Errors[""] = errorText(l, err, status, show)
			}
			pg := w.newPage(c, s, "register", "web.register.title")
			pg.Form = f
			return w.render(c, status, "register", pg)
		}
	}
	if len(f.Errors) > 0 {
		pg := w.newPage(c, s, "register", "web.register.title")
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
	ns.Language, ns.TimeZone = lang, zone
	pg := w.newPage(c, ns, "registered", "web.registered.title")
	pg.Title = pg.L.T("web.registered.title", "Name", p.Name)
	pg.Token = token
	if next := w.afterSignin(c); next != "/" {
		pg.Next = next
	}
	if w.verify && w.mailer != nil {
		// The address is mailed nothing else until its owner follows this.
		var refusal *limits.Refusal
		switch err := w.SendVerification(c, p); {
		case errors.As(err, &refusal), errors.Is(err, notify.ErrLinkMailLimit):
			// The account exists: the page shows its token all the same,
			// and says why no mail comes now (the mailbox had its links).
			pg.Notice = pg.L.T("web.verify.limit")
		case err != nil:
			return w.fail(c, ns, err)
		default:
			pg.Notice = pg.L.T(w.linkNotice("web.registered.verify"), "Email", p.Email)
		}
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
