package api

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/azuld/azuld/play"
)

// playerGamesBody is GET /v1/players/{id}/games as a client reads it.
type playerGamesBody struct {
	PlayerID string `json:"player_id"`
	Status   string `json:"status"`
	Games    []struct {
		ID     string `json:"id"`
		Status string `json:"status"`
		Seats  []int  `json:"seats"`
		Rank   int    `json:"rank"`
	} `json:"games"`
	GamesHidden bool   `json:"games_hidden"`
	NextCursor  string `json:"next_cursor"`
	Next        string `json:"next"`
}

// allPlayerGames pages through a player's games as c, limit a page,
// following each page's next address, and returns the games' ids.
func (c *client) allPlayerGames(player, status string, limit int) []string {
	c.t.Helper()
	var ids []string
	path := "/v1/players/" + player + "/games?" + url.Values{"status": {status}, "limit": {strconv.Itoa(limit)}}.Encode()
	for pages := 0; path != ""; pages++ {
		if pages > 100 {
			c.t.Fatal("the pages do not end")
		}
		var page playerGamesBody
		c.call(http.MethodGet, path, nil).mustStatus(c.t, http.StatusOK).decode(c.t, &page)
		if len(page.Games) > limit || (page.Next == "") != (page.NextCursor == "") {
			c.t.Fatalf("page %d: %d games, next %q", pages, len(page.Games), page.Next)
		}
		for _, g := range page.Games {
			ids = append(ids, g.ID)
		}
		path = page.Next
	}
	return ids
}

