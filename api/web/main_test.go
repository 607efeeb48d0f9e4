package web_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/net/html"

	"github.com/azuld/azuld/api"
	"github.com/azuld/azuld/app"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/internal/pgtest"
	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/migrations"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
)

// pg gives every test a fresh, migrated database.
var pg *pgtest.Harness

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, pgtest.Options{Template: migrations.Up}, &pg))
}

// env is a whole azuld HTTP server (API and pages) over a database of its
// own, with a clock the test can move.
type env struct {
	t    testing.TB
	url  string
	pool *pgxpool.Pool
	svc  *play.Service
	srv  *api.Server
	http *httptest.Server
	// skew is added to the web client's clock (sessions, links).
	skew atomic.Int64
	// logs collects the server's log lines when the notifier delivers.
	logs *syncBuffer
	// relays: mails leave through an SMTP relay (else they go to the
	// log, and the pages say so).
	relays bool
}

// syncBuffer is a log sink the test reads while the server writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// newEnv starts a server; with deliver, the notifier's workers run and
// mails go to the log (no SMTP server configured), else mails are only
// queued.
func newEnv(t testing.TB, deliver bool) *env {
	t.Helper()
	return newEnvWith(t, deliver, nil)
}

// newEnvWith is newEnv with a mailer for the notifier (nil: the log).
func newEnvWith(t testing.TB, deliver bool, mailer notify.Mailer) *env {
	t.Helper()
	return newEnvOpts(t, envOptions{deliver: deliver, mailer: mailer})
}

// newEnvTuned is newEnvWith with changes to the notifier's configuration
// (nil: none).
func newEnvTuned(t testing.TB, deliver bool, mailer notify.Mailer, tune func(*notify.Config)) *env {
	t.Helper()
	return newEnvOpts(t, envOptions{deliver: deliver, mailer: mailer, tune: tune})
}

// envOptions are the settings of a test server.
type envOptions struct {
	deliver bool
	mailer  notify.Mailer
	// tune changes the notifier's configuration (nil: none).
	tune func(*notify.Config)
	// proxies are the trusted proxies (the tests' client is 127.0.0.1).
	proxies []netip.Prefix
	// limits, when set, turns the rate limits on with these rules.
	limits limits.Policy
	// tls serves over TLS.
	tls bool
	// catalogue replaces the embedded message catalogue (the
	// pseudo-locale's).
	catalogue *i18n.Catalogue
}

