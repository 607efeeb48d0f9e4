package api

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/play"
)

// jobsFor counts the queued jobs of a kind for a game.
func (env *testEnv) jobsFor(t *testing.T, kind, gameID string) int {
	t.Helper()
	env.caughtUp(t)
	var n int
	if err := env.pool.QueryRow(context.Background(),
		`SELECT count(*) FROM river_job WHERE kind = $1 AND args->>'game_id' = $2`, kind, gameID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// ratingRowsOf counts a player's rating rows and rating history.
func (env *testEnv) ratingRowsOf(t *testing.T, c *client) int {
	t.Helper()
	var n int
	if err := env.pool.QueryRow(context.Background(), `
		SELECT (SELECT count(*) FROM ratings WHERE player_id = $1) + (SELECT count(*) FROM rating_history WHERE player_id = $1)`,
		c.Player.ID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestStrangerCannotSeatAVictim is the probe of a stranger through HTTP:
// an unverified account creates a rated game with a one-minute forfeit
// time control naming a victim's id. The victim is not seated, the game
// is open with no clock (no deadline, no timer queued), the stranger can
// neither move nor resign, time passing changes nothing and no rating
// row is written; the victim finds it among their invitations, not their
// turns. Once they accept (POST join) it starts, its clock runs. A
// second probe is declined (POST decline), a third expires: both free
// the seat.
func TestStrangerCannotSeatAVictim(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	stranger, victim := env.register(t, "Stranger"), env.register(t, "Victim")
	var me play.Player
	stranger.call(http.MethodGet, "/v1/me", nil).mustStatus(t, http.StatusOK).decode(t, &me)
	if me.EmailVerified {
		t.Fatal("the stranger's account is verified")
	}
	probe := map[string]any{
		"ruleset": "azul-mini", "rated": true,
		"seats":        []map[string]string{{"player": "me"}, {"player": victim.Player.ID}},
		"time_control": map[string]string{"per_move": "1m", "on_timeout": "forfeit"},
	}
	var g struct {
		game
		Deadline *time.Time `json:"deadline"`
		Rated    bool       `json:"rated"`
	}
	stranger.call(http.MethodPost, "/v1/games", probe).mustStatus(t, http.StatusCreated).decode(t, &g)
	if g.Status != play.StatusOpen || g.Deadline != nil || !g.Rated || len(g.ToAct) != 0 {
		t.Fatalf("the probe's game: %+v", g)
	}
	if g.Seats[1].PlayerID != "" || g.Seats[1].Reserved != victim.Player.ID {
		t.Fatalf("the victim's seat: %+v, want it kept for them, not taken", g.Seats[1])
	}
	base := "/v1/games/" + g.ID
	for _, move := range []string{"resign", "F1 blue 1"} {
		res := stranger.call(http.MethodPost, base+"/moves", map[string]string{"notation": move})
		if res.Status < 400 || res.Status >= 500 {
			t.Fatalf("the stranger's %q in a game nobody accepted: %d %s", move, res.Status, res.Body)
		}
		res.problem(t)
	}
	if n := env.jobsFor(t, "azuld_timeout", g.ID); n != 0 {
		t.Fatalf("%d time-control timers for a game nobody accepted", n)
	}
	// The server's sweep, well past the per-move limit: nothing happens.
	later := play.New(play.Config{Pool: env.pool, Store: events.NewStore(env.pool), Rules: rulesets.All(),
		Now: func() time.Time { return time.Now().Add(time.Hour) }})
	if n, err := later.ExpireInvitations(context.Background()); err != nil || n != 0 {
		t.Fatalf("an hour on the sweep freed %d seats (%v)", n, err)
	}
	if after := stranger.getGame(g.ID); after.Version != g.Version || after.Status != play.StatusOpen {
		t.Fatalf("an hour on the game is %q at version %d (was %d)", after.Status, after.Version, g.Version)
	}
	if n := env.ratingRowsOf(t, victim) + env.ratingRowsOf(t, stranger); n != 0 {
		t.Fatalf("%d rating rows for a game nobody accepted", n)
	}
	var turns struct {
		Turns []struct {
			GameID string `json:"game_id"`
		} `json:"turns"`
	}
	victim.call(http.MethodGet, "/v1/me/turns", nil).mustStatus(t, http.StatusOK).decode(t, &turns)
	if len(turns.Turns) != 0 {
		t.Fatalf("the invitation is in the victim's turns: %+v", turns)
	}
	var invited struct {
		Games []struct {
			ID string `json:"id"`
		} `json:"games"`
	}
	victim.call(http.MethodGet, "/v1/games?invited=me", nil).mustStatus(t, http.StatusOK).decode(t, &invited)
	if len(invited.Games) != 1 || invited.Games[0].ID != g.ID {
		t.Fatalf("the victim's invitations: %+v", invited)
	}
	if n := env.jobsFor(t, "azuld_mail", g.ID); n != 1 {
		t.Fatalf("%d mails queued for the invitation, want 1", n)
	}

	// The victim accepts: the game starts and its clock runs.
	var started struct {
		game
		Deadline *time.Time `json:"deadline"`
	}
	victim.call(http.MethodPost, base+"/join", nil).mustStatus(t, http.StatusOK).decode(t, &started)
	if started.Status != play.StatusActive || started.Seats[1].PlayerID != victim.Player.ID || started.Deadline == nil {
		t.Fatalf("after the victim accepted: %+v", started)
	}
	if n := env.jobsFor(t, "azuld_timeout", g.ID); n == 0 {
		t.Fatal("no timer once the game started")
	}

	// A second probe, declined: the seat is free for anyone, the game
	// still open; declining twice is a 404.
	declined := stranger.createInviting(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: victim.Player.ID}}})
	var after rematchGame
	victim.call(http.MethodPost, "/v1/games/"+declined.ID+"/decline", nil).mustStatus(t, http.StatusOK).decode(t, &after)
	if after.Status != play.StatusOpen || after.Seats[1].Reserved != "" || after.Seats[1].PlayerID != "" || len(after.Declined) != 1 {
		t.Fatalf("after the decline: %+v", after)
	}
	victim.call(http.MethodPost, "/v1/games/"+declined.ID+"/decline", nil).mustStatus(t, http.StatusNotFound).problem(t)

	// A third, left unanswered past its time: the sweep frees the seat,
	// once.
	expiring := stranger.createInviting(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: victim.Player.ID}}})
	week := play.New(play.Config{Pool: env.pool, Store: events.NewStore(env.pool), Rules: rulesets.All(),
		Now: func() time.Time { return time.Now().Add(play.DefaultInvitationTTL + time.Minute) }})
	// The declined game's seat is free already: only this one's is left.
	if n, err := week.ExpireInvitations(context.Background()); err != nil || n != 1 {
		t.Fatalf("a week on the sweep freed %d seats (%v), want 1", n, err)
	}
	if n, err := week.ExpireInvitations(context.Background()); err != nil || n != 0 {
		t.Fatalf("a second sweep freed %d seats (%v)", n, err)
	}
	if got := stranger.getGame(expiring.ID); got.Seats[1].Reserved != "" || got.Status != play.StatusOpen {
		t.Fatalf("after the expiry: %+v", got)
	}
	victim.call(http.MethodPost, "/v1/games/"+expiring.ID+"/decline", nil).mustStatus(t, http.StatusNotFound).problem(t)
}
