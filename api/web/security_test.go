package web_test

import (
	"encoding/json"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/azuld/azuld/limits"
)

// playerID is the signed-in browser's player id (GET /v1/me).
func (b *browser) playerID() string {
	b.t.Helper()
	var me struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(b.get("/v1/me").must(b.t, http.StatusOK).Body), &me); err != nil || me.ID == "" {
		b.t.Fatalf("no player id: %v", err)
	}
	return me.ID
}

// localhost is the tests' client (and proxy) address.
var localhost = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}

// Cookies are HttpOnly and SameSite=Lax always, and Secure, with HSTS
// sent, exactly when the request came over TLS: directly, or through a
// trusted proxy that says https. A stranger's X-Forwarded-Proto is not
// believed.
func TestCookieFlagsAndHSTS(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		opts    envOptions
		proto   string
		wantTLS bool
	}{
		{"plain HTTP", envOptions{}, "", false},
		{"a stranger's header", envOptions{}, "https", false},
		{"a trusted proxy over https", envOptions{proxies: localhost}, "https", true},
		{"a trusted proxy, last hop https", envOptions{proxies: localhost}, "http, https", true},
		{"a trusted proxy over http", envOptions{proxies: localhost}, "http", false},
		{"direct TLS", envOptions{tls: true}, "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnvOpts(t, c.opts)
			b := e.browser()
			form := b.get("/register", "X-Forwarded-Proto", c.proto).must(t, http.StatusOK)
			res := b.post("/register", url.Values{"csrf": {form.csrf(t)}, "name": {"Ana"}, "email": {"ana@example.org"}},
				"X-Forwarded-Proto", c.proto).must(t, http.StatusCreated)
			var session, anon bool
			for _, ck := range append((&http.Response{Header: res.Header}).Cookies(), (&http.Response{Header: form.Header}).Cookies()...) {
				switch ck.Name {
				case "azuld_session":
					session = true
				case "azuld_csrf":
					anon = true
				default:
					continue
				}
				if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Path != "/" || ck.Secure != c.wantTLS {
					t.Errorf("cookie %s, want HttpOnly, SameSite=Lax, Secure=%v", ck.String(), c.wantTLS)
				}
			}
			if !session || !anon {
				t.Fatalf("cookies missing (session %v, form %v): %v %v", session, anon, res.Header["Set-Cookie"], form.Header["Set-Cookie"])
			}
			for _, p := range []page{form, res, b.get("/v1/me", "X-Forwarded-Proto", c.proto), b.get("/healthz", "X-Forwarded-Proto", c.proto)} {
				if got := p.Header.Get("Strict-Transport-Security"); (got != "") != c.wantTLS || (c.wantTLS && !strings.Contains(got, "max-age=")) {
					t.Errorf("Strict-Transport-Security %q, want it sent: %v", got, c.wantTLS)
				}
			}
		})
	}
}

