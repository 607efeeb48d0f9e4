package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/azuld/azuld/api/web"
)

// askLink asks for a sign-in link for an address from a fresh browser.
func askLink(t *testing.T, e *env, email string) *browser {
	t.Helper()
	b := e.browser()
	form := b.get("/signin").must(t, http.StatusOK)
	res := b.post("/signin", url.Values{"csrf": {form.csrf(t)}, "email": {email}}).must(t, http.StatusOK)
	// With a relay the link is mailed; without, the page says where it
	// went instead.
	want := "its sign-in link was printed on the terminal azuld runs in"
	if e.relays {
		want = "a sign-in link is on its way"
	}
	if !strings.Contains(res.Body, want) {
		t.Fatalf("no confirmation %q:\n%s", want, res.Body)
	}
	return b
}

// useLink opens the link page and presses its button.
func useLink(t *testing.T, b *browser, path string) page {
	t.Helper()
	form := b.get(path).must(t, http.StatusOK)
	return b.post(path, url.Values{"csrf": {form.csrf(t)}})
}

// A mailed link signs in once: the second use, from the same or another
// browser, is refused and starts no session.
func TestSigninLinkWorksOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	e.browser().register("Ana", "ana@example.org")
	b := askLink(t, e, "ana@example.org")
	path := linkPath(t, e.queuedLink("ana@example.org"))

	// Opening the link uses nothing up: a mail scanner may open it.
	e.browser().get(path).must(t, http.StatusOK)
	res := useLink(t, b, path).must(t, http.StatusSeeOther)
	// The first link followed confirms the address, and the lobby says
	// so.
	if loc := res.Header.Get("Location"); loc != "/?confirmed=1" {
		t.Fatalf("redirect to %q", loc)
	}
	lobby := b.get("/").must(t, http.StatusOK)
	if !strings.Contains(lobby.Body, "Signed in as <strong>Ana</strong>") || !strings.Contains(lobby.Body, "Your games") {
		t.Fatalf("not signed in:\n%s", lobby.Body)
	}

	for _, again := range []*browser{b, e.browser()} {
		res := useLink(t, again, path).must(t, http.StatusGone)
		if !strings.Contains(res.Body, "used up, expired or unknown") {
			t.Fatalf("no explanation:\n%s", res.Body)
		}
	}
	other := e.browser()
	useLink(t, other, path).must(t, http.StatusGone)
	if other.cookie("azuld_session") != "" {
		t.Fatal("a used link set a session cookie")
	}
	if strings.Contains(other.get("/").Body, "Signed in as") {
		t.Fatal("a used link signed a browser in")
	}
	if n := e.count(`SELECT count(*) FROM web_sessions`); n != 2 { // the registration's and the link's
		t.Fatalf("%d sessions, want 2", n)
	}
}

// A link is refused after its lifetime; an unknown address gets the same
// answer as a known one and no mail.
func TestSigninLinkExpires(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	e.browser().register("Ana", "ana@example.org")
	b := askLink(t, e, "ana@example.org")
	path := linkPath(t, e.queuedLink("ana@example.org"))
	form := b.get(path).must(t, http.StatusOK)
	e.skew.Store(int64(web.DefaultLinkTTL + time.Second))
	b.post(path, url.Values{"csrf": {form.csrf(t)}}).must(t, http.StatusGone)
	if b.cookie("azuld_session") != "" {
		t.Fatal("an expired link set a session cookie")
	}
	e.skew.Store(0)
	// A made-up link is refused like a spent one.
	useLink(t, e.browser(), "/signin/link/"+strings.Repeat("a", 52)).must(t, http.StatusGone)

	// Asking again and again mails at most three links at a time.
	for range 4 {
		askLink(t, e, "ana@example.org")
	}
	if n := e.count(`SELECT count(*) FROM signin_links WHERE used_at IS NULL AND expires_at > now()`); n != 3 {
		t.Fatalf("%d links waiting, want 3", n)
	}

	askLink(t, e, "nobody@example.org")
	if n := e.count(`SELECT count(*) FROM river_job WHERE kind = 'azuld_signin_mail' AND args->>'to' = 'nobody@example.org'`); n != 0 {
		t.Fatalf("%d mails to an unknown address", n)
	}
}

