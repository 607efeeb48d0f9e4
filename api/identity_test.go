package api

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// postPlayer posts a registration.
func (env *testEnv) postPlayer(t testing.TB, name, email string) response {
	t.Helper()
	return env.anonymous(t).call(http.MethodPost, "/v1/players", map[string]string{"name": name, "email": email})
}

// refused checks a 400 problem that says what is wrong (its about is the
// input's code) and that no player was added.
func (env *testEnv) refused(t *testing.T, res response, code string, players int) {
	t.Helper()
	p := res.mustStatus(t, http.StatusBadRequest).problem(t)
	want := env.srv.cat.Localizer("en", nil).T("api.input." + code)
	if p.Type != ProblemInvalidRequest || p.Detail != want {
		t.Fatalf("problem %+v, want %s saying %q", p, ProblemInvalidRequest, want)
	}
	if got := env.countOf(t, `SELECT count(*) FROM players`); got != players {
		t.Fatalf("%d players after a refusal, want %d", got, players)
	}
}

// One account per address, whatever its case: a second registration is
// refused with a clear problem, over the API and by a profile change.
func TestOneAccountPerAddressOverTheAPI(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	env.postPlayer(t, "Carl", "carl@example.org").mustStatus(t, http.StatusCreated)
	for _, email := range []string{"carl@example.org", "CARL@example.org", "Carl@Example.ORG", " carl@example.org "} {
		res := env.postPlayer(t, "Mallory", email)
		env.refused(t, res, "email_taken", 1)
	}
	dana := env.register(t, "Dana")
	res := dana.call(http.MethodPatch, "/v1/me", map[string]string{"email": "CARL@EXAMPLE.ORG"})
	env.refused(t, res, "email_taken", 2)
	if p := dana.profile(); p.Email != "dana@example.org" {
		t.Fatalf("the refused change changed the address to %q", p.Email)
	}
	// One's own address in another case is no conflict.
	dana.call(http.MethodPatch, "/v1/me", map[string]string{"email": "Dana@example.org"}).mustStatus(t, http.StatusOK)
}

// Names that are links or addresses are refused at registration and at a
// profile change; ordinary names, with dots too, are not.
func TestNamesAreNotLinks(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana := env.register(t, "Ana")
	bad := []string{
		"Claim prize at http://evil.example/win",
		"https://evil.example",
		"visit www.evil",
		"evil.example/win",
		"Hello Claim prize at evil.example/win",
		"go to evil.com now",
		"evil.co.uk",
		"evil.example:8080",
		"mail ana@evil.example",
		"evil．com", // a full-width full stop
		"HTTP://EVIL",
	}
	for _, name := range bad {
		res := env.postPlayer(t, name, "")
		env.refused(t, res, "name_link", 1)
		res = ana.call(http.MethodPatch, "/v1/me", map[string]string{"name": name})
		env.refused(t, res, "name_link", 1)
	}
	if p := ana.profile(); p.Name != "Ana" {
		t.Fatalf("a refused name was stored: %q", p.Name)
	}
	for _, name := range []string{"J.R.R. Tolkien", "Ana-Maria", "Anna.Maria", "Bot 3.5", "Dr. Who"} {
		env.postPlayer(t, name, "").mustStatus(t, http.StatusCreated)
	}
}

// The server's own mail domain (its mailboxes come back to azuld) and
// its sender are nobody's address.
func TestOwnMailDomainIsNoPlayersAddress(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana := env.register(t, "Ana")
	for _, email := range []string{"postmaster@mail.test", "bounce+abc@mail.test", "play+abc@MAIL.TEST", "azuld@mail.test", "x@sub.mail.test"} {
		env.refused(t, env.postPlayer(t, "Mallory", email), "email_reserved", 1)
		env.refused(t, ana.call(http.MethodPatch, "/v1/me", map[string]string{"email": email}), "email_reserved", 1)
	}
	env.postPlayer(t, "Bo", "bo@notmail.test").mustStatus(t, http.StatusCreated)
}

// Webhooks to the server's own networks are refused at registration
// (they would never be called): loopback, private, link-local,
// unique-local, unspecified and multicast addresses, and names that
// resolve to them. Nothing is stored.
func TestWebhooksToInternalAddressesAreRefused(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana := env.register(t, "Ana")
	want := env.srv.cat.Localizer("en", nil).T("api.detail.webhook_private")
	for _, u := range []string{
		"http://127.0.0.1/hook", "http://127.0.0.1:8080/hook", "https://[::1]/hook",
		"http://10.1.2.3/hook", "http://192.168.0.10/hook", "http://172.16.0.1/hook",
		"http://169.254.169.254/latest/meta-data", "http://[fe80::1]/hook",
		"http://[fc00::1]/hook", "http://[fd12:3456::1]/hook",
		"http://0.0.0.0/hook", "http://[::]/hook", "http://224.0.0.1/hook", "http://100.64.0.1/hook",
		"http://[::ffff:127.0.0.1]/hook",
		"http://localhost/hook", "http://LOCALHOST./hook", "http://bot.localhost/hook",
	} {
		p := ana.call(http.MethodPost, "/v1/webhooks", map[string]string{"url": u}).mustStatus(t, http.StatusBadRequest).problem(t)
		if p.Detail != want {
			t.Errorf("%s: %q, want %q", u, p.Detail, want)
		}
	}
	if n := env.countOf(t, `SELECT count(*) FROM webhooks`); n != 0 {
		t.Fatalf("%d webhooks stored", n)
	}
	ana.call(http.MethodPost, "/v1/webhooks", map[string]string{"url": "https://203.0.113.7/hook"}).mustStatus(t, http.StatusCreated)
}

// The request log holds no secret of a path or a query: stop links,
// sign-in links, invitations (a route to come, redacted by its prefix
// and then by its parameter's name), and the inbound webhook's seat
// addresses.
func TestRequestLogHoldsNoSecret(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	env := newTestEnvAt(t, pg.ServerRoleURL(t, pg.NewDatabase(t)), 0, func(c *setup) {
		c.app.Logger = slog.New(slog.NewJSONHandler(&buf, nil))
	})
	anon := env.anonymous(t)
	const secret = "s3cr3tt0k3nvalue"
	for _, req := range [][2]string{
		{http.MethodGet, "/v1/mail/stop?token=" + secret},
		{http.MethodPost, "/v1/mail/stop?token=" + secret},
		{http.MethodGet, "/signin/link/" + secret},
		{http.MethodPost, "/signin/link/" + secret},
		{http.MethodGet, "/invite/" + secret},
		{http.MethodGet, "/signin/link/" + secret + "/more"},
		{http.MethodPost, "/v1/inbound/email?to=play+" + secret + "@mail.test"},
	} {
		anon.call(req[0], req[1], nil)
	}
	log := buf.String()
	if strings.Contains(log, secret) {
		t.Fatalf("a secret in the request log:\n%s", log)
	}
	if n := strings.Count(log, `"msg":"request"`); n != 7 {
		t.Fatalf("%d request lines, want 7:\n%s", n, log)
	}
}

// syncBuffer is a log sink written by the server's goroutines.
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
