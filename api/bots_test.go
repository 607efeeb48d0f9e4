package api

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/engine/bots"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
)

// TestBotSeatsAndBudgets: greedy and search seats are accepted (the search
// seat's budget is kept on the seat); a budget out of bounds, a budget for
// a bot that takes none and an unknown bot are problems, and create
// nothing.
func TestBotSeatsAndBudgets(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana := env.register(t, "Ana")
	res := ana.call(http.MethodPost, "/v1/games", `{"ruleset":"azul-mini","seats":[{"player":"me"},{"bot":"greedy"},{"bot":"search","budget":"150ms"}]}`,
		header{"Content-Type", "application/json"}).mustStatus(t, http.StatusCreated)
	if !strings.Contains(string(res.Body), `"bot":"search","budget":"150ms"`) || !strings.Contains(string(res.Body), `"bot":"greedy"`) {
		t.Fatalf("seats not as asked: %s", res.Body)
	}
	for _, body := range []string{
		`{"ruleset":"azul-mini","seats":[{"player":"me"},{"bot":"search","budget":"10s"}]}`,
		`{"ruleset":"azul-mini","seats":[{"player":"me"},{"bot":"search","budget":"quick"}]}`,
		`{"ruleset":"azul-mini","seats":[{"player":"me"},{"bot":"greedy","budget":"100ms"}]}`,
		`{"ruleset":"azul-mini","seats":[{"player":"me"},{"bot":"oracle"}]}`,
		`{"ruleset":"azul-mini","seats":[{"player":"me"},{"player":""}],"time_control":{"per_move":"1h","on_timeout":"bot","bot":"oracle"}}`,
	} {
		res := ana.call(http.MethodPost, "/v1/games", body, header{"Content-Type", "application/json"})
		if res.Status != http.StatusBadRequest {
			t.Fatalf("%s: status %d: %s", body, res.Status, res.Body)
		}
		res.problem(t)
	}
}

