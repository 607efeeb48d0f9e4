package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/azuld/azuld/play"
)

// TestRatingsLeaderboardAndProfile: bots' games finished through the
// API are rated by the follower of the log and shown on the
// leaderboard; a player's ratings show on their profile, with public
// data only.
func TestRatingsLeaderboardAndProfile(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana := env.register(t, "Ana")
	// Bots play whole games inside the create.
	const games = 3
	for range games {
		// No seed: a game whose bag order is public is never rated.
		g := ana.createGame(play.CreateGame{Ruleset: "summer-pavilion-mini",
			Seats: []play.SeatSpec{{Bot: "greedy"}, {Bot: "random"}}})
		if g.Status != play.StatusFinished {
			t.Fatalf("bots-only game is %s", g.Status)
		}
	}
	env.caughtUp(t)
	anon := env.anonymous(t)
	var board struct {
		Ruleset string `json:"ruleset"`
		Players int    `json:"players"`
		Ratings []struct {
			PlayerID    string  `json:"player_id"`
			Bot         string  `json:"bot"`
			Name        string  `json:"name"`
			Rating      float64 `json:"rating"`
			Mu          float64 `json:"mu"`
			Sigma       float64 `json:"sigma"`
			Games       int     `json:"games"`
			Provisional bool    `json:"provisional"`
		} `json:"ratings"`
		NextCursor string `json:"next_cursor"`
		Next       string `json:"next"`
	}
	anon.call(http.MethodGet, "/v1/ratings?ruleset=summer-pavilion-mini&players=2&provisional=1", nil).mustStatus(t, http.StatusOK).decode(t, &board)
	if len(board.Ratings) != 2 || board.Players != 2 {
		t.Fatalf("leaderboard %+v", board)
	}
	for i, r := range board.Ratings {
		if r.Games != games || !r.Provisional || r.Name != r.Bot || r.PlayerID != "" || r.Rating != r.Mu-3*r.Sigma {
			t.Errorf("entry %d: %+v", i, r)
		}
	}
	if board.Ratings[0].Rating < board.Ratings[1].Rating {
		t.Errorf("not best first: %+v", board.Ratings)
	}
	// Without provisional=1 the provisional ratings are left out.
	anon.call(http.MethodGet, "/v1/ratings?ruleset=summer-pavilion-mini&players=2", nil).mustStatus(t, http.StatusOK).decode(t, &board)
	if len(board.Ratings) != 0 {
		t.Fatalf("provisional ratings listed: %+v", board.Ratings)
	}

	// Pages: established ratings of 5 players, 2 a page.
	ctx := context.Background()
	var ids []string
	for i := range 5 {
		c := ana
		if i > 0 {
			c = env.register(t, fmt.Sprintf("Player%d", i))
		}
		ids = append(ids, c.Player.ID)
		if _, err := env.pool.Exec(ctx, `INSERT INTO ratings (ruleset, players, subject, player_id, mu, sigma, games, last_game_at)
			VALUES ('azul-mini', 3, $1::text, $1::uuid, $2, 2, 20, now())`, c.Player.ID, 30-float64(i)); err != nil {
			t.Fatal(err)
		}
	}
	var seen []string
	next := "/v1/ratings?ruleset=azul-mini&players=3&limit=2"
	for next != "" {
		board.Next = ""
		res := anon.call(http.MethodGet, next, nil).mustStatus(t, http.StatusOK)
		if strings.Contains(string(res.Body), "@example.org") {
			t.Fatalf("an address in the leaderboard: %s", res.Body)
		}
		res.decode(t, &board)
		for _, r := range board.Ratings {
			seen = append(seen, r.PlayerID)
		}
		next = board.Next
	}
	if strings.Join(seen, ",") != strings.Join(ids, ",") {
		t.Fatalf("pages gave %v, want %v", seen, ids)
	}

	var profile struct {
		PlayerID string `json:"player_id"`
		Name     string `json:"name"`
		Ratings  []struct {
			Ruleset     string    `json:"ruleset"`
			Players     int       `json:"players"`
			Rating      float64   `json:"rating"`
			Games       int       `json:"games"`
			Provisional bool      `json:"provisional"`
			LastGameAt  time.Time `json:"last_game_at"`
		} `json:"ratings"`
	}
	res := anon.call(http.MethodGet, "/v1/players/"+ana.Player.ID+"/ratings", nil).mustStatus(t, http.StatusOK)
	if strings.Contains(string(res.Body), "@example.org") {
		t.Fatalf("an address in the profile: %s", res.Body)
	}
	res.decode(t, &profile)
	if profile.Name != "Ana" || len(profile.Ratings) != 1 || profile.Ratings[0].Ruleset != "azul-mini" || profile.Ratings[0].Players != 3 ||
		profile.Ratings[0].Rating != 24 || profile.Ratings[0].Provisional || profile.Ratings[0].Games != 20 {
		t.Fatalf("profile %+v", profile)
	}
	// A player without rated games has an empty list.
	bo := env.register(t, "Bo")
	res = anon.call(http.MethodGet, "/v1/players/"+bo.Player.ID+"/ratings", nil).mustStatus(t, http.StatusOK)
	if !strings.Contains(string(res.Body), `"ratings":[]`) {
		t.Fatalf("profile without ratings: %s", res.Body)
	}

	for _, bad := range []struct {
		path   string
		status int
	}{
		{"/v1/ratings", http.StatusBadRequest},
		{"/v1/ratings?ruleset=chess", http.StatusBadRequest},
		{"/v1/ratings?ruleset=azul-mini&players=5", http.StatusBadRequest},
		{"/v1/ratings?ruleset=azul-mini&provisional=yes", http.StatusBadRequest},
		{"/v1/ratings?ruleset=azul-mini&cursor=%21%21", http.StatusBadRequest},
		{"/v1/players/" + uuid.NewString() + "/ratings", http.StatusNotFound},
		{"/v1/players/nobody/ratings", http.StatusNotFound},
	} {
		anon.call(http.MethodGet, bad.path, nil).mustStatus(t, bad.status).problem(t)
	}
}
