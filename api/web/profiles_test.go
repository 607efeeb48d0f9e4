package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// waitFor polls cond until it holds (the follower of the log writes the
// ratings a moment after a game ends).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// finishGame creates a game of b against a seat (a player it names is
// invited and accepts) and has loser resign it.
func finishGame(t *testing.T, b, invited, loser *browser, fields map[string]string) string {
	t.Helper()
	res := b.post("/games/new", newGameForm(t, b, fields)).must(t, http.StatusSeeOther)
	id := strings.TrimPrefix(res.Header.Get("Location"), "/games/")
	if invited != nil {
		accept(t, invited, id)
	}
	table := loser.get("/games/"+id).must(t, http.StatusOK)
	loser.postJSON("/v1/games/"+id+"/moves", `{"type":"resign"}`, "X-CSRF-Token", table.metaCSRF(t)).must(t, http.StatusCreated)
	return id
}

// chartPoints counts the points of the page's rating chart.
func chartPoints(t *testing.T, p page) int {
	t.Helper()
	svg := find(p.doc(t), func(n *html.Node) bool { return n.Data == "svg" && hasClass(n, "rating-chart") })
	if len(svg) != 1 {
		t.Fatalf("%d rating charts on the page", len(svg))
	}
	return len(find(svg[0], func(n *html.Node) bool { return n.Data == "circle" && hasClass(n, "pt") }))
}

// The profile page draws a point per rated game of the rating shown, with
// a choice of the player's other ratings; the leaderboard links to the
// profiles, the table to its players'; the hidden game list is hidden
// from others only.
func TestProfilePages(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ana, bea, visitor := e.browser(), e.browser(), e.browser()
	ana.register("Ana", "ana@example.org")
	bea.register("Bea", "bea@example.org")
	beaID := bea.playerID()
	const games = 3
	var last string
	for i := range games {
		loser := ana
		if i == 1 {
			loser = bea
		}
		last = finishGame(t, ana, bea, loser, map[string]string{"ruleset": "azul-mini", "seat1": "player", "seat1_player": beaID})
	}
	finishGame(t, bea, nil, bea, map[string]string{"ruleset": "summer-pavilion-mini", "seat1": "bot", "seat1_bot": "greedy"})
	waitFor(t, func() bool { return e.count(`SELECT count(*) FROM rating_history`) == 2*(games+1) })

	prof := visitor.get("/players/"+beaID).must(t, http.StatusOK)
	// The rating played last is shown first: Summer Pavilion Mini, one
	// game; the other is a link away.
	if n := chartPoints(t, prof); n != 1 {
		t.Errorf("%d points for one rated game", n)
	}
	if !strings.Contains(prof.Body, "<h1>Bea</h1>") || !strings.Contains(prof.Body, "Member since") || strings.Contains(prof.Body, "@example.org") {
		t.Errorf("profile page:\n%s", prof.Body)
	}
	other := find(prof.doc(t), func(n *html.Node) bool {
		href, _ := attr(n, "href")
		return n.Data == "a" && strings.Contains(href, "chart=azul-mini.2")
	})
	if len(other) != 1 {
		t.Fatalf("no choice of the Azul Mini chart:\n%s", prof.Body)
	}
	href, _ := attr(other[0], "href")
	mini := visitor.get(strings.TrimSuffix(href, "#chart")).must(t, http.StatusOK)
	if n := chartPoints(t, mini); n != games {
		t.Errorf("%d points for %d rated games", n, games)
	}
	for _, want := range []string{"Rated games", "Rating (μ − 3σ)", "Azul Mini, 2 players", "Recent games", "against"} {
		if !strings.Contains(mini.Body, want) {
			t.Errorf("the profile lacks %q", want)
		}
	}
	// In another language, the chart's words too.
	visitor.lang = "it"
	if p := visitor.get("/players/"+beaID).must(t, http.StatusOK); !strings.Contains(p.Body, "Partite valutate") || !strings.Contains(p.Body, "Iscritto dal") {
		t.Errorf("the Italian profile:\n%s", p.Body)
	}
	visitor.lang = ""

	// The leaderboard links to the profile; the table page too.
	board := visitor.get("/ratings?ruleset=azul-mini&players=2&provisional=1").must(t, http.StatusOK)
	if !strings.Contains(board.Body, `href="/players/`+beaID+`"`) {
		t.Errorf("the leaderboard does not link to Bea's profile:\n%s", board.Body)
	}
	if table := visitor.get("/games/"+last).must(t, http.StatusOK); !strings.Contains(table.Body, `href="/players/`+beaID+`"`) {
		t.Errorf("the table does not link to Bea's profile")
	}
	if bot := visitor.get("/players/bot:greedy").must(t, http.StatusOK); chartPoints(t, bot) != 1 || !strings.Contains(bot.Body, "Greedy bot") {
		t.Errorf("the bot's profile:\n%s", bot.Body)
	}

	// Ana, signed in, sees her record against Bea.
	if p := ana.get("/players/"+beaID).must(t, http.StatusOK); !strings.Contains(p.Body, "You and Bea") || !strings.Contains(p.Body, "3 finished games together.") {
		t.Errorf("no head-to-head for Ana:\n%s", p.Body)
	}

	// Bea hides her games from her account page.
	acct := bea.get("/account").must(t, http.StatusOK)
	bea.post("/account/profile", url.Values{"csrf": {acct.formCSRF(t, "/account/profile")}, "name": {"Bea"}, "email": {"bea@example.org"},
		"language": {"en"}, "time_zone": {"UTC"}, "hide_games": {"1"}}).must(t, http.StatusOK)
	if !strings.Contains(bea.get("/account").Body, `name="hide_games" value="1" checked`) {
		t.Error("the account page does not show the games hidden")
	}
	for who, b := range map[string]*browser{"visitor": visitor, "Ana": ana} {
		p := b.get("/players/"+beaID).must(t, http.StatusOK)
		if strings.Contains(p.Body, "Recent games") || strings.Contains(p.Body, "You and Bea") || !strings.Contains(p.Body, "Bea keeps their games private") ||
			!strings.Contains(p.Body, "Ratings") {
			t.Errorf("hidden games as %s:\n%s", who, p.Body)
		}
	}
	if p := bea.get("/players/me").must(t, http.StatusOK); !strings.Contains(p.Body, "Recent games") || !strings.Contains(p.Body, "Your games are hidden from others") {
		t.Errorf("Bea's own profile:\n%s", p.Body)
	}

	// Bad addresses: not found or refused, never a fault.
	for path, status := range map[string]int{
		"/players/nobody": http.StatusNotFound,
		"/players/00000000-0000-4000-8000-000000000000": http.StatusNotFound,
		"/players/bot:chess":                            http.StatusNotFound,
		"/players/bot:":                                 http.StatusNotFound,
		"/ratings?ruleset=chess":                        http.StatusBadRequest,
		"/ratings?players=9":                            http.StatusBadRequest,
		"/ratings?cursor=%21%21":                        http.StatusBadRequest,
		"/ratings?start=-1":                             http.StatusBadRequest,
	} {
		visitor.get(path).must(t, status)
	}
	for _, path := range []string{"/players/me", "/players/me/games"} {
		if res := visitor.get(path); res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/signin" {
			t.Errorf("%s for a visitor: %d %s", path, res.Status, res.Header.Get("Location"))
		}
	}
}
