package main

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/internal/eventually"
	"github.com/azuld/azuld/internal/pgtest"
)

// TestServeSurvivesADatabaseRestart stops the database under a running
// azuld whose job workers move a bot, and starts it again on the same
// data: meanwhile moves and /readyz answer 503; afterwards the same
// process takes moves again, its job workers move the bot, and it stops
// cleanly. Nothing is restarted but the database.
func TestServeSurvivesADatabaseRestart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cluster := pgtest.StartPrivateCluster(t)
	owner := cluster.URL
	r := startServe(t, map[string]string{
		"AZUL_DATABASE_URL": owner, "AZUL_HTTP_ADDR": "127.0.0.1:0", "AZUL_NOTIFY_WORKERS": "2",
	})
	stopped := false
	defer func() {
		if !stopped {
			r.stop(t)
		}
	}()
	call := func(method, path, token, body string, v any) int {
		t.Helper()
		status, data := r.call(t, method, path, token, body)
		if v != nil && status < 300 {
			if err := json.Unmarshal(data, v); err != nil {
				t.Fatalf("%s %s: %v", method, path, err)
			}
		}
		return status
	}
	var ana struct {
		Token string `json:"token"`
	}
	if s := call(http.MethodPost, "/v1/players", "", `{"name":"Ana","email":"ana@example.org"}`, &ana); s != http.StatusCreated {
		t.Fatalf("register: %d", s)
	}
	var g botJobsGame
	if s := call(http.MethodPost, "/v1/games", ana.Token, `{"ruleset":"azul-mini","seats":[{"bot":"greedy"},{"player":"me"}]}`, &g); s != http.StatusCreated {
		t.Fatalf("create: %d", s)
	}
	// waitForAna waits until the bot (seat 0) has moved, by its job.
	waitForAna := func() botJobsGame {
		t.Helper()
		var now botJobsGame
		eventually.True(t, time.Minute, func() bool {
			now = botJobsGame{}
			return call(http.MethodGet, "/v1/games/"+g.ID, "", "", &now) == http.StatusOK && (now.Status != "active" || slices.Contains(now.ToAct, 1))
		}, "the bot has not moved within a minute: %+v\n%s", eventually.Last(func() any { return now }), r.log)
		return now
	}
	g = waitForAna()
	legalMove := func() string {
		t.Helper()
		var legal struct {
			Moves []struct {
				Move json.RawMessage `json:"move"`
			} `json:"moves"`
		}
		if s := call(http.MethodGet, "/v1/games/"+g.ID+"/legal-moves", ana.Token, "", &legal); s != http.StatusOK || len(legal.Moves) == 0 {
			t.Fatalf("legal moves: %d, %d moves", s, len(legal.Moves))
		}
		return string(legal.Moves[0].Move)
	}
	move := legalMove()

	if err := cluster.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if s, body := r.call(t, http.MethodPost, "/v1/games/"+g.ID+"/moves", ana.Token, move); s != http.StatusServiceUnavailable {
		t.Fatalf("a move without a database: %d %s, want 503", s, body)
	}
	if s, _ := r.call(t, http.MethodGet, "/readyz", "", ""); s != http.StatusServiceUnavailable {
		t.Fatalf("/readyz without a database: %d, want 503", s)
	}
	// Long enough for the follower, the listener and the job workers to
	// find the database gone.
	time.Sleep(2 * time.Second)

	if err := cluster.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	eventually.True(t, time.Minute, func() bool {
		s, _ := r.call(t, http.MethodGet, "/readyz", "", "")
		return s == http.StatusOK
	}, "/readyz did not answer 200 within a minute of the database's return\n%s", r.log)
	before := g.Version
	if s := call(http.MethodPost, "/v1/games/"+g.ID+"/moves", ana.Token, move, nil); s != http.StatusCreated {
		t.Fatalf("a move after the database came back: %d", s)
	}
	// The bot's turn: a job, enqueued by the follower of the log and run
	// by a worker, both of which lived through the restart.
	g = waitForAna()
	if g.Version <= before+1 && g.Status == "active" {
		t.Fatalf("version %d after Ana's move at %d: the bot did not move", g.Version, before)
	}
	stopped = true
	if code := r.stop(t); code != 0 {
		t.Fatalf("azuld exited with %d after the restart:\n%s", code, r.log)
	}
	if strings.Contains(r.log.String(), `"level":"ERROR","msg":"the event listener stopped"`) {
		t.Fatalf("the event listener stopped:\n%s", r.log)
	}
}
