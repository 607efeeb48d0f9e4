package web_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// createGame creates a game through the API with a player's token and
// returns its id.
func (b *browser) createGame(token, body string) string {
	b.t.Helper()
	res := b.postJSON("/v1/games", body, "Authorization", "Bearer "+token).must(b.t, http.StatusCreated)
	var g struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(res.Body), &g); err != nil {
		b.t.Fatal(err)
	}
	return g.ID
}

// links are the addresses a page links to.
func links(t testing.TB, p page) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, a := range find(p.doc(t), func(n *html.Node) bool { return n.Data == "a" }) {
		if href, ok := attr(a, "href"); ok {
			out[href] = true
		}
	}
	return out
}

// A visitor's start page lists the public games being played (not the
// private ones) and the top of the leaderboard, with the way to sign in
// or register, in the visitor's language; /watch is that page for anyone
// and /games leads to it.
func TestVisitorWatchPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ana := e.browser()
	token := ana.register("Ana", "ana@example.org").token(t)
	public := ana.createGame(token, `{"ruleset": "azul-mini", "visibility": "public", "seats": [{"player": "me"}, {"bot": "random"}]}`)
	private := ana.createGame(token, `{"ruleset": "azul-mini", "visibility": "private", "rated": false, "seats": [{"player": "me"}, {"bot": "random"}]}`)
	// Ana loses two rated games to the greedy bot by resigning: both
	// have a rating, provisional still, which the start page shows.
	for range 2 {
		id := ana.createGame(token, `{"ruleset": "azul-mini", "seats": [{"player": "me"}, {"bot": "greedy"}]}`)
		ana.postJSON("/v1/games/"+id+"/moves", `{"type": "resign"}`, "Authorization", "Bearer "+token).must(t, http.StatusCreated)
	}
	waitFor(t, func() bool { return e.count(`SELECT count(*) FROM rating_history`) == 4 })

	visitor := e.browser()
	visitor.lang = "nl"
	for _, path := range []string{"/", "/watch"} {
		p := visitor.get(path).must(t, http.StatusOK)
		if !strings.HasPrefix(p.Header.Get("Content-Type"), "text/html") || p.Header.Get("Content-Language") != "nl" {
			t.Fatalf("%s: %s in %q", path, p.Header.Get("Content-Type"), p.Header.Get("Content-Language"))
		}
		got := links(t, p)
		for _, want := range []string{"/games/" + public, "/signin", "/register", "/ratings?players=2&provisional=1&ruleset=azul-mini"} {
			if !got[want] {
				t.Errorf("%s: no link to %s", path, want)
			}
		}
		if got["/games/"+private] {
			t.Errorf("%s: a visitor is shown the private game", path)
		}
		text := text(p.doc(t))
		for _, want := range []string{"Meekijken en spelen", "Spellen om mee te kijken", "Ranglijst", "Azul Mini, 2 spelers", "Ana", "voorlopig"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %q:\n%s", path, want, text)
			}
		}
		if strings.Contains(p.Body, `name="token"`) {
			t.Errorf("%s: still the sign-in form", path)
		}
		if rows := find(p.doc(t), func(n *html.Node) bool {
			return n.Data == "tr" && len(find(n, func(c *html.Node) bool { return hasClass(c, "rating") })) > 0
		}); len(rows) != 2 {
			t.Errorf("%s: %d players on the leaderboard, want Ana and the bot:\n%s", path, len(rows), p.Body)
		}
	}
	if res := visitor.get("/games"); res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/watch" {
		t.Errorf("/games: %d to %q", res.Status, res.Header.Get("Location"))
	}
	// A signed-in player's /watch is the same list, and / stays their
	// lobby.
	if !links(t, ana.get("/watch").must(t, http.StatusOK))["/games/"+public] {
		t.Error("the player's /watch lacks the public game")
	}
	if !strings.Contains(ana.get("/").must(t, http.StatusOK).Body, "page-lobby") {
		t.Error("a signed-in player's / is not the lobby")
	}
}

// Pages never answer JSON: an unknown address, a method a page does not
// take, a missing static file get the HTML error page in the reader's
// language, with the pages' security headers; the API under /v1 keeps
// its problem+json.
func TestPageErrorsAreHTML(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	visitor := e.browser()
	visitor.lang = "de"
	for _, c := range []struct {
		method, path string
		status       int
		says         string
	}{
		{http.MethodGet, "/watching", http.StatusNotFound, "Diese Seite oder dieses Spiel gibt es nicht."},
		{http.MethodGet, "/games/new/extra", http.StatusNotFound, "Diese Seite oder dieses Spiel gibt es nicht."},
		{http.MethodGet, "/static/nothing.js", http.StatusNotFound, "Diese Seite oder dieses Spiel gibt es nicht."},
		{http.MethodPut, "/signin", http.StatusMethodNotAllowed, ""},
		{http.MethodDelete, "/games/new", http.StatusMethodNotAllowed, ""},
	} {
		p := visitor.do(c.method, c.path, nil, "")
		if p.Status != c.status {
			t.Errorf("%s %s: status %d, want %d", c.method, c.path, p.Status, c.status)
		}
		if ct := p.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
			t.Errorf("%s %s: %s, want an HTML page: %s", c.method, c.path, ct, p.Body)
			continue
		}
		if p.Header.Get("Content-Security-Policy") == "" || p.Header.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s %s: the error page lacks the security headers: %v", c.method, c.path, p.Header)
		}
		if htmlLang(t, p) != "de" {
			t.Errorf("%s %s: an error page in %q", c.method, c.path, htmlLang(t, p))
		}
		body := text(p.doc(t))
		if !strings.Contains(body, "Fehler") || (c.says != "" && !strings.Contains(body, c.says)) {
			t.Errorf("%s %s: the page says:\n%s", c.method, c.path, body)
		}
	}
	for _, path := range []string{"/v1/nowhere", "/v1/games/00000000-0000-4000-8000-000000000000", "/v1"} {
		p := visitor.get(path)
		if p.Status != http.StatusNotFound || p.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s: %d %s, want a 404 problem", path, p.Status, p.Header.Get("Content-Type"))
		}
	}
}
