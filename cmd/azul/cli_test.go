package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTakebacks asks for take-backs the other player accepts and
// declines.
func TestTakebacks(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	// Unrated: take-backs are allowed.
	ana, bob, id := newTwoPlayerGame(t, srv.URL, "--unrated")
	ana.play(id, 1)
	out := ana.must("takeback", id)
	if !strings.Contains(out, "waits for seat 1 to accept") {
		t.Fatalf("takeback: %q", out)
	}
	if show := bob.must("show", id); !strings.Contains(show, "Seat 0 asks to take back 1 move ") {
		t.Errorf("show with an open take-back:\n%s", show)
	}
	if out := bob.must("accept", id); !strings.Contains(out, "Taken back: game "+id+" is back at version 4") {
		t.Errorf("accept: %q", out)
	}
	var g state
	ana.mustJSON(&g, "show", id)
	if len(g.ToAct) != 1 || g.ToAct[0] != 0 || g.PendingTakeback != nil {
		t.Errorf("after the take-back: %+v", g)
	}
	ana.play(id, 2)
	ana.must("takeback", id)
	if out := bob.must("decline", id); !strings.Contains(out, "was declined by seat 1") {
		t.Errorf("decline: %q", out)
	}
	// Nothing left to answer: refused.
	if msg := bob.wantCode(exitRefused, "accept", id); !strings.Contains(msg, "no open take-back request") {
		t.Errorf("accept without a request: %q", msg)
	}
	// The undone move is marked in the audit trail.
	if log := ana.must("log", id); !strings.Contains(log, "(undone at version") {
		t.Errorf("log after a take-back:\n%s", log)
	}
}

// TestExitCodes: usage errors, refused moves, network failures and
// missing sign-in have exit codes of their own.
func TestExitCodes(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana, _, id := newTwoPlayerGame(t, srv.URL)
	ana.must("moves", id)

	for _, args := range [][]string{
		{"show", "not-a-game"},
		{"move", id},
		{"frobnicate"},
		{"show", id, "--colour"},
		{"new", "--ruleset", "chess"},
		{"new", "--seat", "somebody"},
		{"new", "--per-move", "three days"},
		{"show", id, "--version", "0"},
		{"move", id, "99999"},
		{"move", id, "1@x"},
		{"join", id, "--seat", "9"}, // refused by the server as a bad request
	} {
		if msg := ana.wantCode(exitUsage, args...); !strings.Contains(msg, "azul: ") {
			t.Errorf("azul %s: %q", strings.Join(args, " "), msg)
		}
	}

	msg := ana.wantCode(exitRefused, "move", id, "F9", "red", "3")
	for _, want := range []string{"The move breaks a rule", "rule azul.no-such-factory", "legal moves", "F1 "} {
		if !strings.Contains(msg, want) {
			t.Errorf("illegal move explained without %q: %q", want, msg)
		}
	}
	if strings.Count(strings.TrimSpace(msg), "\n") != 0 {
		t.Errorf("the refusal is not one line: %q", msg)
	}

	down := newUser(t, "http://127.0.0.1:1")
	if msg := down.wantCode(exitNetwork, "show", id); !strings.Contains(msg, "cannot reach http://127.0.0.1:1") {
		t.Errorf("network failure: %q", msg)
	}

	stranger := newUser(t, srv.URL)
	if msg := stranger.wantCode(exitNotAllow, "games"); !strings.Contains(msg, "not signed in") {
		t.Errorf("games without a token: %q", msg)
	}
	if msg := stranger.wantCode(exitNotAllow, "login", "not-a-token"); !strings.Contains(msg, "does not know this token") {
		t.Errorf("login with a bad token: %q", msg)
	}
	if msg := ana.wantCode(exitFailure, "show", "00000000-0000-4000-8000-000000000000"); !strings.Contains(msg, "There is no game") {
		t.Errorf("unknown game: %q", msg)
	}
}