// Without an SMTP server the sign-in mail goes to the log, and the link
// is there, usable, on a line of its own.
func TestSigninLinkInTheLog(t *testing.T) {
	t.Parallel()
	e := newEnv(t, true)
	e.browser().register("Ana", "ana@example.org")
	b := askLink(t, e, "ana@example.org")
	var link string
	deadline := time.Now().Add(20 * time.Second)
	for link == "" && time.Now().Before(deadline) {
		for _, line := range strings.Split(e.logs.String(), "\n") {
			var rec struct {
				Msg  string `json:"msg"`
				Link string `json:"link"`
				To   string `json:"to"`
			}
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "sign-in link" && rec.To == "ana@example.org" {
				link = rec.Link
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if link == "" {
		t.Fatalf("no sign-in link in the log:\n%s", e.logs.String())
	}
	if !strings.Contains(e.logs.String(), "azuld =E2=80=94 your sign-in link") && !strings.Contains(e.logs.String(), "your sign-in link") {
		t.Fatal("the mail itself is not in the log")
	}
	useLink(t, b, linkPath(t, link)).must(t, http.StatusSeeOther)
	if !strings.Contains(b.get("/").Body, "Signed in as <strong>Ana</strong>") {
		t.Fatal("the logged link did not sign in")
	}
}

// Pasting the API token signs in too; a wrong one is refused at the
// field.
func TestSigninWithToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	token := e.browser().register("Ana", "ana@example.org").token(t)
	b := e.browser()
	form := b.get("/signin").must(t, http.StatusOK)
	res := b.post("/signin", url.Values{"csrf": {form.csrf(t)}, "token": {"azt_wrong"}}).must(t, http.StatusUnauthorized)
	if msg := res.fieldError(t, "token"); !strings.Contains(msg, "not a token") {
		t.Fatalf("token field error %q", msg)
	}
	b.post("/signin", url.Values{"csrf": {form.csrf(t)}, "token": {token}}).must(t, http.StatusSeeOther)
	if !strings.Contains(b.get("/").Body, "Signed in as <strong>Ana</strong>") {
		t.Fatal("the token did not sign in")
	}
	// Signing out ends the session on the server, not just the cookie.
	sid := b.cookie("azuld_session")
	lobby := b.get("/")
	b.post("/signout", url.Values{"csrf": {lobby.csrf(t)}}).must(t, http.StatusSeeOther)
	if strings.Contains(b.get("/").Body, "Signed in as") {
		t.Fatal("still signed in after signing out")
	}
	replay := e.browser()
	replay.client.Jar.SetCookies(mustURL(t, e.http.URL), []*http.Cookie{{Name: "azuld_session", Value: sid}})
	if strings.Contains(replay.get("/").Body, "Signed in as") {
		t.Fatal("the old session id still works")
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// countGames is how many games exist.
func (e *env) countGames() int { return e.count(`SELECT count(*) FROM games`) }

// A state-changing form or API call without the session's CSRF token, with
// a forged one, another session's, or from another site changes nothing.
func TestCSRF(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ana := e.browser()
	ana.register("Ana", "ana@example.org")
	bea := e.browser()
	bea.register("Bea", "bea@example.org")
	form := ana.get("/games/new").must(t, http.StatusOK)
	good := form.csrf(t)
	if meta := form.metaCSRF(t); meta != good {
		t.Fatalf("meta token %q, form token %q", meta, good)
	}
	create := func(csrf string, headers ...string) page {
		v := url.Values{"ruleset": {"azul-mini"}, "seats": {"2"}, "seat0": {"me"}, "seat1": {"bot"}, "seat1_bot": {"random"}, "key": {"k-" + csrf}}
		if csrf != "-" {
			v.Set("csrf", csrf)
		}
		return ana.post("/games/new", v, headers...)
	}
	beaToken := bea.get("/").csrf(t)
	for name, res := range map[string]page{
		"missing":         create("-"),
		"empty":           create(""),
		"forged":          create(strings.Repeat("x", 52)),
		"other session's": create(beaToken),
		"cross-site":      create(good, "Origin", "https://evil.example"),
		"fetch metadata":  create(good, "Sec-Fetch-Site", "cross-site"),
	} {
		if res.Status != http.StatusForbidden {
			t.Errorf("%s token: status %d", name, res.Status)
		}
	}
	if n := e.countGames(); n != 0 {
		t.Fatalf("%d games created without a valid token", n)
	}
	res := create(good, "Origin", e.http.URL).must(t, http.StatusSeeOther)
	id := strings.TrimPrefix(res.Header.Get("Location"), "/games/")
	if n := e.countGames(); n != 1 {
		t.Fatalf("%d games", n)
	}

	// The API with the session cookie: reads need no token, writes do.
	table := ana.get("/games/"+id).must(t, http.StatusOK)
	token := table.metaCSRF(t)
	var state struct {
		Version    int64 `json:"version"`
		YourSeats  []int `json:"your_seats"`
		LegalMoves []struct {
			Move json.RawMessage `json:"move"`
		} `json:"legal_moves"`
	}
	got := ana.get("/v1/games/"+id).must(t, http.StatusOK)
	if err := json.Unmarshal([]byte(got.Body), &state); err != nil || !slices.Equal(state.YourSeats, []int{0}) || len(state.LegalMoves) == 0 {
		t.Fatalf("the API does not know the session's player: %s", got.Body)
	}
	move := string(state.LegalMoves[0].Move)
	for name, headers := range map[string][]string{
		"no token":   nil,
		"forged":     {"X-CSRF-Token", strings.Repeat("y", 52)},
		"bea's":      {"X-CSRF-Token", beaToken},
		"cross-site": {"X-CSRF-Token", token, "Origin", "https://evil.example"},
	} {
		res := ana.postJSON("/v1/games/"+id+"/moves", move, headers...)
		if res.Status != http.StatusForbidden || !strings.Contains(res.Header.Get("Content-Type"), "problem+json") {
			t.Errorf("move with %s: status %d %s", name, res.Status, res.Body)
		}
	}
	after := ana.get("/v1/games/" + id)
	var now struct {
		Version int64 `json:"version"`
	}
	_ = json.Unmarshal([]byte(after.Body), &now)
	if now.Version != state.Version {
		t.Fatalf("refused moves changed the game: version %d → %d", state.Version, now.Version)
	}
	ana.postJSON("/v1/games/"+id+"/moves", move, "X-CSRF-Token", token, "Origin", e.http.URL).must(t, http.StatusCreated)

	// Signing out and registering need their tokens too.
	ana.post("/signout", url.Values{"csrf": {"nope"}}).must(t, http.StatusForbidden)
	if !strings.Contains(ana.get("/").Body, "Signed in as") {
		t.Fatal("a forged sign-out signed out")
	}
	visitor := e.browser()
	visitor.post("/register", url.Values{"name": {"Eve"}, "email": {"eve@example.org"}}).must(t, http.StatusForbidden)
	if n := e.count(`SELECT count(*) FROM players WHERE name = 'Eve'`); n != 0 {
		t.Fatal("a registration without a token created a player")
	}
}

// A player signed in as Bea cannot move for Ana's seat, through the API or
// by naming the seat.
func TestForeignSessionCannotMove(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ana := e.browser()
	ana.register("Ana", "ana@example.org")
	bea := e.browser()
	bea.register("Bea", "bea@example.org")
	form := ana.get("/games/new")
	res := ana.post("/games/new", url.Values{
		"csrf": {form.csrf(t)}, "key": {"k1"}, "ruleset": {"summer-pavilion"}, "seats": {"2"},
		"seat0": {"me"}, "seat1": {"player"}, "seat1_player": {bea.playerID()},
	}).must(t, http.StatusSeeOther)
	id := strings.TrimPrefix(res.Header.Get("Location"), "/games/")
	accept(t, bea, id)
	var state struct {
		Version    int64 `json:"version"`
		ToAct      []int `json:"to_act"`
		LegalMoves []struct {
			Move json.RawMessage `json:"move"`
		} `json:"legal_moves"`
	}
	if err := json.Unmarshal([]byte(ana.get("/v1/games/"+id).Body), &state); err != nil || len(state.LegalMoves) == 0 {
		t.Fatalf("no moves for Ana: %v", err)
	}
	if !slices.Equal(state.ToAct, []int{0}) {
		t.Fatalf("to act %v", state.ToAct)
	}
	token := bea.get("/games/" + id).metaCSRF(t)
	move := string(state.LegalMoves[0].Move)
	for _, path := range []string{"/v1/games/" + id + "/moves", "/v1/games/" + id + "/moves?seat=0"} {
		res := bea.postJSON(path, move, "X-CSRF-Token", token)
		if res.Status != http.StatusForbidden {
			t.Errorf("%s as Bea: status %d %s", path, res.Status, res.Body)
		}
	}
	var after struct {
		Version int64 `json:"version"`
	}
	_ = json.Unmarshal([]byte(ana.get("/v1/games/"+id).Body), &after)
	if after.Version != state.Version {
		t.Fatalf("Bea's moves changed the game: version %d → %d", state.Version, after.Version)
	}
}

// Every page carries the Content-Security-Policy and has no inline script
// or style for it to refuse.
func TestEveryPageHasCSP(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ana := e.browser()
	ana.register("Ana", "ana@example.org")
	form := ana.get("/games/new")
	res := ana.post("/games/new", url.Values{"csrf": {form.csrf(t)}, "key": {"k"}, "ruleset": {"azul-mini"}, "seats": {"2"}, "seat0": {"me"}, "seat1": {"bot"}, "seat1_bot": {"random"}}).must(t, http.StatusSeeOther)
	game := res.Header.Get("Location")
	visitor := e.browser()
	pages := map[string]page{
		"visitor /":          visitor.get("/"),
		"/signin":            visitor.get("/signin"),
		"/register":          visitor.get("/register"),
		"link page":          visitor.get("/signin/link/abc"),
		"lobby":              ana.get("/"),
		"new game":           ana.get("/games/new"),
		"table":              ana.get(game),
		"table as a visitor": visitor.get(game),
		"replay":             ana.get(game + "/replay?version=1"),
		"unknown game":       ana.get("/games/00000000-0000-4000-8000-000000000000"),
		"bad version":        ana.get(game + "/replay?version=x"),
		"refused form":       ana.post("/games/new", url.Values{"csrf": {"bad"}}),
		"invalid form":       ana.post("/games/new", url.Values{"csrf": {form.csrf(t)}, "ruleset": {"chess"}, "seats": {"2"}}),
		"static file":        visitor.get("/static/app.js"),
		"visitor /games/new": visitor.get("/games/new"),
	}
	for name, p := range pages {
		if got := p.Header.Get("Content-Security-Policy"); got != web.ContentSecurityPolicy {
			t.Errorf("%s (status %d): CSP %q", name, p.Status, got)
		}
		if !strings.HasPrefix(p.Header.Get("Content-Type"), "text/html") {
			continue
		}
		doc := p.doc(t)
		for _, n := range find(doc, func(n *html.Node) bool { return n.Data == "script" || n.Data == "style" }) {
			// A JSON data block (the scripts' messages) runs nothing.
			if typ, _ := attr(n, "type"); n.Data == "script" && typ == "application/json" {
				continue
			}
			if src, ok := attr(n, "src"); n.Data == "style" || !ok || src == "" || n.FirstChild != nil {
				t.Errorf("%s: inline <%s>", name, n.Data)
			}
		}
		for _, n := range find(doc, func(n *html.Node) bool { _, ok := attr(n, "style"); return ok }) {
			t.Errorf("%s: style attribute on <%s>", name, n.Data)
		}
		for _, n := range find(doc, func(n *html.Node) bool {
			for _, a := range n.Attr {
				if strings.HasPrefix(a.Key, "on") {
					return true
				}
			}
			return false
		}) {
			t.Errorf("%s: event handler attribute on <%s>", name, n.Data)
		}
	}
	if s := pages["unknown game"].Status; s != http.StatusNotFound {
		t.Errorf("unknown game: status %d", s)
	}
	if s := pages["bad version"].Status; s != http.StatusBadRequest {
		t.Errorf("bad version: status %d", s)
	}
	if s := pages["visitor /games/new"].Status; s != http.StatusSeeOther {
		t.Errorf("visitor's new game: status %d", s)
	}
}
