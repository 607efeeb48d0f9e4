package main

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/azuld/azuld/internal/eventually"
	"github.com/azuld/azuld/migrations"
)

// botJobsGame is what the test reads of a game.
type botJobsGame struct {
	ID             string `json:"id"`
	Version        int64  `json:"version"`
	CurrentVersion int64  `json:"current_version"`
	Status         string `json:"status"`
	ToAct          []int  `json:"to_act"`
	Events         []struct {
		Version int64 `json:"version"`
		Meta    struct {
			Actor struct {
				Kind string `json:"kind"`
				Bot  string `json:"bot"`
				Seat *int   `json:"seat"`
			} `json:"actor"`
			Channel   string `json:"channel"`
			CommandID string `json:"command_id"`
		} `json:"meta"`
	} `json:"events"`
}

// TestBotsMoveFromJobWorkers: two azuld processes share a database, both
// running job workers. No request moves a bot: the creation of a game
// whose greedy bot starts answers before the bot's move, and so does
// every move of Ana's that brings the bot's turn. The bot's move then
// follows within a bounded wait, by actor bot on channel bot under the
// job's command id, and every bot turn is moved by exactly one job.
func TestBotsMoveFromJobWorkers(t *testing.T) {
	t.Parallel()
	owner := pg.NewDatabase(t)
	if err := migrations.Up(t.Context(), owner); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"AZUL_DATABASE_URL": pg.ServerRoleURL(t, owner), "AZUL_MIGRATE_DATABASE_URL": owner,
		"AZUL_HTTP_ADDR": "127.0.0.1:0", "AZUL_NOTIFY_WORKERS": "2",
	}
	servers := []*running{startServe(t, env), startServe(t, env)}
	defer func() {
		for _, r := range servers {
			if code := r.stop(t); code != 0 {
				t.Errorf("azuld exited with %d:\n%s", code, r.log)
			}
		}
	}()
	call := func(r *running, method, path, token, body string, want int, v any) {
		t.Helper()
		status, data := r.call(t, method, path, token, body)
		if status != want {
			t.Fatalf("%s %s: %d %s", method, path, status, data)
		}
		if v != nil {
			if err := json.Unmarshal(data, v); err != nil {
				t.Fatalf("%s %s: %v", method, path, err)
			}
		}
	}
	var ana struct {
		Token string `json:"token"`
	}
	call(servers[0], http.MethodPost, "/v1/players", "", `{"name":"Ana","email":"ana@example.org"}`, http.StatusCreated, &ana)

	// The greedy bot holds seat 0, which starts: the creation answers
	// with the bot still to act.
	var g botJobsGame
	call(servers[0], http.MethodPost, "/v1/games", ana.Token,
		`{"ruleset":"azul-mini","seats":[{"bot":"greedy"},{"player":"me"}]}`, http.StatusCreated, &g)
	if g.Status != "active" || !slices.Equal(g.ToAct, []int{0}) {
		t.Fatalf("created: status %s, to act %v: want the bot (seat 0) still to act", g.Status, g.ToAct)
	}
	created := g.Version

	// waitForAna polls a server until Ana (seat 1) must act or the game
	// is over.
	waitForAna := func(r *running) botJobsGame {
		t.Helper()
		var now botJobsGame
		eventually.True(t, 30*time.Second, func() bool {
			now = botJobsGame{}
			call(r, http.MethodGet, "/v1/games/"+g.ID, "", "", http.StatusOK, &now)
			return now.Status != "active" || slices.Contains(now.ToAct, 1)
		}, "the bot has not moved: version %d, to act %v",
			eventually.Last(func() any { return now.Version }), eventually.Last(func() any { return now.ToAct }))
		return now
	}
	g = waitForAna(servers[1])
	if g.Version <= created {
		t.Fatalf("Ana is to act at version %d, the game was created at %d", g.Version, created)
	}

	// Ana plays her first legal move, through each server in turn. An
	// answer that leaves the bot to act holds her move only.
	handedOver := 0
	for i := 0; i < 8 && g.Status == "active"; i++ {
		r := servers[i%2]
		var legal struct {
			Moves []struct {
				Move json.RawMessage `json:"move"`
			} `json:"moves"`
		}
		call(r, http.MethodGet, "/v1/games/"+g.ID+"/legal-moves", ana.Token, "", http.StatusOK, &legal)
		if len(legal.Moves) == 0 {
			t.Fatalf("Ana has no legal move at version %d", g.Version)
		}
		var moved botJobsGame
		call(r, http.MethodPost, "/v1/games/"+g.ID+"/moves", ana.Token, string(legal.Moves[0].Move), http.StatusCreated, &moved)
		for _, e := range moved.Events {
			if e.Meta.Actor.Kind != "player" || e.Meta.Channel != "api" {
				t.Fatalf("the answer to Ana's move holds an event by %+v on %q", e.Meta.Actor, e.Meta.Channel)
			}
		}
		if moved.CurrentVersion != moved.Version {
			t.Fatalf("the answer is at version %d, Ana's move at %d: something else moved within the request", moved.CurrentVersion, moved.Version)
		}
		if moved.Status == "active" && slices.Equal(moved.ToAct, []int{0}) {
			handedOver++
		}
		g = waitForAna(servers[(i+1)%2])
	}
	if handedOver == 0 {
		t.Fatal("no move of Ana's handed the turn to the bot")
	}

	// The log: every bot command came from the job of its version, and
	// every job of this game made exactly one move.
	var log botJobsGame
	call(servers[0], http.MethodGet, "/v1/games/"+g.ID+"/events?limit=1000", "", "", http.StatusOK, &log)
	botMoves := map[int64]bool{} // by the version the bot moved at
	for i, e := range log.Events {
		if e.Meta.Channel != "bot" && e.Meta.Actor.Kind != "bot" {
			continue
		}
		before := e.Version - 1
		if i > 0 && log.Events[i-1].Meta.CommandID == e.Meta.CommandID {
			continue // a later event of the same command
		}
		want := "bot:" + strconv.FormatInt(before, 10) + ":0"
		if e.Meta.Actor.Kind != "bot" || e.Meta.Actor.Bot != "greedy" || e.Meta.Channel != "bot" || e.Meta.CommandID != want {
			t.Fatalf("event %d: actor %+v, channel %q, command %q: want the greedy bot on channel bot, command %q",
				e.Version, e.Meta.Actor, e.Meta.Channel, e.Meta.CommandID, want)
		}
		botMoves[before] = true
	}
	if len(botMoves) < handedOver+1 {
		t.Fatalf("%d bot moves, for %d turns handed over after the bot's first", len(botMoves), handedOver)
	}

	db, err := pgx.Connect(t.Context(), owner)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(t.Context())
	// River marks a job completed shortly after its work returns.
	// Within, not True: the checks below name each job that is not.
	var jobs map[int64]string
	eventually.Within(10*time.Second, func() bool {
		jobs = botMoveJobs(t, db, g.ID)
		done := true
		for version := range botMoves {
			done = done && jobs[version] == "completed"
		}
		return done
	})
	for version := range botMoves {
		if jobs[version] != "completed" {
			t.Errorf("the bot moved at version %d, whose job is %q", version, jobs[version])
		}
	}
	for version, state := range jobs {
		if !botMoves[version] {
			t.Errorf("a bot-move job for version %d (%s) made no move", version, state)
		}
	}
	t.Logf("%d bot moves, %d of them after Ana's moves, through %d servers", len(botMoves), handedOver, len(servers))
}

// botMoveJobs is the state of each bot-move job of a game, by version.
func botMoveJobs(t *testing.T, db *pgx.Conn, gameID string) map[int64]string {
	t.Helper()
	rows, err := db.Query(t.Context(), `
		SELECT (args->>'version')::bigint, state FROM river_job
		WHERE kind = 'azuld_bot_move' AND args->>'game_id' = $1`, gameID)
	if err != nil {
		t.Fatal(err)
	}
	jobs := map[int64]string{}
	for rows.Next() {
		var version int64
		var state string
		if err := rows.Scan(&version, &state); err != nil {
			t.Fatal(err)
		}
		if _, twice := jobs[version]; twice {
			t.Errorf("two bot-move jobs for version %d", version)
		}
		jobs[version] = state
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return jobs
}