// TestJSONEverywhere: --json prints the API's JSON for every command,
// problems included.
func TestJSONEverywhere(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana, bob := newUser(t, srv.URL), newUser(t, srv.URL)
	var reg struct{ Token string }
	ana.mustJSON(&reg, "register", "Ana")
	bob.must("register", "Bob")
	if reg.Token == "" {
		t.Fatal("register --json shows no token")
	}
	other := newUser(t, srv.URL)
	var me struct{ Name string }
	other.mustJSON(&me, "login", reg.Token)
	if me.Name != "Ana" {
		t.Errorf("login --json: %+v", me)
	}
	var g state
	// Unrated, so that take-backs are allowed.
	ana.mustJSON(&g, "new", "--unrated")
	id := g.ID
	bob.mustJSON(&g, "join", id)
	for _, args := range [][]string{
		{"games"}, {"show", id}, {"show", id, "--version", "2"}, {"moves", id},
		{"move", id, "1"}, {"takeback", id}, {"accept", id}, {"moves", id}, {"move", id, "1"},
		{"takeback", id}, {"decline", id}, {"log", id}, {"verify", id},
		{"replay", id, "--version", "3"},
	} {
		u := ana
		if args[0] == "accept" || args[0] == "decline" {
			u = bob
		}
		var v map[string]any
		u.mustJSON(&v, args...)
		if len(v) == 0 {
			t.Errorf("azul %s --json: empty object", strings.Join(args, " "))
		}
	}
	// Several documents, one a line: replay, export and watch.
	lines := func(args ...string) []string {
		out := ana.must(append(args, "--json")...)
		ls := strings.Split(strings.TrimSpace(out), "\n")
		for _, l := range ls {
			if !json.Valid([]byte(l)) {
				t.Errorf("azul %s --json printed %q", strings.Join(args, " "), l)
			}
		}
		return ls
	}
	ana.mustJSON(&g, "show", id)
	if n := len(lines("replay", id)); n != g.Version {
		t.Errorf("replay --json printed %d states for version %d", n, g.Version)
	}
	if n := len(lines("export", id)); n != g.Version {
		t.Errorf("export printed %d events for version %d", n, g.Version)
	}
	file := filepath.Join(t.TempDir(), "export.jsonl")
	if err := os.WriteFile(file, []byte(ana.must("export", id)), 0o600); err != nil {
		t.Fatal(err)
	}
	var report struct{ Result string }
	ana.mustJSON(&report, "verify", file)
	if report.Result != "committed" {
		t.Errorf("verify FILE --json of a running game: %+v", report)
	}
	// watch goes on until stopped: it is stopped once it has printed its
	// first line (or after the tests' patience, which fails), not after
	// a fixed time a busy machine may not give it.
	o := ana.runUntilLine(patience, "watch", id, "--json")
	first, _, _ := strings.Cut(o.out, "\n")
	var st state
	if o.code != exitOK || json.Unmarshal([]byte(first), &st) != nil || st.Version != g.Version {
		t.Errorf("watch --json: exit %d, first line %q", o.code, first)
	}
	// A problem is printed as the API sent it, on standard output.
	ana.mustJSON(&g, "show", id)
	if len(g.ToAct) != 1 || g.ToAct[0] != 1 {
		t.Fatalf("to act: %v, want Bob (seat 1)", g.ToAct)
	}
	res := bob.run("move", id, "F9", "red", "3", "--json")
	var p struct {
		Type       string
		Rule       string
		LegalMoves []any `json:"legal_moves"`
	}
	if res.code != exitRefused || json.Unmarshal([]byte(res.out), &p) != nil || p.Rule == "" || len(p.LegalMoves) == 0 {
		t.Errorf("refused move --json: exit %d, %q", res.code, res.out)
	}
}

// TestConfiguration: register and login keep the server and token in
// the configuration file; AZUL_SERVER and AZUL_TOKEN override it, and
// flags override both.
func TestConfiguration(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana := newUser(t, srv.URL)
	ana.register("Ana")
	info, err := os.Stat(ana.configFile())
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("the configuration is %v, want -rw-------", info.Mode().Perm())
	}
	cfg, err := loadConfig(ana.configFile())
	if err != nil || cfg.Server != srv.URL || cfg.Token == "" {
		t.Fatalf("configuration %+v, %v", cfg, err)
	}
	// The file alone is enough.
	delete(ana.env, "AZUL_SERVER")
	ana.must("games")
	// AZUL_SERVER overrides the file, --server the variable.
	ana.env["AZUL_SERVER"] = "http://127.0.0.1:1"
	ana.wantCode(exitNetwork, "games")
	ana.must("games", "--server", srv.URL)
	delete(ana.env, "AZUL_SERVER")
	// AZUL_TOKEN overrides the file's token, --token the variable.
	ana.env["AZUL_TOKEN"] = "bogus"
	ana.wantCode(exitNotAllow, "games")
	ana.must("games", "--token", cfg.Token)
	delete(ana.env, "AZUL_TOKEN")

	// login reads the token from standard input and keeps it.
	laptop := newUser(t, srv.URL)
	o := laptop.runIn(context.Background(), strings.NewReader(cfg.Token+"\n"), "login")
	if o.code != exitOK || !strings.Contains(o.out, "Signed in as Ana") {
		t.Fatalf("login: exit %d %s%s", o.code, o.out, o.errOut)
	}
	laptop.must("games")
	// --config names another file.
	other := filepath.Join(t.TempDir(), "azul.conf")
	laptop.must("--config", other, "login", cfg.Token)
	if saved, err := loadConfig(other); err != nil || saved.Token != cfg.Token {
		t.Errorf("--config file: %+v, %v", saved, err)
	}
}

// TestCompletion: completion scripts for bash, zsh and fish, and game
// ids completed from the player's games.
func TestCompletion(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana, _, id := newTwoPlayerGame(t, srv.URL)
	for _, shell := range []string{"bash", "zsh", "fish"} {
		if out := ana.must("completion", shell); !strings.Contains(out, "azul") || len(out) < 500 {
			t.Errorf("completion %s: %q", shell, out)
		}
	}
	out := ana.must("__complete", "show", "")
	if !strings.Contains(out, id+"\tAzul Mini, active") {
		t.Errorf("game ids completed as %q", out)
	}
	if out := ana.must("__complete", "new", "--ruleset", ""); !strings.Contains(out, "summer-pavilion-mini") {
		t.Errorf("rule sets completed as %q", out)
	}
}
