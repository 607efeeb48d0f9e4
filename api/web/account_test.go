package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/azuld/azuld/account"
)

const firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"

// signinWithToken signs a browser in with an API token, as a given
// browser.
func (b *browser) signinWithToken(token, userAgent string) {
	b.t.Helper()
	form := b.get("/signin").must(b.t, http.StatusOK)
	b.post("/signin", url.Values{"csrf": {form.csrf(b.t)}, "token": {token}}, "User-Agent", userAgent).must(b.t, http.StatusSeeOther)
}

// formCSRF is the csrf field of the form posting to action (fails when
// the page has no such form).
func (p page) formCSRF(t testing.TB, action string) string {
	t.Helper()
	for _, f := range find(p.doc(t), func(n *html.Node) bool { return n.Data == "form" }) {
		if a, _ := attr(f, "action"); a == action {
			for _, in := range find(f, func(n *html.Node) bool { return n.Data == "input" }) {
				if name, _ := attr(in, "name"); name == "csrf" {
					v, _ := attr(in, "value")
					return v
				}
			}
		}
	}
	t.Fatalf("no form posting to %s with a csrf field in:\n%s", action, p.Body)
	return ""
}

// apiSessions lists the sessions through the API with the browser's
// cookie.
func (b *browser) apiSessions() []account.Session {
	b.t.Helper()
	res := b.get("/v1/me/sessions").must(b.t, http.StatusOK)
	var out struct {
		Sessions []account.Session `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(res.Body), &out); err != nil {
		b.t.Fatal(err)
	}
	return out.Sessions
}

func TestAccountPageProfile(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	b := e.browser()
	b.register("Ana", "ana@example.org")

	lobby := b.get("/").must(t, http.StatusOK)
	if !strings.Contains(lobby.Body, `<a href="/account">Account</a>`) {
		t.Fatal("the header does not link the account page")
	}
	pg := b.get("/account").must(t, http.StatusOK)
	for _, want := range []string{`value="Ana"`, `value="ana@example.org"`, `<option value="en" selected>`, `value="UTC"`, `href="/account/delete"`, "Delete my account…"} {
		if !strings.Contains(pg.Body, want) {
			t.Errorf("the account page lacks %q", want)
		}
	}
	// A visitor is sent to sign in.
	if res := e.browser().get("/account").must(t, http.StatusSeeOther); res.Header.Get("Location") != "/signin" {
		t.Fatalf("a visitor is sent to %q", res.Header.Get("Location"))
	}

	csrf := pg.formCSRF(t, "/account/profile")
	good := url.Values{"csrf": {csrf}, "name": {"Ana B"}, "email": {"ana@example.org"}, "language": {"de"}, "time_zone": {"Europe/Berlin"}}

	// A bad field: the form again with the error and what was sent;
	// nothing saved, not even the good fields.
	bad := url.Values{}
	for k, v := range good {
		bad[k] = v
	}
	bad.Set("time_zone", "Europe/Atlantis")
	res := b.post("/account/profile", bad).must(t, http.StatusBadRequest)
	if !strings.Contains(res.Body, "Europe/Atlantis") || !strings.Contains(res.Body, "not a known IANA time zone") {
		t.Fatalf("the refusal does not say why:\n%s", res.Body)
	}
	if n := e.count(`SELECT count(*) FROM players WHERE name = 'Ana' AND language = 'en' AND time_zone = 'UTC'`); n != 1 {
		t.Fatal("a refused form changed the profile")
	}
	// Without the session's CSRF token: refused, nothing saved.
	forged := url.Values{}
	for k, v := range good {
		forged[k] = v
	}
	forged.Set("csrf", "forged")
	b.post("/account/profile", forged).must(t, http.StatusForbidden)
	if n := e.count(`SELECT count(*) FROM players WHERE name = 'Ana'`); n != 1 {
		t.Fatal("a forged form changed the profile")
	}

	// The account is now German: so is the page that says it was saved.
	res = b.post("/account/profile", good).must(t, http.StatusOK)
	if !strings.Contains(res.Body, "Gespeichert.") || !strings.Contains(res.Body, "Angemeldet als <strong>Ana B</strong>") || !strings.Contains(res.Body, `<html lang="de">`) {
		t.Fatalf("after saving:\n%s", res.Body)
	}
	if n := e.count(`SELECT count(*) FROM players WHERE name = 'Ana B' AND language = 'de' AND time_zone = 'Europe/Berlin'`); n != 1 {
		t.Fatal("the profile was not saved")
	}

	// A new address gets a link, which signs in like any sign-in link.
	good.Set("email", "ana.b@example.org")
	res = b.post("/account/profile", good).must(t, http.StatusOK)
	if !strings.Contains(res.Body, "Der Link zur Bestätigung von ana.b@example.org steht im Terminal, in dem azuld läuft") {
		t.Fatalf("no word of the confirmation link:\n%s", res.Body)
	}
	link := linkPath(t, e.queuedLink("ana.b@example.org"))
	other := e.browser()
	lf := other.get(link).must(t, http.StatusOK)
	other.post(link, url.Values{"csrf": {lf.csrf(t)}, "token": {strings.TrimPrefix(link, "/signin/link/")}}).must(t, http.StatusSeeOther)
	if !strings.Contains(other.get("/").Body, "Angemeldet als <strong>Ana B</strong>") {
		t.Fatal("the confirmation link did not sign in")
	}
}

func TestAccountPageTokens(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	b := e.browser()
	b.register("Ana", "ana@example.org")
	pg := b.get("/account").must(t, http.StatusOK)
	if !strings.Contains(pg.Body, "<td>registration</td>") {
		t.Fatalf("registration's token is not listed:\n%s", pg.Body)
	}
	csrf := pg.formCSRF(t, "/account/tokens")

	res := b.post("/account/tokens", url.Values{"csrf": {csrf}, "name": {strings.Repeat("x", 65)}}).must(t, http.StatusBadRequest)
	if msg := res.fieldError(t, "name"); !strings.Contains(msg, "1 to 64 characters") {
		t.Fatalf("token name error %q", msg)
	}
	b.post("/account/tokens", url.Values{"csrf": {"nope"}, "name": {"laptop"}}).must(t, http.StatusForbidden)
	if n := e.count(`SELECT count(*) FROM api_tokens`); n != 1 {
		t.Fatalf("%d tokens after refused forms, want 1", n)
	}

	res = b.post("/account/tokens", url.Values{"csrf": {csrf}, "name": {"laptop"}}).must(t, http.StatusCreated)
	secret := res.token(t)
	api := e.browser()
	me := api.get("/v1/me", "Authorization", "Bearer "+secret).must(t, http.StatusOK)
	if !strings.Contains(me.Body, `"name":"Ana"`) {
		t.Fatalf("the new token is not Ana's: %s", me.Body)
	}
	// Shown once: the page after it lists the name only.
	pg = b.get("/account").must(t, http.StatusOK)
	if strings.Contains(pg.Body, secret) || !strings.Contains(pg.Body, "<td>laptop</td>") {
		t.Fatal("the listing shows the secret, or not the token")
	}

	var id string
	if err := e.pool.QueryRow(t.Context(), `SELECT id::text FROM api_tokens WHERE name = 'laptop'`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	b.post("/account/tokens/"+id+"/revoke", url.Values{"csrf": {"nope"}}).must(t, http.StatusForbidden)
	api.get("/v1/me", "Authorization", "Bearer "+secret).must(t, http.StatusOK)
	b.post("/account/tokens/"+id+"/revoke", url.Values{"csrf": {csrf}}).must(t, http.StatusSeeOther)
	api.get("/v1/me", "Authorization", "Bearer "+secret).must(t, http.StatusUnauthorized)
	b.post("/account/tokens/"+id+"/revoke", url.Values{"csrf": {csrf}}).must(t, http.StatusNotFound)
}

func TestAccountSessions(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	first := e.browser()
	token := first.register("Ana", "ana@example.org").token(t)
	second := e.browser()
	second.signinWithToken(token, firefox)
	third := e.browser()
	third.signinWithToken(token, "")

	list := second.apiSessions()
	if len(list) != 3 {
		t.Fatalf("%d sessions listed, want 3: %+v", len(list), list)
	}
	var current []account.Session
	for _, s := range list {
		if s.Current {
			current = append(current, s)
		}
	}
	if len(current) != 1 || current[0].Device != "Firefox on Linux" {
		t.Fatalf("the current session is not the Firefox one: %+v", list)
	}
	if strings.Contains(second.get("/v1/me/sessions").Body, second.cookie("azuld_session")) {
		t.Fatal("the listing shows a session's secret")
	}
	// With a token, no session is current.
	res := e.browser().get("/v1/me/sessions", "Authorization", "Bearer "+token).must(t, http.StatusOK)
	if strings.Contains(res.Body, `"current":true`) {
		t.Fatalf("a token's listing marks a session current: %s", res.Body)
	}

	// The API ends a session only with the CSRF header of the cookie's
	// session.
	pg := second.get("/account").must(t, http.StatusOK)
	if !strings.Contains(pg.Body, "Firefox on Linux <strong>(this browser)</strong>") {
		t.Fatalf("the page does not mark this browser:\n%s", pg.Body)
	}
	var thirdID string
	for _, s := range list {
		if !s.Current {
			thirdID = s.ID // any session but this browser's
		}
	}
	second.do(http.MethodDelete, "/v1/me/sessions/"+thirdID, nil, "").must(t, http.StatusForbidden)
	if n := len(second.apiSessions()); n != 3 {
		t.Fatalf("a refused DELETE ended a session: %d left", n)
	}
	second.do(http.MethodDelete, "/v1/me/sessions/"+thirdID, nil, "", "X-CSRF-Token", pg.metaCSRF(t)).must(t, http.StatusNoContent)
	second.do(http.MethodDelete, "/v1/me/sessions/"+thirdID, nil, "", "X-CSRF-Token", pg.metaCSRF(t)).must(t, http.StatusNotFound)
	second.do(http.MethodDelete, "/v1/me/sessions/not-an-id", nil, "", "X-CSRF-Token", pg.metaCSRF(t)).must(t, http.StatusNotFound)
	if n := len(second.apiSessions()); n != 2 {
		t.Fatalf("%d sessions after ending one, want 2", n)
	}

	// Everywhere else: the other browsers are signed out, this one stays.
	second.post("/account/sessions/end-others", url.Values{"csrf": {"nope"}}).must(t, http.StatusForbidden)
	second.post("/account/sessions/end-others", url.Values{"csrf": {pg.formCSRF(t, "/account/sessions/end-others")}}).must(t, http.StatusSeeOther)
	for _, b := range []*browser{first, third} {
		if strings.Contains(b.get("/").Body, "Signed in as") {
			t.Fatal("another browser is still signed in")
		}
	}
	list = second.apiSessions()
	if len(list) != 1 || !list[0].Current {
		t.Fatalf("sessions after ending the others: %+v", list)
	}
	// Ending one's own session signs this browser out.
	second.post("/account/sessions/"+list[0].ID+"/end", url.Values{"csrf": {pg.formCSRF(t, "/account/sessions/"+list[0].ID+"/end")}}).must(t, http.StatusSeeOther)
	if strings.Contains(second.get("/").Body, "Signed in as") {
		t.Fatal("still signed in after ending the session")
	}
}

// A session's last_seen_at follows its use, coarsely: a page view writes
// it only when it is older than account.SeenEvery.
func TestSessionLastSeen(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	b := e.browser()
	b.register("Ana", "ana@example.org")
	seen := func() int64 {
		return int64(e.count(`SELECT extract(epoch FROM last_seen_at - created_at)::int FROM web_sessions`))
	}
	if s := seen(); s != 0 {
		t.Fatalf("a new session seen %ds after its start", s)
	}
	e.skew.Store(int64(account.SeenEvery / 2))
	b.get("/").must(t, http.StatusOK)
	if s := seen(); s != 0 {
		t.Fatalf("a page view within %v was written (%ds)", account.SeenEvery, s)
	}
	e.skew.Store(int64(account.SeenEvery * 2))
	b.get("/").must(t, http.StatusOK)
	if s := seen(); s < int64((account.SeenEvery*2).Seconds())-1 {
		t.Fatalf("a page view after %v was not written (%ds)", account.SeenEvery*2, s)
	}
}
