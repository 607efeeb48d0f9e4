package api

import (
	"net/http"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// The game page every mail links to: an active game names who must move
// and draws the table; a finished one shows the result; names are escaped.
func TestGamePage(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	anon := env.anonymous(t)
	reg := anon.call(http.MethodPost, "/v1/players", map[string]string{"name": "<b>Ana</b>", "email": "ana@example.org"})
	reg.mustStatus(t, http.StatusCreated)
	var token struct {
		Token string `json:"token"`
	}
	reg.decode(t, &token)
	ana := &client{t: t, env: env, token: token.Token}

	res := ana.call(http.MethodPost, "/v1/games", map[string]any{
		"ruleset": "summer-pavilion", "seats": []map[string]string{{"player": "me"}, {"bot": "random"}},
	})
	res.mustStatus(t, http.StatusCreated)
	var g game
	res.decode(t, &g)

	page := anon.call(http.MethodGet, "/games/"+g.ID, nil)
	page.mustStatus(t, http.StatusOK)
	if ct := page.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Fatalf("content type %q", ct)
	}
	body := string(page.Body)
	if strings.Contains(body, "<b>Ana</b>") || !strings.Contains(body, "&lt;b&gt;Ana&lt;/b&gt;") {
		t.Fatal("the player's name is not escaped")
	}
	text := pageText(t, page.Body)
	for _, want := range []string{"Azul: Summer Pavilion", "to move", "random bot", "round 1 of 6", "/v1/games/" + g.ID + "/moves"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the page lacks %q:\n%s", want, text)
		}
	}

	// Resigning ends the game: the page shows the result.
	ana.call(http.MethodPost, "/v1/games/"+g.ID+"/moves", map[string]string{"type": "resign"}).mustStatus(t, http.StatusCreated)
	text = pageText(t, anon.call(http.MethodGet, "/games/"+g.ID, nil).Body)
	for _, want := range []string{"Result", "Won by random bot", "resigned", "finished"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the finished game's page lacks %q:\n%s", want, text)
		}
	}

	if res := anon.call(http.MethodGet, "/games/0192f5e4-8a4b-7c3d-9e2f-1a2b3c4d5e6f", nil); res.Status != http.StatusNotFound {
		t.Fatalf("unknown game: status %d", res.Status)
	}
	if res := anon.call(http.MethodGet, "/games/not-a-game", nil); res.Status != http.StatusNotFound && res.Status != http.StatusBadRequest {
		t.Fatalf("malformed id: status %d", res.Status)
	}
}

// pageText is the text of an HTML page, as a reader sees it.
func pageText(t *testing.T, page []byte) string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(string(page)))
	if err != nil {
		t.Fatalf("the page is not HTML: %v", err)
	}
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
	walk(doc)
	return b.String()
}
