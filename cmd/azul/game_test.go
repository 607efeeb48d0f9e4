package main

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// state is the part of a game's state JSON the tests read.
type state struct {
	ID        string `json:"id"`
	Version   int    `json:"version"`
	Status    string `json:"status"`
	ToAct     []int  `json:"to_act"`
	YourSeats []int  `json:"your_seats"`
	Final     *struct {
		Winners []int `json:"winners"`
	} `json:"final"`
	PendingTakeback *struct {
		ID int `json:"id"`
	} `json:"pending_takeback"`
}

// legal is the output of azul moves --json.
type legal struct {
	Version int `json:"version"`
	Moves   []struct {
		Seat     int             `json:"seat"`
		Move     json.RawMessage `json:"move"`
		Notation string          `json:"notation"`
	} `json:"moves"`
}

// newTwoPlayerGame registers Ana and Bob, each with a configuration of
// their own, and starts a game between them: Ana creates it (with the
// options of new given), Bob joins.
func newTwoPlayerGame(t *testing.T, server string, options ...string) (ana, bob *user, id string) {
	t.Helper()
	ana, bob = newUser(t, server), newUser(t, server)
	ana.register("Ana")
	bob.register("Bob")
	var g state
	ana.mustJSON(&g, append([]string{"new", "--seat", "me", "--seat", "open"}, options...)...)
	if g.Status != "open" {
		t.Fatalf("new game is %s, want open", g.Status)
	}
	out := bob.must("join", g.ID)
	if !strings.Contains(out, "at seat 1; it is active") {
		t.Fatalf("join printed %q", out)
	}
	return ana, bob, g.ID
}

// TestCompleteGame plays a whole 2-player game with azul move from two
// configurations, in all three forms a move is given in, then checks
// what the finished game shows, its audit trail and its fairness.
func TestCompleteGame(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana, bob, id := newTwoPlayerGame(t, srv.URL)
	players := []*user{ana, bob}
	rng := rand.New(rand.NewPCG(15, 2))
	moves := 0
	for ; ; moves++ {
		if moves > 1000 {
			t.Fatal("the game did not end in 1000 moves")
		}
		var g state
		ana.mustJSON(&g, "show", id)
		if g.Status == "finished" {
			break
		}
		if len(g.ToAct) == 0 {
			t.Fatalf("active game with nobody to act: %+v", g)
		}
		seat := g.ToAct[0]
		u, other := players[seat], players[1-seat]
		var lm legal
		u.mustJSON(&lm, "moves", id)
		// Resigning would end the game early.
		var choices []int
		for i, m := range lm.Moves {
			if m.Seat == seat && m.Notation != "resign" {
				choices = append(choices, i)
			}
		}
		if len(choices) == 0 {
			t.Fatalf("seat %d has no move but resign: %+v", seat, lm)
		}
		k := choices[rng.IntN(len(choices))]
		m := lm.Moves[k]
		if len(g.ToAct) == 1 && moves%7 == 0 {
			// The other player may not move now: a refused move, exit 3,
			// the rule on one line.
			msg := other.wantCode(exitRefused, "move", id, m.Notation)
			if !strings.Contains(msg, "not your turn") || strings.Count(strings.TrimSpace(msg), "\n") != 0 {
				t.Fatalf("refused move explained as %q", msg)
			}
		}
		var out string
		switch moves % 3 {
		case 0:
			out = u.must("move", id, strconv.Itoa(k+1))
		case 1:
			out = u.must(append([]string{"move", id}, strings.Fields(m.Notation)...)...)
		default:
			body, err := json.Marshal(map[string]any{"move": m.Move, "seat": seat})
			if err != nil {
				t.Fatal(err)
			}
			out = u.must("move", id, string(body))
		}
		if !strings.Contains(out, "played "+m.Notation) {
			t.Fatalf("move %q printed %q", m.Notation, out)
		}
	}
	t.Logf("the game ended after %d moves", moves)
	if moves < 20 {
		t.Fatalf("the game ended after %d moves", moves)
	}

	// The finished table, as text without colours (not a terminal).
	show := ana.must("show", id)
	for _, want := range []string{"finished", "Final result:", "Seats: 0 you (Ana), 1 Bob"} {
		if !strings.Contains(show, want) {
			t.Errorf("show lacks %q:\n%s", want, show)
		}
	}
	if strings.Contains(show, "\x1b[") {
		t.Errorf("show printed colours to a non-terminal:\n%s", show)
	}
	// No moves are left; a move now is refused.
	if out := ana.must("moves", id); !strings.Contains(out, "No move to make now") {
		t.Errorf("moves of a finished game: %q", out)
	}
	if msg := ana.wantCode(exitRefused, "move", id, "1"); !strings.Contains(msg, "no move to make") {
		t.Errorf("move 1 in a finished game: %q", msg)
	}

	// The games list has it as finished, with its winner.
	if out := bob.must("games"); !strings.Contains(out, id) || !strings.Contains(out, "finished") || !strings.Contains(out, "won by seat") {
		t.Errorf("games after the end:\n%s", out)
	}

	// The audit trail has one line per version.
	var g state
	ana.mustJSON(&g, "show", id)
	logLines := strings.Split(strings.TrimSpace(ana.must("log", id)), "\n")
	if len(logLines) != g.Version {
		t.Errorf("log has %d lines for version %d", len(logLines), g.Version)
	}
	if !strings.Contains(logLines[1], "Bob joined at seat 1") {
		t.Errorf("log line 2: %q", logLines[1])
	}

	// Fairness: the server's check, and ours of the exported log.
	if out := ana.must("verify", id); !strings.Contains(out, ": pass:") {
		t.Errorf("verify %s: %s", id, out)
	}
	export := ana.must("export", id)
	file := filepath.Join(t.TempDir(), "game.jsonl")
	if err := os.WriteFile(file, []byte(export), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := bob.must("verify", file); !strings.Contains(out, ": pass:") || !strings.Contains(out, "seed ") {
		t.Errorf("verify %s: %s", file, out)
	}
	// A log with one draw changed fails the check, with exit code 1.
	tampered := tamper(t, export)
	if err := os.WriteFile(file, []byte(tampered), 0o600); err != nil {
		t.Fatal(err)
	}
	o := bob.run("verify", file)
	if o.code != exitFailure || !strings.Contains(o.out, "FAIL") {
		t.Errorf("verify of a tampered log: exit %d\n%s%s", o.code, o.out, o.errOut)
	}

	// replay --version prints the table of that version.
	rep := ana.must("replay", id, "--version", "5")
	if !strings.Contains(rep, "version 5 ") || !strings.Contains(rep, "Azul Mini, 2 players") {
		t.Errorf("replay --version 5:\n%s", rep)
	}
	if rep != ana.must("show", id, "--version", "5")+"\n" {
		t.Errorf("replay --version 5 and show --version 5 differ")
	}
}

// tamper changes the first draw of an exported log: a blue tile of the
// first round's factories becomes red.
func tamper(t *testing.T, export string) string {
	t.Helper()
	lines := strings.Split(export, "\n")
	for i, line := range lines {
		if strings.Contains(line, `"type":"factories_filled"`) && strings.Contains(line, `"blue"`) {
			lines[i] = strings.Replace(line, `"blue"`, `"red"`, 1)
			return strings.Join(lines, "\n")
		}
	}
	t.Fatalf("no factories_filled event with a blue tile in the export:\n%s", export)
	return ""
}
