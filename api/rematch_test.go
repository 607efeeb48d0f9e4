package api

import (
	"net/http"
	"sync"
	"testing"

	"github.com/azuld/azuld/play"
)

// rematchGame is the state JSON with the rematch's links.
type rematchGame struct {
	game
	RematchOf string   `json:"rematch_of"`
	Rematch   string   `json:"rematch"`
	Declined  []string `json:"declined"`
}

// finishedAPIGame is a 2-player game between a and b that a ended by
// resigning.
func finishedAPIGame(t *testing.T, a, b *client) game {
	t.Helper()
	g := a.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: b.Player.ID}}})
	seat := g.ToAct[0]
	who := a
	if g.Seats[seat].PlayerID == b.Player.ID {
		who = b
	}
	who.call(http.MethodPost, "/v1/games/"+g.ID+"/moves", map[string]string{"notation": "resign"}).mustStatus(t, http.StatusCreated)
	return a.getGame(g.ID)
}

func TestRematchRoute(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana, ben, eve := env.register(t, "Ana"), env.register(t, "Ben"), env.register(t, "Eve")
	running := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.Player.ID}}})
	p := ana.call(http.MethodPost, "/v1/games/"+running.ID+"/rematch", nil).mustStatus(t, http.StatusConflict).problem(t)
	if p.Type != ProblemNotFinished {
		t.Fatalf("rematch of a running game: %+v", p)
	}
	old := finishedAPIGame(t, ana, ben)
	if old.Status != play.StatusFinished {
		t.Fatalf("status %q", old.Status)
	}
	// A stranger: 404, as for no game; no token: 401.
	if p := eve.call(http.MethodPost, "/v1/games/"+old.ID+"/rematch", nil).mustStatus(t, http.StatusNotFound).problem(t); p.Type != ProblemNotFound {
		t.Fatalf("a stranger's rematch: %+v", p)
	}
	env.anonymous(t).call(http.MethodPost, "/v1/games/"+old.ID+"/rematch", nil).mustStatus(t, http.StatusUnauthorized)

	// Both players at once: one game, created once.
	var wg sync.WaitGroup
	results := make([]response, 4)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = []*client{ana, ben}[i%2].call(http.MethodPost, "/v1/games/"+old.ID+"/rematch", nil)
		}()
	}
	wg.Wait()
	var id string
	created := 0
	for _, r := range results {
		var g rematchGame
		r.decode(t, &g)
		switch r.Status {
		case http.StatusCreated:
			created++
		case http.StatusOK:
		default:
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		if id == "" {
			id = g.ID
		}
		if g.ID != id || g.RematchOf != old.ID || r.Header.Get("Location") != "/v1/games/"+id {
			t.Fatalf("rematch %+v, location %q; want game %s", g, r.Header.Get("Location"), id)
		}
	}
	if created != 1 {
		t.Fatalf("%d responses say 201, want 1", created)
	}
	var oldAfter rematchGame
	eve.call(http.MethodGet, "/v1/games/"+old.ID, nil).mustStatus(t, http.StatusOK).decode(t, &oldAfter)
	if oldAfter.Rematch != id {
		t.Fatalf("the finished game links to %q, want %q", oldAfter.Rematch, id)
	}
	var g rematchGame
	ana.call(http.MethodGet, "/v1/games/"+id, nil).mustStatus(t, http.StatusOK).decode(t, &g)
	// Whoever came first sits, the other's seat is reserved.
	first, other := ana, ben
	if len(g.YourSeats) == 0 {
		first, other = ben, ana
	}
	reserved := -1
	for i, s := range g.Seats {
		if s.Reserved == other.Player.ID && s.PlayerID == "" {
			reserved = i
		}
	}
	if reserved < 0 || g.Status != play.StatusOpen {
		t.Fatalf("no seat reserved for %s: %+v", other.Player.Name, g.Seats)
	}
	_ = first
	// Eve may not take it, with or without naming the seat.
	p = eve.call(http.MethodPost, "/v1/games/"+id+"/join", map[string]int{"seat": reserved}).mustStatus(t, http.StatusForbidden).problem(t)
	if p.Detail == "" || p.Type != ProblemForbidden {
		t.Fatalf("Eve's join: %+v", p)
	}
	eve.call(http.MethodPost, "/v1/games/"+id+"/join", nil).mustStatus(t, http.StatusForbidden)
	eve.call(http.MethodPost, "/v1/games/"+id+"/decline", nil).mustStatus(t, http.StatusNotFound)
	first.call(http.MethodPost, "/v1/games/"+id+"/decline", nil).mustStatus(t, http.StatusForbidden)
	// The invited player accepts by joining: the game starts.
	var joined game
	other.call(http.MethodPost, "/v1/games/"+id+"/join", nil).mustStatus(t, http.StatusOK).decode(t, &joined)
	if joined.Status != play.StatusActive || joined.Seats[reserved].PlayerID != other.Player.ID {
		t.Fatalf("after the acceptance: %+v", joined)
	}
}

func TestDeclineRoute(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana, ben, eve := env.register(t, "Ana"), env.register(t, "Ben"), env.register(t, "Eve")
	old := finishedAPIGame(t, ana, ben)
	var g rematchGame
	ana.call(http.MethodPost, "/v1/games/"+old.ID+"/rematch", nil).mustStatus(t, http.StatusCreated).decode(t, &g)
	var after rematchGame
	ben.call(http.MethodPost, "/v1/games/"+g.ID+"/decline", nil).mustStatus(t, http.StatusOK).decode(t, &after)
	g = after
	if len(g.Declined) != 1 || g.Declined[0] != ben.Player.ID {
		t.Fatalf("declined %v", g.Declined)
	}
	for _, s := range g.Seats {
		if s.Reserved != "" {
			t.Fatalf("a seat is still reserved: %+v", g.Seats)
		}
	}
	ben.call(http.MethodPost, "/v1/games/"+g.ID+"/decline", nil).mustStatus(t, http.StatusNotFound)
	// The freed seat is anyone's.
	eve.call(http.MethodPost, "/v1/games/"+g.ID+"/join", nil).mustStatus(t, http.StatusOK)
}