// TestAnalysisOfFinishedGames: a running game gets 403; a finished one
// gets 202 until a job worker has analysed the position, then the
// analysis: every legal move with its expected score difference, the move
// played and the best move.
func TestAnalysisOfFinishedGames(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana := env.register(t, "Ana")
	running := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Bot: "greedy"}}})
	ana.call(http.MethodGet, "/v1/games/"+running.ID+"/analysis?version=3", nil).mustStatus(t, http.StatusForbidden).problem(t)

	// Two bots play a whole game inside the create.
	done := ana.createGame(play.CreateGame{Ruleset: "summer-pavilion-mini", Seed: strings.Repeat("7e", 32), Visibility: play.VisibilityPublic, Seats: []play.SeatSpec{{Bot: "greedy"}, {Bot: "random"}}})
	if done.Status != play.StatusFinished {
		t.Fatalf("bots-only game is %s", done.Status)
	}
	path := "/v1/games/" + done.ID + "/analysis?version=4"
	for _, bad := range []string{"/v1/games/" + done.ID + "/analysis", "/v1/games/" + done.ID + "/analysis?version=0",
		"/v1/games/" + done.ID + "/analysis?version=" + strconv.FormatInt(done.Version, 10)} {
		ana.call(http.MethodGet, bad, nil).mustStatus(t, http.StatusBadRequest).problem(t)
	}
	first := ana.call(http.MethodGet, path, nil).mustStatus(t, http.StatusAccepted)
	if first.Header.Get("Retry-After") == "" {
		t.Fatal("202 without Retry-After")
	}
	// The API's notifier only enqueues; a worker process analyses.
	worker, err := notify.New(notify.Config{Pool: env.pool, Sender: compose.Sender{Domain: "mail.test", BaseURL: "http://azuld.test"},
		Workers: 1, FetchPollInterval: 20 * time.Millisecond, AnalysisPlayouts: testAnalysisPlayouts})
	if err != nil {
		t.Fatal(err)
	}
	worker.Attach(env.svc)
	if err := worker.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = worker.Shutdown(ctx)
	})
	var got notify.Analysis
	var raw struct {
		Moves []map[string]any `json:"moves"`
	}
	// The search takes seconds under the race detector, minutes on a
	// machine busy with other test binaries.
	deadline := time.Now().Add(5 * time.Minute)
	for {
		res := ana.call(http.MethodGet, path, nil)
		if res.Status == http.StatusOK {
			res.decode(t, &got)
			res.decode(t, &raw)
			break
		}
		if res.Status != http.StatusAccepted || time.Now().After(deadline) {
			t.Fatalf("status %d: %s", res.Status, res.Body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got.Version != 4 || got.Played == "" || got.Best == "" || len(got.Moves) == 0 || got.Playouts == 0 {
		t.Fatalf("analysis %+v", got)
	}
	played, best := false, false
	for _, m := range got.Moves {
		played = played || m.Notation == got.Played
		best = best || m.Notation == got.Best
		if m.Visits == 0 || len(m.Move) == 0 {
			t.Fatalf("move %+v not evaluated", m)
		}
	}
	if !played || !best {
		t.Fatalf("played %q or best %q not among the moves", got.Played, got.Best)
	}
	// Ranked by what the search trusts: the best first, then by playouts,
	// no move that was not searched before one that was; each searched
	// move with the interval of its figure.
	if got.Moves[0].Notation != got.Best {
		t.Fatalf("best %q, but %q is first", got.Best, got.Moves[0].Notation)
	}
	for i, m := range got.Moves {
		for _, field := range []string{"rank", "searched", "score_diff_margin", "visits"} {
			if _, ok := raw.Moves[i][field]; !ok {
				t.Fatalf("move %d has no %s: %v", i, field, raw.Moves[i])
			}
		}
		if m.Rank != i+1 || m.Searched != (m.Visits >= bots.MinSearchedVisits) || m.ScoreDiffMargin < 0 || !m.Searched && m.ScoreDiffMargin != 0 {
			t.Fatalf("move %d: %+v", i, m)
		}
		if i > 0 && (m.Visits > got.Moves[i-1].Visits || m.Searched && !got.Moves[i-1].Searched) {
			t.Fatalf("move %d (%+v) after %+v", i, m, got.Moves[i-1])
		}
	}
	if !got.Moves[0].Searched {
		t.Fatalf("the best move was not searched: %+v", got.Moves[0])
	}
}

// TestLevelSeats: the levels are seat kinds like the others: a game seats
// them (and a time control names one), the quick levels play a whole
// game inside the create, each level is rated as a bot of its own
// (bot:level3) with its name from the catalogue, and a level takes no
// budget.
func TestLevelSeats(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana := env.register(t, "Ana")
	res := ana.call(http.MethodPost, "/v1/games", `{"ruleset":"azul-mini","seats":[{"player":"me"},{"bot":"level3"}],
		"time_control":{"per_move":"1h","on_timeout":"bot","bot":"level2"}}`, header{"Content-Type", "application/json"}).mustStatus(t, http.StatusCreated)
	var g game
	res.decode(t, &g)
	if len(g.Seats) != 2 || g.Seats[1].Bot != bots.Level3 || g.Seats[1].Budget != "" || !strings.Contains(string(res.Body), `"bot":"level2"`) {
		t.Fatalf("seats or time control not as asked: %s", res.Body)
	}
	ana.resign(g.ID)
	// Level 1 against level 2: both quick, the game ends inside the create.
	done := ana.createGame(play.CreateGame{Ruleset: "summer-pavilion-mini", Seed: strings.Repeat("5a", 32), Visibility: play.VisibilityPublic,
		Seats: []play.SeatSpec{{Bot: bots.Level1}, {Bot: bots.Level2}}})
	if done.Status != play.StatusFinished {
		t.Fatalf("a game of levels 1 and 2 is %s", done.Status)
	}
	env.caughtUp(t)
	anon := env.anonymous(t)
	b := anon.publicProfile("bot:level3")
	if b.Bot != bots.Level3 || b.Name != "Level 3" || len(b.Ratings) != 1 || b.Ratings[0].Games != 1 || b.Ratings[0].Ruleset != "azul-mini" {
		t.Errorf("level 3's profile %+v", b)
	}
	if de := anon.call(http.MethodGet, "/v1/players/bot:level3", nil, header{"Accept-Language", "de"}); !strings.Contains(string(de.Body), `"name":"Stufe 3"`) {
		t.Errorf("level 3's profile in German: %s", de.Body)
	}
	// GET /v1/bots: every kind in order, its name, level and ratings.
	var list struct {
		Bots []struct {
			Kind    string `json:"kind"`
			Name    string `json:"name"`
			Level   int    `json:"level"`
			Ratings []struct {
				Ruleset string  `json:"ruleset"`
				Players int     `json:"players"`
				Rating  float64 `json:"rating"`
				Games   int     `json:"games"`
			} `json:"ratings"`
		} `json:"bots"`
	}
	anon.call(http.MethodGet, "/v1/bots", nil, header{"Accept-Language", "it"}).mustStatus(t, http.StatusOK).decode(t, &list)
	if len(list.Bots) != len(bots.Kinds()) {
		t.Fatalf("%d bot kinds: %+v", len(list.Bots), list.Bots)
	}
	for i, b := range list.Bots {
		if b.Kind != bots.Kinds()[i] || b.Name == "" || b.Level != bots.Level(b.Kind) {
			t.Errorf("bot %d: %+v", i, b)
		}
	}
	if l3 := list.Bots[5]; l3.Kind != bots.Level3 || l3.Name != "Livello 3" || l3.Level != 3 || len(l3.Ratings) != 1 ||
		l3.Ratings[0].Ruleset != "azul-mini" || l3.Ratings[0].Players != 2 || l3.Ratings[0].Games != 1 {
		t.Errorf("level 3 in the list: %+v", l3)
	}
	// The levels' game had a public seed: unrated.
	if l1 := list.Bots[3]; l1.Kind != bots.Level1 || len(l1.Ratings) != 0 {
		t.Errorf("level 1 in the list: %+v", l1)
	}
	for _, body := range []string{
		`{"ruleset":"azul-mini","seats":[{"player":"me"},{"bot":"level6","budget":"500ms"}]}`,
		`{"ruleset":"azul-mini","seats":[{"player":"me"},{"bot":"level7"}]}`,
		`{"ruleset":"azul-mini","seats":[{"player":"me"},{"bot":"level0"}]}`,
	} {
		res := ana.call(http.MethodPost, "/v1/games", body, header{"Content-Type", "application/json"})
		if res.Status != http.StatusBadRequest {
			t.Fatalf("%s: status %d: %s", body, res.Status, res.Body)
		}
		res.problem(t)
	}
}