// Signing in always starts a new session: a session id planted before
// (by another site, a shared computer) is never the one after, and the
// session a browser had is ended when it signs in again.
func TestSessionFixation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	reg := e.browser()
	token := reg.register("Ana", "ana@example.org").token(t)
	u := mustURL(t, e.http.URL)

	for _, how := range []string{"token", "link", "register"} {
		b := e.browser()
		planted := strings.Repeat("a", 52)
		b.client.Jar.SetCookies(u, []*http.Cookie{{Name: "azuld_session", Value: planted, Path: "/"}})
		switch how {
		case "token":
			form := b.get("/signin").must(t, http.StatusOK)
			b.post("/signin", url.Values{"csrf": {form.csrf(t)}, "token": {token}}).must(t, http.StatusSeeOther)
		case "link":
			form := b.get("/signin").must(t, http.StatusOK)
			b.post("/signin", url.Values{"csrf": {form.csrf(t)}, "email": {"ana@example.org"}}).must(t, http.StatusOK)
			useLink(t, b, linkPath(t, e.queuedLink("ana@example.org"))).must(t, http.StatusSeeOther)
		case "register":
			b.register("Ana "+how, how+"@example.org")
		}
		after := b.cookie("azuld_session")
		if after == "" || after == planted {
			t.Fatalf("%s: the session cookie after signing in is %q (planted %q)", how, after, planted)
		}
		// The planted id is worth nothing.
		other := e.browser()
		other.client.Jar.SetCookies(u, []*http.Cookie{{Name: "azuld_session", Value: planted, Path: "/"}})
		if res := other.get("/v1/me"); res.Status != http.StatusUnauthorized {
			t.Errorf("%s: the planted session id authenticates: %d %s", how, res.Status, res.Body)
		}
	}

	// Signing in again replaces the session: the old id stops working.
	b := e.browser()
	form := b.get("/signin").must(t, http.StatusOK)
	b.post("/signin", url.Values{"csrf": {form.csrf(t)}, "token": {token}}).must(t, http.StatusSeeOther)
	first := b.cookie("azuld_session")
	page := b.get("/register").must(t, http.StatusOK)
	b.post("/signin", url.Values{"csrf": {page.csrf(t)}, "token": {token}}).must(t, http.StatusSeeOther)
	second := b.cookie("azuld_session")
	if second == first {
		t.Fatal("signing in again kept the session id")
	}
	old := e.browser()
	old.client.Jar.SetCookies(u, []*http.Cookie{{Name: "azuld_session", Value: first, Path: "/"}})
	if res := old.get("/v1/me"); res.Status != http.StatusUnauthorized {
		t.Errorf("the replaced session still authenticates: %d", res.Status)
	}
}

// csrfExempt are the state-changing routes that take no browser session,
// so there is no session for another site to ride: each says what
// authenticates it instead. Every other state-changing route must refuse
// a signed-in browser's request without the right CSRF token.
var csrfExempt = map[string]string{
	"POST /v1/players":       "creates a new account from nothing; needs no identity (limited per client address)",
	"POST /v1/inbound/email": "authenticated by the mail provider's shared secret, never by cookies",
	"POST /v1/mail/stop":     "authenticated by the mail's own stop token (RFC 8058 one-click unsubscribe)",
}