// TestPlayerGamesPaging: a player's finished and running games, a page at
// a time: each game exactly once, the latest move first, the profile's
// cursor continuing its list; private games only to their players;
// nothing when the player hides their games; bad requests are 4xx.
func TestPlayerGamesPaging(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana, bea, cy := env.register(t, "Ana"), env.register(t, "Bea"), env.register(t, "Cy")
	anon := env.anonymous(t)
	// 26 public finished games, the last finished first; one private
	// (unrated) game with Bea; three running games.
	var finished []string
	for i := range 26 {
		g := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: bea.Player.ID}}})
		if i%2 == 0 {
			ana.resign(g.ID)
		} else {
			bea.resign(g.ID)
		}
		finished = append([]string{g.ID}, finished...)
		if i == 12 {
			private := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Rated: ptr(false), Visibility: play.VisibilityPrivate,
				Seats: []play.SeatSpec{{Player: "me"}, {Player: bea.Player.ID}}})
			bea.resign(private.ID)
			finished = append([]string{private.ID}, finished...)
		}
	}
	var running []string
	for range 3 {
		g := ana.createGame(play.CreateGame{Ruleset: "summer-pavilion-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: cy.Player.ID}}})
		running = append([]string{g.ID}, running...)
	}
	env.caughtUp(t)
	public := slices.DeleteFunc(slices.Clone(finished), func(id string) bool { return id == finished[13] })
	if len(public) != 26 || len(finished) != 27 {
		t.Fatalf("set-up: %d public of %d", len(public), len(finished))
	}

	// A visitor and Cy (not seated in the private game) see the public
	// games; Ana and Bea the private one too.
	for _, c := range []struct {
		who  *client
		want []string
	}{{anon, public}, {cy, public}, {ana, finished}, {bea, finished}} {
		for _, limit := range []int{7, 20, 27} {
			if got := c.who.allPlayerGames(ana.Player.ID, "finished", limit); !slices.Equal(got, c.want) {
				t.Errorf("limit %d: %d games, want %d in order:\n%v\n%v", limit, len(got), len(c.want), got, c.want)
			}
		}
	}
	if got := anon.allPlayerGames(ana.Player.ID, "running", 2); !slices.Equal(got, running) {
		t.Errorf("running games %v, want %v", got, running)
	}
	if got := ana.allPlayerGames("me", "running", 20); !slices.Equal(got, running) {
		t.Errorf("my running games %v, want %v", got, running)
	}

	// The profile lists the first 10; its cursor continues.
	p := anon.publicProfile(ana.Player.ID)
	var more struct {
		RecentGamesCursor  string `json:"recent_games_cursor"`
		RunningGamesCursor string `json:"running_games_cursor"`
	}
	anon.call(http.MethodGet, "/v1/players/"+ana.Player.ID, nil).mustStatus(t, http.StatusOK).decode(t, &more)
	if len(p.RecentGames) != 10 || more.RecentGamesCursor == "" || more.RunningGamesCursor != "" {
		t.Fatalf("the profile lists %d games, cursors %+v", len(p.RecentGames), more)
	}
	var rest playerGamesBody
	anon.call(http.MethodGet, "/v1/players/"+ana.Player.ID+"/games?status=finished&limit=100&cursor="+url.QueryEscape(more.RecentGamesCursor), nil).
		mustStatus(t, http.StatusOK).decode(t, &rest)
	got := make([]string, 0, 26)
	for _, g := range p.RecentGames {
		got = append(got, g.ID)
	}
	for _, g := range rest.Games {
		got = append(got, g.ID)
	}
	if !slices.Equal(got, public) || rest.Next != "" {
		t.Errorf("the profile and its continuation: %v, want %v", got, public)
	}

	// The web page pages too, with plain links.
	page := string(anon.call(http.MethodGet, "/players/"+ana.Player.ID, nil).mustStatus(t, http.StatusOK).Body)
	if !strings.Contains(page, "/players/"+ana.Player.ID+"/games?cursor=") {
		t.Errorf("the profile page has no link to older games")
	}
	list := string(anon.call(http.MethodGet, "/players/"+ana.Player.ID+"/games?status=finished", nil).mustStatus(t, http.StatusOK).Body)
	if !strings.Contains(list, public[0]) || !strings.Contains(list, public[19]) || strings.Contains(list, public[20]) || strings.Contains(list, finished[13]) || !strings.Contains(list, `rel="next"`) {
		t.Errorf("the first page of the games page:\n%s", list)
	}

	// Ana hides her games: nothing for others, all for her.
	ana.call(http.MethodPatch, "/v1/me", map[string]bool{"hide_games": true}).mustStatus(t, http.StatusOK)
	for _, c := range []*client{anon, bea} {
		var hidden playerGamesBody
		c.call(http.MethodGet, "/v1/players/"+ana.Player.ID+"/games", nil).mustStatus(t, http.StatusOK).decode(t, &hidden)
		if !hidden.GamesHidden || len(hidden.Games) != 0 || hidden.Next != "" {
			t.Errorf("hidden games: %+v", hidden)
		}
	}
	if page := string(anon.call(http.MethodGet, "/players/"+ana.Player.ID+"/games", nil).mustStatus(t, http.StatusOK).Body); strings.Contains(page, public[0]) {
		t.Error("the games page shows hidden games")
	}
	if got := ana.allPlayerGames(ana.Player.ID, "finished", 50); !slices.Equal(got, finished) {
		t.Errorf("Ana's own hidden games: %d", len(got))
	}

	// Bad requests.
	base := "/v1/players/" + bea.Player.ID + "/games"
	for path, status := range map[string]int{
		base + "?status=open":                           http.StatusBadRequest,
		base + "?status=active":                         http.StatusBadRequest,
		base + "?limit=0":                               http.StatusBadRequest,
		base + "?limit=101":                             http.StatusBadRequest,
		base + "?cursor=bm90IGEgY3Vyc29y":               http.StatusBadRequest,
		"/v1/players/bot:greedy/games":                  http.StatusNotFound,
		"/v1/players/not-a-player/games":                http.StatusNotFound,
		"/v1/players/" + uuid.NewString() + "/games":    http.StatusNotFound,
		"/v1/players/me/games":                          http.StatusUnauthorized,
		"/players/" + bea.Player.ID + "/games?status=x": http.StatusBadRequest,
		"/players/bot:greedy/games":                     http.StatusNotFound,
	} {
		if res := anon.call(http.MethodGet, path, nil); res.Status != status {
			t.Errorf("%s: %d, want %d", path, res.Status, status)
		}
	}
}
