package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/account"
	"github.com/azuld/azuld/api"
	"github.com/azuld/azuld/app"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
)

// env is an azuld server on a database of its own, and the shared
// headless Chromium in which each player has a browser context (cookies
// apart).
type env struct {
	t    testing.TB
	url  string
	http *httptest.Server
	svc  *play.Service
	// accounts starts the web sessions newPlayer signs players in with.
	accounts *account.Service
	// browser is the shared Chromium's first tab, the parent of the
	// env's tabs.
	browser context.Context
	shots   string
	// mails keeps what the job workers mail (an env with workers);
	// POST /v1/inbound/email takes replies with inboundSecret.
	mails *mailbox
}

// inboundSecret authenticates the tests' POST /v1/inbound/email.
const inboundSecret = "browser-inbound-secret"

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

func newEnv(t testing.TB) *env {
	t.Helper()
	return newEnvWith(t, false)
}

// newEnvWorkers is an env whose server also runs the job workers (bots
// that think, analyses), as azuld does by default.
func newEnvWorkers(t testing.TB) *env {
	t.Helper()
	return newEnvWith(t, true)
}

func newEnvWith(t testing.TB, workers bool) *env {
	t.Helper()
	return newEnvCat(t, workers, nil)
}

// newEnvCat is newEnvWith with a message catalogue of its own (nil: the
// embedded one), such as the pseudo-locale's.
func newEnvCat(t testing.TB, workers bool, cat *i18n.Catalogue) *env {
	t.Helper()
	e := &env{t: t, mails: &mailbox{}}
	dbURL := pg.NewDatabase(t)
	ctx, cancel := context.WithCancel(context.Background())
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(api.WithRequestIDs(slog.NewJSONHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn})))
	// As in azuld: the turn inbox and the jobs follow from the log;
	// with workers, they deliver the mails (to the mailbox) and move the
	// bots that think.
	// The server's address is known before it serves: its links (the
	// invitations', the mails') lead back to it, as azuld's do.
	e.http = httptest.NewUnstartedServer(nil)
	e.url = "http://" + e.http.Listener.Addr().String()
	// The analyses' search is smaller than azuld's: the tests check how
	// the replay shows an analysis, not how strong it is.
	ncfg := notify.Config{Sender: compose.Sender{Domain: "mail.test", BaseURL: e.url}, Mailer: e.mails, AnalysisPlayouts: 1500}
	if workers {
		ncfg.Workers, ncfg.FetchPollInterval = 1, 50*time.Millisecond
	}
	parts, err := app.New(app.Config{
		Pool: pool, DatabaseURL: dbURL, Logger: log, Catalogue: cat, Notify: ncfg,
		Follow: notify.FollowOptions{PollInterval: 10 * time.Millisecond, RetryAfter: 50 * time.Millisecond},
		Limits: limits.Options{Off: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	e.svc = parts.Service
	if e.accounts, err = account.New(account.Config{Pool: pool}); err != nil {
		t.Fatal(err)
	}
	if err := parts.Start(ctx); err != nil {
		t.Fatalf("start the server's background work: %v", err)
	}
	srv, err := api.New(api.Config{App: parts, Heartbeat: 5 * time.Second, InboundSecret: inboundSecret})
	if err != nil {
		t.Fatal(err)
	}
	e.http.Config.Handler = srv.Handler()
	e.http.Start()
	t.Cleanup(func() {
		srv.Close()
		e.http.CloseClientConnections()
		e.http.Close()
		stop, cancelStop := context.WithTimeout(context.Background(), 10*time.Second)
		_ = parts.Stop(stop)
		cancelStop()
		cancel()
		pool.Close()
	})

	e.shots = os.Getenv("AZUL_SCREENSHOTS")
	if e.shots == "" {
		e.shots = t.TempDir()
	} else if err := os.MkdirAll(e.shots, 0o755); err != nil {
		t.Fatal(err)
	}
	e.browser = chrome.browser(t)
	return e
}

// player is a registered player with a browser context of their own.
type player struct {
	e     *env
	name  string
	id    string
	token string
	ctx   context.Context
	// console has the page's console errors once watchConsole ran.
	console *console
}

// newPlayer registers a player through the API and opens a browser
// context signed in as them: it holds the session cookie that signing in
// by the sign-in page would have set (newPlayerByForm signs in by the
// page itself). Two page loads fewer a player: each costs Chromium and
// the server about a second of the machine.
func (e *env) newPlayer(name string) *player {
	e.t.Helper()
	p := e.register(name)
	p.ctx = e.newTab()
	secret, _, err := e.accounts.StartSession(context.Background(), play.Player{ID: p.id}, chrome.userAgent(e.t), 24*time.Hour)
	if err != nil {
		e.t.Fatalf("a web session for %s: %v", name, err)
	}
	if _, err := chromedp.Call(p.ctx, network.SetCookie, network.SetCookieParams{
		Name: sessionCookie, Value: secret, URL: e.url, HTTPOnly: ptr(true), SameSite: network.CookieSameSiteLax,
	}); err != nil {
		e.t.Fatalf("%s's session cookie: %v", name, err)
	}
	return p
}

// sessionCookie is the name of the web client's session cookie;
// TestAccountPages checks that the sign-in page sets this one.
const sessionCookie = "azuld_session"

func ptr[T any](v T) *T { return &v }

// newPlayerByForm registers a player through the API and signs a browser
// context in as them by the sign-in page, as a person would.
func (e *env) newPlayerByForm(name string) *player {
	e.t.Helper()
	p := e.register(name)
	p.ctx = e.newTab()
	p.signIn()
	return p
}

// register registers a player through the API.
func (e *env) register(name string) *player {
	e.t.Helper()
	var reg struct {
		ID    string `json:"id"`
		Token string `json:"token"`
	}
	e.rest("", http.MethodPost, "/v1/players", map[string]string{"name": name, "email": strings.ToLower(name) + "@example.org"}, http.StatusCreated, &reg)
	return &player{e: e, name: name, id: reg.ID, token: reg.Token}
}

// newTab opens a tab in a browser context of its own (cookies, storage
// and cache apart from every other tab), closed when the test ends.
func (e *env) newTab() context.Context {
	e.t.Helper()
	ctx, cancel := chromedp.NewContext(e.browser, chromedp.WithNewBrowserContext())
	e.t.Cleanup(cancel)
	// The first action on a context binds the tab's life to the context
	// it is given: it must be this one, not a wait's shorter one.
	if err := chromedp.Do(ctx); err != nil {
		e.t.Fatalf("open a tab: %v", err)
	}
	return ctx
}

// signIn signs the browser context in as a player would: the sign-in
// page's form with the player's API token.
func (p *player) signIn() {
	p.e.t.Helper()
	if err := chromedp.Do(p.ctx, chromedp.Navigate(p.e.url+"/signin")); err != nil {
		p.e.t.Fatalf("%s opens the sign-in page: %v", p.name, err)
	}
	p.waitJS(`document.querySelector('form.signin-token input[name=token]')`, "the sign-in form")
	if err := chromedp.Do(p.ctx,
		chromedp.SendKeys(chromedp.CSS("form.signin-token input[name=token]"), p.token),
		chromedp.Click(chromedp.CSS("form.signin-token button")),
	); err != nil {
		p.e.t.Fatalf("%s signs in: %v", p.name, err)
	}
	p.waitJS(`document.body.classList.contains('page-lobby')`, "the lobby after signing in")
}

// rest calls the API with a player's token and decodes the answer.
func (e *env) rest(token, method, path string, body any, want int, out any) {
	e.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, e.url+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := e.http.Client().Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		e.t.Fatalf("%s %s: status %d, want %d: %s", method, path, res.StatusCode, want, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			e.t.Fatalf("decode %s: %v", data, err)
		}
	}
}