// Every POST, PUT, PATCH and DELETE route, as the router lists them (so a
// new route cannot be forgotten), refuses a signed-in browser's request
// without the CSRF token or with a wrong one (403), and changes nothing.
// Bearer-token calls carry no cookie, so they need no token.
func TestCSRFOnEveryRoute(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ana := e.browser()
	ana.register("Ana", "ana@example.org")
	bea := e.browser()
	beaToken := bea.register("Bea", "bea@example.org").token(t)
	// A game where Ana may move and Bea may join, so every route would
	// otherwise have something to do.
	form := ana.get("/games/new").must(t, http.StatusOK)
	res := ana.post("/games/new", url.Values{
		"csrf": {form.csrf(t)}, "key": {"k1"}, "ruleset": {"summer-pavilion"}, "seats": {"3"},
		"seat0": {"me"}, "seat1": {"open"}, "seat2": {"bot"}, "seat2_bot": {"random"},
	}).must(t, http.StatusSeeOther)
	gameID := strings.TrimPrefix(res.Header.Get("Location"), "/games/")

	snapshot := func() string {
		var b strings.Builder
		for _, table := range []string{"events", "players", "games", "game_seats", "web_sessions", "signin_links", "webhooks", "mail_stops"} {
			b.WriteString(table + "=" + strconv.Itoa(e.count(`SELECT count(*) FROM `+table)) + " ")
		}
		return b.String()
	}
	param := regexp.MustCompile(`\{[a-z_]+\}`)
	before := snapshot()
	tested := 0
	for _, route := range e.srv.Routes() {
		method, path, _ := strings.Cut(route, " ")
		switch method {
		case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		default:
			continue
		}
		if why, ok := csrfExempt[route]; ok {
			t.Logf("%s: no session to ride: %s", route, why)
			continue
		}
		tested++
		concrete := param.ReplaceAllStringFunc(path, func(p string) string {
			switch p {
			case "{id}":
				if strings.HasPrefix(path, "/v1/webhooks") {
					return uuid.NewString()
				}
				return gameID
			case "{token}":
				return strings.Repeat("t", 52)
			case "{tid}":
				return "1" // a take-back is named by its request's version
			}
			return uuid.NewString()
		})
		for name, headers := range map[string][]string{
			"no token":    nil,
			"wrong token": {"X-CSRF-Token", strings.Repeat("y", 52)},
		} {
			var got page
			if strings.HasPrefix(path, "/v1/") {
				got = ana.do(method, concrete, strings.NewReader(`{}`), "application/json", headers...)
			} else {
				v := url.Values{"key": {"k2"}, "seats": {"2"}, "seat0": {"me"}, "seat1": {"open"}, "email": {"ana@example.org"}, "name": {"Eve"}}
				if headers != nil {
					v.Set("csrf", headers[1])
				}
				got = ana.do(method, concrete, strings.NewReader(v.Encode()), "application/x-www-form-urlencoded")
			}
			if got.Status != http.StatusForbidden || !strings.Contains(got.Body, "CSRF") {
				t.Errorf("%s %s with %s: status %d, want 403 naming CSRF:\n%.300s", method, concrete, name, got.Status, got.Body)
			}
		}
	}
	if tested < 10 {
		t.Fatalf("only %d state-changing routes tested: is the router's list read?", tested)
	}
	if after := snapshot(); after != before {
		t.Fatalf("refused requests changed the database:\nbefore %s\nafter  %s", before, after)
	}
	// The same requests with the token do go through (so the refusals
	// above were the token's doing), and a bearer token needs none.
	table := ana.get("/games/"+gameID).must(t, http.StatusOK)
	ana.postJSON("/v1/webhooks", `{"url":"https://example.org/hook"}`, "X-CSRF-Token", table.metaCSRF(t)).must(t, http.StatusCreated)
	req, _ := http.NewRequest(http.MethodPost, e.http.URL+"/v1/games/"+gameID+"/join", nil)
	req.Header.Set("Authorization", "Bearer "+beaToken)
	r, err := e.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusOK && r.StatusCode != http.StatusCreated {
		t.Fatalf("a bearer call without a CSRF token: status %d", r.StatusCode)
	}
}

