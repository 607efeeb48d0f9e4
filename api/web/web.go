// Package web is azuld's web client on the server side: the HTML pages
// (sign-in, registration, lobby, create-game form, table and replay
// shells), browser sessions with CSRF protection, sign-in by a mailed
// one-time link, and the embedded static files the pages load. The table
// and replay are drawn in the browser by the modules under static/, which
// call the ordinary REST API with the session cookie (see docs/web.md).
package web

import (
	"bytes"
	"context"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/account"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/i18n/notation"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
)

// ContentSecurityPolicy is sent with every page: scripts, styles and
// connections come from this server only, and nothing inline runs.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// noLimits limits nothing.
type noLimits struct{}

func (noLimits) Allow(context.Context, string, string) error { return nil }
func (noLimits) Peek(context.Context, string, string) error  { return nil }

// Default lifetimes.
const (
	// DefaultSessionTTL is how long a browser stays signed in.
	DefaultSessionTTL = 30 * 24 * time.Hour
	// DefaultLinkTTL is how long a mailed sign-in link works.
	DefaultLinkTTL = 15 * time.Minute
)

// Mailer queues sign-in mails (the notifier).
type Mailer interface {
	QueueSignin(ctx context.Context, a notify.SigninArgs) error
}

// relay is a Mailer that tells whether its mails leave the server
// (notify.Notifier: an SMTP relay is configured).
type relay interface{ RelaysMail() bool }

// relaysMail reports whether the links the pages mention are mailed; a
// mailer that does not say is taken to mail them.
func (w *Web) relaysMail() bool {
	r, ok := w.mailer.(relay)
	return !ok || r.RelaysMail()
}

// Config wires a Web.
type Config struct {
	Service *play.Service
	// Pool holds the sessions and sign-in links; nil disables signing in
	// (pages answer for anonymous visitors only).
	Pool *pgxpool.Pool
	// Mailer sends sign-in links; nil disables sign-in by mail (tokens
	// still work).
	Mailer Mailer
	// BaseURL is the public address sign-in links point at, without a
	// trailing slash; empty: the address of the request.
	BaseURL string
	Logger  *slog.Logger
	// Now defaults to time.Now (tests move it to expire links). The
	// sessions and links themselves follow Accounts' clock: give both
	// the same.
	Now func() time.Time
	// VerifyAddresses: unverified addresses get no mail but the
	// verification link, so registration sends one and the lobby says
	// how to confirm (AZUL_VERIFY_ADDRESSES).
	VerifyAddresses bool
	// SessionTTL and LinkTTL default to DefaultSessionTTL, DefaultLinkTTL.
	SessionTTL, LinkTTL time.Duration
	// Accounts keeps the web sessions and sign-in links and serves the
	// account page (/account); nil: nobody signs in, no account page.
	Accounts *account.Service
	// TrustedProxies are the proxies whose X-Forwarded-Proto is believed
	// (see OverTLS).
	TrustedProxies []netip.Prefix
	// Limits checks the forms' rate limits; nil: none.
	Limits Limits
	// Catalogue is the message catalogue every page, mail and message
	// is written with; nil: the embedded one (i18n.New).
	Catalogue *i18n.Catalogue
	// Words reads and writes moves in each language's words; nil: the
	// embedded ones (notation.New).
	Words *notation.Words
}

// Limits are the rate limits of the forms (the API's, see
// limits.Specs): Allow counts one event of a key under a named limit,
// Peek only looks. Both answer nil or a *limits.Refusal.
type Limits interface {
	Allow(ctx context.Context, name, key string) error
	Peek(ctx context.Context, name, key string) error
}

// Web serves the pages.
type Web struct {
	svc        *play.Service
	pool       *pgxpool.Pool
	mailer     Mailer
	baseURL    string
	log        *slog.Logger
	now        func() time.Time
	sessionTTL time.Duration
	linkTTL    time.Duration
	verify     bool
	// pages are the templates by language, then page name: each
	// language's set has its own t and n.
	pages map[string]map[string]*template.Template
	cat   *i18n.Catalogue
	words *notation.Words
	langs []string
	// zones are the time zones read so far, by name.
	zones sync.Map
	// switcher are the language switcher's entries.
	switcher []langName
	// pseudo: the catalogue has the test-only pseudo-locale.
	pseudo bool
	// colours reads a colour word of any language (lower case) as its
	// canonical name.
	colours map[string]string
	// static are the embedded files and each language's messages for
	// the scripts (messagesFile).
	static   *staticFiles
	accounts *account.Service
	trusted  []netip.Prefix
	limits   Limits
}

