package api

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/play"
)

// profileBody is GET /v1/players/{id} as a client reads it.
type profileBody struct {
	PlayerID    string `json:"player_id"`
	Bot         string `json:"bot"`
	Name        string `json:"name"`
	MemberSince string `json:"member_since"`
	Ratings     []struct {
		Ruleset     string  `json:"ruleset"`
		Players     int     `json:"players"`
		Rating      float64 `json:"rating"`
		Mu          float64 `json:"mu"`
		Sigma       float64 `json:"sigma"`
		Games       int     `json:"games"`
		Provisional bool    `json:"provisional"`
	} `json:"ratings"`
	Results []struct {
		Ruleset   string  `json:"ruleset"`
		Players   int     `json:"players"`
		Games     int     `json:"games"`
		Wins      int     `json:"wins"`
		Placings  []int   `json:"placings"`
		MeanRank  float64 `json:"mean_rank"`
		BestScore int     `json:"best_score"`
	} `json:"results"`
	GamesHidden bool `json:"games_hidden"`
	RecentGames []struct {
		ID        string `json:"id"`
		Ruleset   string `json:"ruleset"`
		Rank      int    `json:"rank"`
		Score     *int   `json:"score"`
		Opponents []struct {
			PlayerID string `json:"player_id"`
			Bot      string `json:"bot"`
			Name     string `json:"name"`
		} `json:"opponents"`
	} `json:"recent_games"`
	RunningGames []struct {
		ID        string `json:"id"`
		Opponents []struct {
			Name string `json:"name"`
		} `json:"opponents"`
		ToAct []struct {
			Name string `json:"name"`
		} `json:"to_act"`
		TheirTurn bool `json:"their_turn"`
	} `json:"running_games"`
	HeadToHead *struct {
		Games  int `json:"games"`
		Ahead  int `json:"ahead"`
		Behind int `json:"behind"`
		Tied   int `json:"tied"`
	} `json:"head_to_head"`
}

// resign ends a two-seat game: the client's seat resigns.
func (c *client) resign(gameID string) {
	c.t.Helper()
	c.call(http.MethodPost, "/v1/games/"+gameID+"/moves", map[string]string{"type": "resign"}).mustStatus(c.t, http.StatusCreated)
}

func (c *client) publicProfile(id string) profileBody {
	c.t.Helper()
	var p profileBody
	res := c.call(http.MethodGet, "/v1/players/"+id, nil).mustStatus(c.t, http.StatusOK)
	if strings.Contains(string(res.Body), "@example.org") {
		c.t.Fatalf("an address in a profile: %s", res.Body)
	}
	res.decode(c.t, &p)
	return p
}

