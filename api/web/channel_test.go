package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// A move a page's script posts (the API with the session cookie) is
// logged as made on the web; the same player's move with the API token
// is logged as made through the API.
func TestPageMovesAreLoggedAsWeb(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ana := e.browser()
	token := ana.register("Ana", "ana@example.org").token(t)
	res := ana.post("/games/new", newGameForm(t, ana, map[string]string{"ruleset": "azul-mini", "seat1": "bot"})).must(t, http.StatusSeeOther)
	id := strings.TrimPrefix(res.Header.Get("Location"), "/games/")
	var state struct {
		LegalMoves []struct {
			Move json.RawMessage `json:"move"`
		} `json:"legal_moves"`
	}
	if err := json.Unmarshal([]byte(ana.get("/v1/games/"+id).must(t, http.StatusOK).Body), &state); err != nil || len(state.LegalMoves) == 0 {
		t.Fatalf("no legal move for Ana (%v)", err)
	}
	csrf := ana.get("/games/"+id).must(t, http.StatusOK).metaCSRF(t)
	web := ana.postJSON("/v1/games/"+id+"/moves", string(state.LegalMoves[0].Move), "X-CSRF-Token", csrf).must(t, http.StatusCreated)
	// With the token (and the cookie still sent) the API is the channel.
	tok := ana.postJSON("/v1/games/"+id+"/moves", `{"type":"resign"}`, "Authorization", "Bearer "+token).must(t, http.StatusCreated)
	for want, res := range map[string]page{"web": web, "api": tok} {
		var mr struct {
			Events []struct {
				Type string `json:"type"`
				Meta struct {
					Channel string `json:"channel"`
				} `json:"meta"`
			} `json:"events"`
		}
		if err := json.Unmarshal([]byte(res.Body), &mr); err != nil || len(mr.Events) == 0 {
			t.Fatalf("move answer %s (%v)", res.Body, err)
		}
		if got := mr.Events[0].Meta.Channel; got != want {
			t.Errorf("the %s move (%s) is logged with channel %q", want, mr.Events[0].Type, got)
		}
	}
}

// The lobby says of every game whether it is rated and whether it is
// public, in words.
func TestLobbyMarksRatedAndPrivate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ana := e.browser()
	form := ana.get("/register").must(t, http.StatusOK)
	ana.post("/register", url.Values{"csrf": {form.csrf(t)}, "name": {"Ana"}, "email": {"ana@example.org"}, "language": {"nl"}}).must(t, http.StatusCreated)
	ana.post("/games/new", newGameForm(t, ana, map[string]string{"ruleset": "azul-mini", "seat1": "bot", "rated": "on", "visibility": "public"})).must(t, http.StatusSeeOther)
	private := newGameForm(t, ana, map[string]string{"ruleset": "azul-mini", "seat1": "bot", "visibility": "private"})
	private.Del("rated")
	ana.post("/games/new", private).must(t, http.StatusSeeOther)

	doc := ana.get("/").must(t, http.StatusOK).doc(t)
	var marks []string
	for _, li := range find(doc, func(n *html.Node) bool { return n.Data == "li" && hasClass(n, "game") }) {
		for _, m := range find(li, func(n *html.Node) bool { return hasClass(n, "game-marks") }) {
			marks = append(marks, strings.Join(strings.Fields(text(m)), " "))
		}
	}
	want := map[string]bool{"telt mee voor de rating · openbaar": false, "telt niet mee voor de rating · besloten": false}
	for _, m := range marks {
		if _, ok := want[m]; ok {
			want[m] = true
		}
	}
	for m, seen := range want {
		if !seen {
			t.Errorf("no lobby line marked %q; the marks are %q", m, marks)
		}
	}
}

// A game created by the page's form, and a seat taken by its join form,
// are logged with channel "web" too.
func TestPageCreateAndJoinAreLoggedAsWeb(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ana, ben := e.browser(), e.browser()
	ana.register("Ana", "ana@example.org")
	ben.register("Ben", "ben@example.org")
	unrated := map[string]string{"ruleset": "azul-mini", "seat1": "open", "rated": ""}
	res := ana.post("/games/new", newGameForm(t, ana, unrated)).must(t, http.StatusSeeOther)
	id := strings.TrimPrefix(res.Header.Get("Location"), "/games/")
	lobby := ben.get("/").must(t, http.StatusOK)
	ben.post("/games/"+id+"/join", url.Values{"csrf": {lobby.csrf(t)}}).must(t, http.StatusSeeOther)
	var log struct {
		Events []struct {
			Type string `json:"type"`
			Meta struct {
				Channel string `json:"channel"`
			} `json:"meta"`
		} `json:"events"`
	}
	if err := json.Unmarshal([]byte(ana.get("/v1/games/"+id+"/events").must(t, http.StatusOK).Body), &log); err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, ev := range log.Events {
		if _, ok := seen[ev.Type]; !ok {
			seen[ev.Type] = ev.Meta.Channel
		}
	}
	for _, typ := range []string{"game.created", "game.joined"} {
		if got := seen[typ]; got != "web" {
			t.Errorf("%s is logged with channel %q, want web (log: %v)", typ, got, seen)
		}
	}
}