// New builds the web client.
func New(cfg Config) (*Web, error) {
	if cfg.Service == nil {
		return nil, errors.New("web: Config.Service is required")
	}
	w := &Web{
		svc: cfg.Service, pool: cfg.Pool, mailer: cfg.Mailer, baseURL: cfg.BaseURL, log: cfg.Logger,
		now: cfg.Now, sessionTTL: cfg.SessionTTL, linkTTL: cfg.LinkTTL, accounts: cfg.Accounts,
		trusted: cfg.TrustedProxies, limits: cfg.Limits, verify: cfg.VerifyAddresses,
	}
	if w.limits == nil {
		w.limits = noLimits{}
	}
	if w.log == nil {
		w.log = slog.New(slog.DiscardHandler)
	}
	if w.now == nil {
		w.now = time.Now
	}
	if w.sessionTTL <= 0 {
		w.sessionTTL = DefaultSessionTTL
	}
	if w.linkTTL <= 0 {
		w.linkTTL = DefaultLinkTTL
	}
	var err error
	if w.cat = cfg.Catalogue; w.cat == nil {
		if w.cat, err = i18n.New(i18n.Options{}); err != nil {
			return nil, err
		}
	}
	if w.words, err = notation.OrNew(cfg.Words, w.cat); err != nil {
		return nil, err
	}
	w.langs = pageLangs(w.cat)
	w.pseudo = slices.Contains(w.langs, i18n.Pseudo)
	w.switcher = w.switcherNames()
	w.colours = colourWords(w.cat)
	if w.static, err = newStaticFiles(); err != nil {
		return nil, err
	}
	for _, l := range w.langs {
		msgs, err := jsMessages(w.cat, l, w.words)
		if err != nil {
			return nil, err
		}
		w.static.add(messagesFile(l), []byte(msgs), "application/json; charset=utf-8")
	}
	if w.pages, err = w.parsePages(); err != nil {
		return nil, err
	}
	return w, nil
}

// Register adds the web routes to e.
func (w *Web) Register(e *echo.Echo) {
	for _, r := range []struct {
		method, path string
		h            echo.HandlerFunc
	}{
		{http.MethodGet, "/", w.home},
		{http.MethodGet, "/signin", w.signinForm},
		{http.MethodPost, "/signin", w.signin},
		{http.MethodGet, "/signin/link/:token", w.linkForm},
		{http.MethodPost, "/signin/link/:token", w.useLink},
		{http.MethodGet, "/register", w.registerForm},
		{http.MethodPost, "/register", w.register},
		{http.MethodPost, "/signout", w.signout},
		{http.MethodGet, "/account/delete", w.deleteAccountForm},
		{http.MethodPost, "/account/delete", w.deleteAccount},
		{http.MethodPost, "/verification", w.resendVerification},
		{http.MethodGet, "/watch", w.watchPage},
		{http.MethodGet, "/games", w.gamesIndex},
		{http.MethodGet, "/games/new", w.newGameForm},
		{http.MethodPost, "/games/new", w.createGame},
		{http.MethodPost, "/games/:id/join", w.join},
		{http.MethodPost, "/games/:id/rematch", w.rematch},
		{http.MethodPost, "/games/:id/decline", w.decline},
		{http.MethodPost, "/games/:id/messages", w.say},
		{http.MethodPost, "/games/:id/messages/mute", w.mute},
		{http.MethodPost, "/games/:id/messages/:version/report", w.report},
		{http.MethodGet, "/games/:id", w.table},
		{http.MethodGet, "/games/:id/replay", w.replay},
		{http.MethodGet, "/static/*", w.serveStatic},
		{http.MethodGet, "/language", w.chooseLanguage},
		{http.MethodPost, "/account/language", w.accountLanguage},
		{http.MethodGet, "/ratings", w.ratingsPage},
		{http.MethodGet, "/players/:id", w.profilePage},
		{http.MethodGet, "/players/:id/games", w.playerGamesPage},
		{http.MethodGet, "/invite/:token", w.invitePage},
		{http.MethodPost, "/invite/:token", w.acceptInvite},
	} {
		e.Add(r.method, r.path, r.h, w.headers)
	}
	w.registerAccount(e)
}

// headers sets the security headers of every page and static file.
func (w *Web) headers(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		setSecurityHeaders(c.Response().Header())
		return next(c)
	}
}

func setSecurityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Frame-Options", "DENY")
}

// ErrorPage answers a page request that failed outside the pages'
// handlers (an unknown address, a method the page does not take, a body
// too large) with the error page in the reader's language, never the
// API's JSON. status is the API's status for err; say words errors the
// pages have no text of their own for.
func (w *Web) ErrorPage(c echo.Context, status int, err error, say func(*i18n.Localizer) string) error {
	setSecurityHeaders(c.Response().Header())
	// A session that cannot be read (no database) leaves a visitor's
	// page: the error is shown either way.
	s, serr := w.session(c)
	if serr != nil {
		s = nil
	}
	l := w.localizer(c, s)
	msg := errorText(l, err, status, status < http.StatusInternalServerError)
	if !pageWorded(status) && say != nil && status < http.StatusInternalServerError {
		msg = say(l)
	}
	return w.failMessage(c, s, status, msg)
}

// pageBuffers keep the buffers pages are rendered into: a table page,
// with its scripts' messages, is some tens of kilobytes, and growing a
// new buffer to that for every page is most of what rendering allocates.
var pageBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// render writes a page in its reader's language (data is a *page, or
// a type that embeds one). Pages depend on the visitor and change with
// every move, so they are never cached.
func (w *Web) render(c echo.Context, status int, page string, data interface{ lang() string }) error {
	set := w.pages[data.lang()]
	if set == nil {
		set = w.pages[i18n.Default]
	}
	t, ok := set[page]
	if !ok {
		return errors.New("web: no page " + page)
	}
	c.Response().Header().Set("Content-Language", data.lang())
	c.Response().Header().Add("Vary", "Accept-Language, Cookie")
	buf := pageBuffers.Get().(*bytes.Buffer)
	defer func() {
		buf.Reset()
		pageBuffers.Put(buf)
	}()
	if err := t.ExecuteTemplate(buf, "layout", data); err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return c.HTMLBlob(status, buf.Bytes())
}