// TestPlayerProfile: a profile after finished games between players and
// against a bot: ratings, results, the game lists, the head-to-head
// against the viewer, "me", a bot's profile, the hidden game list, an
// erased player and bad ids.
func TestPlayerProfile(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana, bea, cy := env.register(t, "Ana"), env.register(t, "Bea"), env.register(t, "Cy")
	versus := func(by *client, other string, ruleset string) string {
		t.Helper()
		return by.createGame(play.CreateGame{Ruleset: ruleset, Seats: []play.SeatSpec{{Player: "me"}, {Player: other}}}).ID
	}
	// Ana and Bea: each wins one (the other resigns).
	g1 := versus(ana, bea.Player.ID, "azul-mini")
	ana.resign(g1)
	g2 := versus(ana, bea.Player.ID, "azul-mini")
	bea.resign(g2)
	// Ana against the greedy bot, lost.
	g3 := ana.createGame(play.CreateGame{Ruleset: "summer-pavilion-mini", Seats: []play.SeatSpec{{Player: "me"}, {Bot: "greedy"}}}).ID
	ana.resign(g3)
	// Ana and Cy: running.
	g4 := versus(ana, cy.Player.ID, "azul-mini")
	env.caughtUp(t)

	anon := env.anonymous(t)
	p := anon.publicProfile(ana.Player.ID)
	if p.PlayerID != ana.Player.ID || p.Name != "Ana" || p.MemberSince != time.Now().UTC().Format(time.DateOnly) || p.GamesHidden || p.Bot != "" {
		t.Fatalf("profile head: %+v", p)
	}
	if len(p.Ratings) != 2 {
		t.Fatalf("ratings %+v", p.Ratings)
	}
	games := map[string]int{}
	for _, r := range p.Ratings {
		games[r.Ruleset] = r.Games
		if r.Players != 2 || !r.Provisional || r.Rating != r.Mu-3*r.Sigma {
			t.Errorf("rating %+v", r)
		}
	}
	if games["azul-mini"] != 2 || games["summer-pavilion-mini"] != 1 {
		t.Errorf("rated games by rule set %v", games)
	}
	if len(p.Results) != 2 || p.Results[0].Ruleset != "azul-mini" || p.Results[0].Games != 2 || p.Results[0].Wins != 1 ||
		len(p.Results[0].Placings) != 2 || p.Results[0].Placings[0] != 1 || p.Results[0].Placings[1] != 1 || p.Results[0].MeanRank != 1.5 {
		t.Errorf("results %+v", p.Results)
	}
	if r := p.Results[len(p.Results)-1]; r.Ruleset != "summer-pavilion-mini" || r.Games != 1 || r.Wins != 0 || r.Placings[1] != 1 {
		t.Errorf("results against the bot %+v", r)
	}
	if len(p.RecentGames) != 3 || p.RecentGames[0].ID != g3 || p.RecentGames[2].ID != g1 {
		t.Fatalf("recent games %+v, want %s %s %s", p.RecentGames, g3, g2, g1)
	}
	if o := p.RecentGames[0].Opponents; len(o) != 1 || o[0].Bot != "greedy" || p.RecentGames[0].Rank != 2 || p.RecentGames[0].Score == nil {
		t.Errorf("the game against the bot %+v", p.RecentGames[0])
	}
	if o := p.RecentGames[1].Opponents; len(o) != 1 || o[0].PlayerID != bea.Player.ID || o[0].Name != "Bea" || p.RecentGames[1].Rank != 1 {
		t.Errorf("the game won against Bea %+v", p.RecentGames[1])
	}
	if len(p.RunningGames) != 1 || p.RunningGames[0].ID != g4 || len(p.RunningGames[0].Opponents) != 1 ||
		p.RunningGames[0].Opponents[0].Name != "Cy" || len(p.RunningGames[0].ToAct) != 1 {
		t.Fatalf("running games %+v", p.RunningGames)
	}
	if p.HeadToHead != nil {
		t.Errorf("a visitor got a head-to-head: %+v", p.HeadToHead)
	}

	// Bea, signed in, sees her record against Ana: one each.
	if h := bea.publicProfile(ana.Player.ID).HeadToHead; h == nil || h.Games != 2 || h.Ahead != 1 || h.Behind != 1 || h.Tied != 0 {
		t.Errorf("head-to-head for Bea: %+v", h)
	}
	// Cy has finished nothing with Ana.
	if h := cy.publicProfile(ana.Player.ID).HeadToHead; h == nil || h.Games != 0 {
		t.Errorf("head-to-head for Cy: %+v", h)
	}
	// "me" is the caller's own profile, without a head-to-head.
	if me := ana.publicProfile("me"); me.PlayerID != ana.Player.ID || me.HeadToHead != nil || len(me.RecentGames) != 3 {
		t.Errorf("me: %+v", me)
	}

	// A bot's profile: its name from the catalogue, ratings and results,
	// no member since, no game lists.
	b := anon.publicProfile("bot:greedy")
	if b.Bot != "greedy" || b.Name != "Greedy bot" || b.MemberSince != "" || len(b.Ratings) != 1 || b.Ratings[0].Games != 1 ||
		len(b.Results) != 1 || b.Results[0].Wins != 1 || len(b.RecentGames) != 0 || b.HeadToHead != nil {
		t.Errorf("bot profile %+v", b)
	}
	if nl := anon.call(http.MethodGet, "/v1/players/bot:greedy", nil, header{"Accept-Language", "nl"}); !strings.Contains(string(nl.Body), `"name":"Gulzige bot"`) {
		t.Errorf("bot profile in Dutch: %s", nl.Body)
	}

	// Ana hides her games: gone for others, there for her; ratings and
	// results stay.
	var me struct {
		HideGames bool `json:"hide_games"`
	}
	ana.call(http.MethodPatch, "/v1/me", map[string]bool{"hide_games": true}).mustStatus(t, http.StatusOK).decode(t, &me)
	if !me.HideGames {
		t.Fatal("PATCH /v1/me did not set hide_games")
	}
	for who, c := range map[string]*client{"visitor": anon, "Bea": bea} {
		p := c.publicProfile(ana.Player.ID)
		if !p.GamesHidden || p.RecentGames != nil || p.RunningGames != nil || p.HeadToHead != nil || len(p.Ratings) != 2 || len(p.Results) != 2 {
			t.Errorf("hidden games, as %s: %+v", who, p)
		}
	}
	if p := ana.publicProfile(ana.Player.ID); p.GamesHidden || len(p.RecentGames) != 3 || len(p.RunningGames) != 1 {
		t.Errorf("hidden games, as Ana herself: %+v", p)
	}
	var back struct {
		HideGames bool `json:"hide_games"`
	}
	ana.call(http.MethodGet, "/v1/me", nil).mustStatus(t, http.StatusOK).decode(t, &back)
	if !back.HideGames {
		t.Error("GET /v1/me does not show hide_games")
	}
	ana.call(http.MethodPatch, "/v1/me", map[string]any{"hide_games": "yes"}).mustStatus(t, http.StatusBadRequest).problem(t)

	// Cy deletes the account: the profile is gone.
	cy.call(http.MethodDelete, "/v1/me", nil).mustStatus(t, http.StatusNoContent)
	anon.call(http.MethodGet, "/v1/players/"+cy.Player.ID, nil).mustStatus(t, http.StatusNotFound).problem(t)

	for _, bad := range []struct {
		path   string
		status int
	}{
		{"/v1/players/" + uuid.NewString(), http.StatusNotFound},
		{"/v1/players/nobody", http.StatusNotFound},
		{"/v1/players/bot:", http.StatusNotFound},
		{"/v1/players/bot:chess", http.StatusNotFound},
		{"/v1/players/bot:" + strings.Repeat("x", 5000), http.StatusNotFound},
		{"/v1/players/me", http.StatusUnauthorized},
	} {
		res := anon.call(http.MethodGet, bad.path, nil)
		if res.Status != bad.status {
			t.Errorf("%.60s: status %d, want %d: %s", bad.path, res.Status, bad.status, res.Body)
			continue
		}
		res.problem(t)
	}
}