// No parameter sends a browser elsewhere: every redirect azuld answers
// is to a path of its own, whatever next, return or redirect says.
func TestNoOpenRedirect(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	reg := e.browser()
	token := reg.register("Ana", "ana@example.org").token(t)
	evil := []string{"//evil.example", "https://evil.example", `/\evil.example`, "/%2F%2Fevil.example", "javascript:alert(1)"}
	local := func(loc string) bool {
		return loc == "" || (strings.HasPrefix(loc, "/") && !strings.HasPrefix(loc, "//") && !strings.HasPrefix(loc, `/\`))
	}
	for _, target := range evil {
		q := url.Values{"next": {target}, "return": {target}, "redirect": {target}, "return_to": {target}, "url": {target}}.Encode()
		b := e.browser()
		for _, path := range []string{"/signin?" + q, "/register?" + q, "/games/new?" + q, "/?" + q, "/language?lang=de&" + q} {
			if loc := b.get(path).Header.Get("Location"); !local(loc) {
				t.Errorf("GET %s redirects to %q", path, loc)
			}
		}
		form := b.get("/signin").must(t, http.StatusOK)
		res := b.post("/signin?"+q, url.Values{"csrf": {form.csrf(t)}, "token": {token}, "next": {target}, "return": {target}})
		if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/" {
			t.Errorf("sign-in with next=%s: %d to %q", target, res.Status, res.Header.Get("Location"))
		}
		page := b.get("/games/new").must(t, http.StatusOK)
		res = b.post("/signout?"+q, url.Values{"csrf": {page.csrf(t)}, "next": {target}})
		if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/" {
			t.Errorf("sign-out with next=%s: %d to %q", target, res.Status, res.Header.Get("Location"))
		}
	}
}

// Nothing tells a stranger whether an address is registered: asking for
// a sign-in link, registering and naming a player in the create-game form
// answer alike for a registered address and for any other.
func TestNoAccountEnumeration(t *testing.T) {
	t.Parallel()
	e := newEnvOpts(t, envOptions{limits: limits.DefaultPolicy()})
	e.browser().register("Bea", "bea@example.org")
	ana := e.browser()
	ana.register("Ana", "ana@example.org")

	// The sign-in form: the same status and the same page, but for the
	// address quoted back.
	ask := func(email string) page {
		b := e.browser()
		form := b.get("/signin").must(t, http.StatusOK)
		return b.post("/signin", url.Values{"csrf": {form.csrf(t)}, "email": {email}})
	}
	norm := func(p page, email string) string {
		body := strings.ReplaceAll(p.Body, email, "ADDRESS")
		return regexp.MustCompile(`(value|content)="[a-z0-9]{52}"`).ReplaceAllString(body, `$1="TOKEN"`)
	}
	known, unknown := ask("bea@example.org"), ask("nobody@example.org")
	if known.Status != unknown.Status || norm(known, "bea@example.org") != norm(unknown, "nobody@example.org") {
		t.Errorf("sign-in answers differ: %d vs %d\n%s\n---\n%s", known.Status, unknown.Status, known.Body, unknown.Body)
	}

	// An address has one account, so registering with a taken one is
	// refused, and says so. Each try counts against the registration
	// limit like a registration, so a stranger learns one address per
	// registration allowed, and past the limit nothing at all.
	e.browser().register("Cy", "cy@example.org")
	taken := e.registerForm("Bea Two", "bea@example.org").must(t, http.StatusBadRequest)
	if msg := taken.fieldError(t, "email"); !strings.Contains(msg, "belongs to an account here already") {
		t.Errorf("a taken address: %q", msg)
	}
	e.browser().register("Dee", "dee@example.org") // the limit's fifth
	if a, b := e.registerForm("Bea Two", "bea@example.org").Status, e.registerForm("Eve", "eve@example.org").Status; a != http.StatusTooManyRequests || b != a {
		t.Errorf("past the registration limit, a taken address: %d, a new one: %d", a, b)
	}

	// The create-game form finds by name or address only players Ana
	// shares a game with: Bea, registered, reads like nobody at all.
	seat := func(who string) string {
		form := ana.get("/games/new").must(t, http.StatusOK)
		res := ana.post("/games/new", url.Values{"csrf": {form.csrf(t)}, "key": {uuid.NewString()}, "ruleset": {"summer-pavilion"},
			"seats": {"2"}, "seat0": {"me"}, "seat1": {"player"}, "seat1_player": {who}}).must(t, http.StatusBadRequest)
		return strings.ReplaceAll(res.fieldError(t, "seat1"), who, "WHO")
	}
	for _, pair := range [][2]string{{"bea@example.org", "nobody@example.org"}, {"Bea", "Nobody"}} {
		if a, b := seat(pair[0]), seat(pair[1]); a != b || a == "" {
			t.Errorf("the form tells %q from %q: %q vs %q", pair[0], pair[1], a, b)
		}
	}
	if n := e.countGames(); n != 0 {
		t.Fatalf("%d games created", n)
	}
}

// The forms' limits answer 429 with Retry-After and a page that says what
// was limited and when to try again, and the limited request changes
// nothing.
func TestFormsAreRateLimited(t *testing.T) {
	t.Parallel()
	policy := limits.DefaultPolicy()
	for name, v := range map[string]string{limits.Registrations: "2/h", limits.SigninLinksTo: "1/h", limits.FailedTokens: "3/h", limits.Games: "1/h"} {
		r, _, err := limits.ParseRule(name, v)
		if err != nil {
			t.Fatal(err)
		}
		r.Fast = policy[name].Fast
		policy[name] = r
	}
	e := newEnvOpts(t, envOptions{limits: policy})
	limited := func(p page, what string) {
		t.Helper()
		if p.Status != http.StatusTooManyRequests {
			t.Fatalf("status %d, want 429:\n%s", p.Status, p.Body)
		}
		secs, err := strconv.Atoi(p.Header.Get("Retry-After"))
		if err != nil || secs < 1 || secs > 3600 {
			t.Errorf("Retry-After %q", p.Header.Get("Retry-After"))
		}
		if !strings.Contains(p.Body, "Too many "+what) || !strings.Contains(p.Body, "try again in") || !strings.Contains(p.Header.Get("Content-Type"), "text/html") {
			t.Errorf("the page does not say what was limited (%q) and when:\n%s", what, p.Body)
		}
	}

	// Registrations per client address.
	ana := e.browser()
	token := ana.register("Ana", "ana@example.org").token(t)
	e.browser().register("Bea", "bea@example.org")
	b := e.browser()
	form := b.get("/register").must(t, http.StatusOK)
	limited(b.post("/register", url.Values{"csrf": {form.csrf(t)}, "name": {"Cy"}, "email": {"cy@example.org"}}), "registrations")
	if n := e.count(`SELECT count(*) FROM players`); n != 2 {
		t.Fatalf("%d players after a limited registration", n)
	}

	// Sign-in links per target address, registered or not.
	for _, email := range []string{"ana@example.org", "nobody@example.org"} {
		b := e.browser()
		form := b.get("/signin").must(t, http.StatusOK)
		b.post("/signin", url.Values{"csrf": {form.csrf(t)}, "email": {email}}).must(t, http.StatusOK)
		form = b.get("/signin").must(t, http.StatusOK)
		limited(b.post("/signin", url.Values{"csrf": {form.csrf(t)}, "email": {strings.ToUpper(email)}}), "sign-in links asked for this address")
	}
	if n := e.count(`SELECT count(*) FROM signin_links`); n != 1 {
		t.Fatalf("%d sign-in links, want the first one only", n)
	}

	// Failed tokens: wrong tokens and unknown links count; past the limit
	// even the right token is refused.
	b = e.browser()
	for i := range 3 {
		form := b.get("/signin").must(t, http.StatusOK)
		if i == 2 {
			form = b.get("/signin/link/"+strings.Repeat("x", 52)).must(t, http.StatusOK)
			b.post("/signin/link/"+strings.Repeat("x", 52), url.Values{"csrf": {form.csrf(t)}}).must(t, http.StatusGone)
			continue
		}
		b.post("/signin", url.Values{"csrf": {form.csrf(t)}, "token": {"azt_wrong" + strconv.Itoa(i)}}).must(t, http.StatusUnauthorized)
	}
	form = b.get("/signin").must(t, http.StatusOK)
	limited(b.post("/signin", url.Values{"csrf": {form.csrf(t)}, "token": {token}}), "wrong tokens from your address")
	if b.cookie("azuld_session") != "" {
		t.Fatal("a limited sign-in started a session")
	}
	// The API answers alike, with a problem.
	req, _ := http.NewRequest(http.MethodGet, e.http.URL+"/v1/me", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	r, err := e.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" {
		t.Errorf("the API with the right token past the failed token limit: %d, Retry-After %q", r.StatusCode, r.Header.Get("Retry-After"))
	}

	// Games created per account, through the form.
	newGame := func() page {
		form := ana.get("/games/new").must(t, http.StatusOK)
		return ana.post("/games/new", url.Values{"csrf": {form.csrf(t)}, "key": {uuid.NewString()}, "ruleset": {"summer-pavilion"},
			"seats": {"2"}, "seat0": {"me"}, "seat1": {"open"}})
	}
	newGame().must(t, http.StatusSeeOther)
	limited(newGame(), "games created by this account")
	if n := e.countGames(); n != 1 {
		t.Fatalf("%d games after a limited creation", n)
	}
}