// newEnvOpts starts a server with options.
func newEnvOpts(t testing.TB, o envOptions) *env {
	t.Helper()
	deliver, mailer, tune := o.deliver, o.mailer, o.tune
	e := &env{t: t, url: pg.NewDatabase(t), logs: &syncBuffer{}, relays: mailer != nil}
	ctx, cancel := context.WithCancel(context.Background())
	pool, err := pgxpool.New(ctx, e.url)
	if err != nil {
		t.Fatal(err)
	}
	e.pool = pool
	log := slog.New(slog.NewJSONHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ncfg := notify.Config{Sender: compose.Sender{Domain: "mail.test", BaseURL: "http://azuld.test"}, Mailer: mailer}
	if deliver {
		ncfg.Workers, ncfg.FetchPollInterval = 1, 50*time.Millisecond
	}
	if tune != nil {
		tune(&ncfg)
	}
	// As in azuld: the turn inbox and the jobs follow from the log. The
	// limits are off unless a test gives their rules.
	acfg := app.Config{
		Pool: pool, DatabaseURL: e.url, Logger: log, Catalogue: o.catalogue, Notify: ncfg,
		Follow: notify.FollowOptions{PollInterval: 10 * time.Millisecond, RetryAfter: 50 * time.Millisecond},
		Limits: limits.Options{Off: o.limits == nil}, Policy: o.limits,
	}
	parts, err := app.New(acfg)
	if err != nil {
		t.Fatal(err)
	}
	e.svc = parts.Service
	if err := parts.Start(ctx); err != nil {
		t.Fatal(err)
	}
	e.srv, err = api.New(api.Config{
		App:            parts,
		WebNow:         func() time.Time { return time.Now().Add(time.Duration(e.skew.Load())) },
		TrustedProxies: o.proxies,
	})
	if err != nil {
		t.Fatal(err)
	}
	if o.tls {
		e.http = httptest.NewTLSServer(e.srv.Handler())
	} else {
		e.http = httptest.NewServer(e.srv.Handler())
	}
	t.Cleanup(func() {
		e.srv.Close()
		e.http.Close()
		sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = parts.Stop(sctx)
		scancel()
		cancel()
		pool.Close()
	})
	return e
}

// browser is one browser: its own cookies, no redirects followed (the
// tests look at them).
type browser struct {
	t      testing.TB
	e      *env
	client *http.Client
	// lang, when set, is the Accept-Language of every request.
	lang string
}

func (e *env) browser() *browser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		e.t.Fatal(err)
	}
	return &browser{t: e.t, e: e, client: &http.Client{
		Jar:           jar,
		Transport:     e.http.Client().Transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// page is a response.
type page struct {
	Status int
	Header http.Header
	Body   string
}

// do sends a request with extra headers ("Name", "value" pairs).
func (b *browser) do(method, path string, body io.Reader, contentType string, headers ...string) page {
	b.t.Helper()
	req, err := http.NewRequest(method, b.e.http.URL+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if b.lang != "" {
		req.Header.Set("Accept-Language", b.lang)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	return page{Status: res.StatusCode, Header: res.Header, Body: string(data)}
}

func (b *browser) get(path string, headers ...string) page {
	b.t.Helper()
	return b.do(http.MethodGet, path, nil, "", headers...)
}

// post sends a form.
func (b *browser) post(path string, form url.Values, headers ...string) page {
	b.t.Helper()
	return b.do(http.MethodPost, path, strings.NewReader(form.Encode()), "application/x-www-form-urlencoded", headers...)
}

// postJSON calls the API with the session cookie.
func (b *browser) postJSON(path, body string, headers ...string) page {
	b.t.Helper()
	return b.do(http.MethodPost, path, strings.NewReader(body), "application/json", headers...)
}

// cookie is the browser's cookie of that name for the server ("" if none).
func (b *browser) cookie(name string) string {
	u, _ := url.Parse(b.e.http.URL)
	for _, c := range b.client.Jar.Cookies(u) {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

func (p page) must(t testing.TB, status int) page {
	t.Helper()
	if p.Status != status {
		t.Fatalf("status %d, want %d:\n%s", p.Status, status, p.Body)
	}
	return p
}

// doc parses the page.
func (p page) doc(t testing.TB) *html.Node {
	t.Helper()
	n, err := html.Parse(strings.NewReader(p.Body))
	if err != nil {
		t.Fatalf("not HTML: %v", err)
	}
	return n
}

// find returns the elements matching pred, in document order.
func find(n *html.Node, pred func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && pred(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// hasClass reports whether n has the class.
func hasClass(n *html.Node, class string) bool {
	v, _ := attr(n, "class")
	for _, c := range strings.Fields(v) {
		if c == class {
			return true
		}
	}
	return false
}

// text is the text inside n.
func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// csrf is the page's form token (the first hidden csrf field).
func (p page) csrf(t testing.TB) string {
	t.Helper()
	for _, in := range find(p.doc(t), func(n *html.Node) bool { return n.Data == "input" }) {
		if name, _ := attr(in, "name"); name == "csrf" {
			v, _ := attr(in, "value")
			return v
		}
	}
	t.Fatalf("no csrf field in:\n%s", p.Body)
	return ""
}

// metaCSRF is the token a page gives its scripts.
func (p page) metaCSRF(t testing.TB) string {
	t.Helper()
	for _, m := range find(p.doc(t), func(n *html.Node) bool { return n.Data == "meta" }) {
		if name, _ := attr(m, "name"); name == "csrf-token" {
			v, _ := attr(m, "content")
			return v
		}
	}
	t.Fatalf("no csrf-token meta in:\n%s", p.Body)
	return ""
}

// fieldError is the error shown next to a form field ("" if none): the
// p.field-error inside the element with the field's input.
func (p page) fieldError(t testing.TB, field string) string {
	t.Helper()
	for _, box := range find(p.doc(t), func(n *html.Node) bool { return hasClass(n, "field") || hasClass(n, "seat") }) {
		inputs := find(box, func(n *html.Node) bool {
			name, _ := attr(n, "name")
			return (n.Data == "input" || n.Data == "select") && name == field
		})
		if len(inputs) == 0 {
			continue
		}
		if errs := find(box, func(n *html.Node) bool { return hasClass(n, "field-error") }); len(errs) > 0 {
			return strings.TrimSpace(text(errs[0]))
		}
	}
	return ""
}

// register signs a new player up through the form; the browser is then
// signed in.
func (b *browser) register(name, email string) page {
	b.t.Helper()
	form := b.get("/register").must(b.t, http.StatusOK)
	return b.post("/register", url.Values{"csrf": {form.csrf(b.t)}, "name": {name}, "email": {email}}).must(b.t, http.StatusCreated)
}

// token is the API token a registration page shows once.
func (p page) token(t testing.TB) string {
	t.Helper()
	for _, c := range find(p.doc(t), func(n *html.Node) bool { return hasClass(n, "token") }) {
		if tok := strings.TrimSpace(text(c)); strings.HasPrefix(tok, "azt_") {
			return tok
		}
	}
	t.Fatalf("no token on the page:\n%s", p.Body)
	return ""
}

// count is a number the database answers.
func (e *env) count(query string, args ...any) int {
	e.t.Helper()
	var n int
	if err := e.pool.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// queuedLink is the newest sign-in link queued for an address.
func (e *env) queuedLink(to string) string {
	e.t.Helper()
	var link string
	err := e.pool.QueryRow(context.Background(),
		`SELECT args->>'link' FROM river_job WHERE kind = 'azuld_signin_mail' AND args->>'to' = $1 ORDER BY id DESC LIMIT 1`, to).Scan(&link)
	if err != nil {
		e.t.Fatalf("no sign-in mail queued for %s: %v", to, err)
	}
	return link
}

// linkPath is the path of a link (links name the configured public URL).
func linkPath(t testing.TB, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil || !strings.HasPrefix(u.Path, "/signin/link/") {
		t.Fatalf("not a sign-in link: %q", link)
	}
	return u.Path
}