// The leaderboard and the profiles, pages and API alike, are limited per
// client address: past the limit a 429 with Retry-After, on every one of
// those routes.
func TestProfileReadsLimited(t *testing.T) {
	t.Parallel()
	env := newLimitedEnv(t, map[string]string{limits.ProfileReads: "3/min"})
	ana := env.register(t, "Ana")
	anon := env.anonymous(t)
	anon.call(http.MethodGet, "/v1/players/"+ana.Player.ID, nil).mustStatus(t, http.StatusOK)
	anon.call(http.MethodGet, "/v1/ratings?ruleset=azul-mini", nil).mustStatus(t, http.StatusOK)
	anon.call(http.MethodGet, "/ratings", nil).mustStatus(t, http.StatusOK)
	for _, path := range []string{"/v1/players/" + ana.Player.ID, "/v1/players/" + ana.Player.ID + "/ratings", "/v1/ratings?ruleset=azul-mini", "/v1/players/bot:greedy", "/v1/games?watch=1",
		"/v1/players/" + ana.Player.ID + "/games", "/v1/players/" + ana.Player.ID + "/games?status=running"} {
		mustBeLimited(t, anon.call(http.MethodGet, path, nil), limits.ProfileReads)
	}
	for _, path := range []string{"/ratings", "/players/" + ana.Player.ID, "/players/" + ana.Player.ID + "/games"} {
		res := anon.call(http.MethodGet, path, nil)
		if res.Status != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
			t.Errorf("%s: status %d, Retry-After %q", path, res.Status, res.Header.Get("Retry-After"))
		}
	}
	// Other routes are not counted by it.
	ana.call(http.MethodGet, "/v1/me", nil).mustStatus(t, http.StatusOK)
}
