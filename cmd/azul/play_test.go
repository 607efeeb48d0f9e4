package main

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestMoveNumberBoundToList: a move number means the move it had in the
// list the player saw. Once the game has moved on, the number is refused
// with exit 3 and the list of now, which the number then counts in;
// N@VERSION binds a number without a list; notation is not bound.
func TestMoveNumberBoundToList(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana, bob, id := newTwoPlayerGame(t, srv.URL)
	var first legal
	ana.mustJSON(&first, "moves", id) // version 4
	ana.must("move", id, first.Moves[0].Notation)
	bob.play(id, 1) // version 6

	// Ana's list is of version 4: her 3 is refused, not played.
	o := ana.run("move", id, "3")
	if o.code != exitRefused {
		t.Fatalf("a number from an old list: exit %d, want %d\n%s%s", o.code, exitRefused, o.out, o.errOut)
	}
	for _, want := range []string{"moved on since the list you saw (version 4, now 6)", "move 3 no longer means what it did"} {
		if !strings.Contains(o.errOut, want) {
			t.Errorf("the refusal lacks %q: %q", want, o.errOut)
		}
	}
	var now legal
	ana.mustJSON(&now, "moves", id)
	if now.Version != 6 || !strings.Contains(o.out, "Your moves at version 6") || !strings.Contains(o.out, "   3. "+now.Moves[2].Notation) {
		t.Errorf("the refusal does not list the moves of version 6:\n%s", o.out)
	}
	var g state
	ana.mustJSON(&g, "show", id)
	if g.Version != 6 {
		t.Fatalf("the refused number changed the game: version %d", g.Version)
	}
	// The refusal's list is the one the number now counts in.
	if out := ana.must("move", id, "3"); !strings.Contains(out, "played "+now.Moves[2].Notation) {
		t.Errorf("move 3 of the list of version 6 printed %q, want %q", out, now.Moves[2].Notation)
	}

	// Never listed: a number is refused, and the list printed.
	carl := newUser(t, srv.URL)
	carl.env["AZUL_TOKEN"] = tokenOf(t, bob)
	if msg := carl.wantCode(exitRefused, "move", id, "1"); !strings.Contains(msg, "none was printed for this game yet") {
		t.Errorf("a number never listed: %q", msg)
	}

	// N@VERSION: bound by the caller, whatever was listed.
	var mine legal
	bob.mustJSON(&mine, "moves", id)
	if msg := bob.wantCode(exitRefused, "move", id, fmt.Sprintf("2@%d", mine.Version-1)); !strings.Contains(msg, "moved on since version 6") {
		t.Errorf("an old N@VERSION: %q", msg)
	}
	if out := bob.must("move", id, fmt.Sprintf("2@%d", mine.Version)); !strings.Contains(out, "played "+mine.Moves[1].Notation) {
		t.Errorf("2@%d printed %q, want %q", mine.Version, out, mine.Moves[1].Notation)
	}
	// Notation needs no list.
	ana.mustJSON(&now, "moves", id)
	bob.must("moves", id)
	if out := ana.must("move", id, now.Moves[0].Notation); !strings.Contains(out, "played "+now.Moves[0].Notation) {
		t.Errorf("a move in notation printed %q", out)
	}
}

// tokenOf is the token a user's configuration keeps.
func tokenOf(t *testing.T, u *user) string {
	t.Helper()
	cfg, err := loadConfig(u.configFile())
	if err != nil || cfg.Token == "" {
		t.Fatalf("no token in %s: %v", u.configFile(), err)
	}
	return cfg.Token
}

// TestMovesInColumns: the legal moves are numbered down columns that
// fit the terminal (80 wide when the output is no terminal), every
// number once.
func TestMovesInColumns(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana, _, id := newTwoPlayerGame(t, srv.URL)
	var lm legal
	ana.mustJSON(&lm, "moves", id)
	if len(lm.Moves) < 40 {
		t.Fatalf("only %d legal moves at the start", len(lm.Moves))
	}
	check := func(screen string, width int) {
		t.Helper()
		lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
		if len(lines) > len(lm.Moves)/3+2 {
			t.Errorf("%d moves take %d lines at width %d:\n%s", len(lm.Moves), len(lines), width, screen)
		}
		for _, l := range lines {
			if len([]rune(l)) > width {
				t.Errorf("a line is wider than %d: %q", width, l)
			}
		}
		cells := map[string]int{}
		for _, l := range lines {
			for _, c := range regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(l), -1) {
				cells[c]++
			}
		}
		for i, m := range lm.Moves {
			if c := fmt.Sprintf("%d. %s", i+1, m.Notation); cells[c] != 1 {
				t.Errorf("%q is listed %d times at width %d:\n%s", c, cells[c], width, screen)
			}
		}
	}
	check(ana.must("moves", id), 80)
	term := newTerminal(t) // 100 columns
	wantExit(t, term.run(context.Background(), ana, "moves", id), exitOK)
	check(term.waitFor(fmt.Sprintf("%d. %s", len(lm.Moves), lm.Moves[len(lm.Moves)-1].Notation)), 100)
}

// TestBoardSeatNames: the tables of show and watch name the players, as
// the mails and the web page do, the reader's own seat marked "(you)".
func TestBoardSeatNames(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana, bob, id := newTwoPlayerGame(t, srv.URL)
	show := ana.must("show", id)
	for _, want := range []string{"Ana (you) to take tiles.", "Ana (you): 0 points", "Bob: 0 points"} {
		if !strings.Contains(show, want) {
			t.Errorf("show lacks %q:\n%s", want, show)
		}
	}
	if strings.Contains(show, "Seat ") {
		t.Errorf("show names seats by number:\n%s", show)
	}
	term := newTerminal(t)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	code := term.run(ctx, bob, "watch", id)
	s := term.waitFor("Watching for moves", "Ana to take tiles.", "Ana: 0 points", "Bob (you): 0 points")
	if strings.Contains(s, "Seat ") {
		t.Errorf("watch names seats by number:\n%s", s)
	}
	stop()
	wantExit(t, code, exitOK)
}

// playToRoundEnd plays move 1 for whoever is to act until a move ends
// the first round; it returns what that move printed and the versions
// before and after it.
func playToRoundEnd(t *testing.T, players []*user, id string) (out string, before, after int) {
	t.Helper()
	for range 100 {
		var g state
		players[0].mustJSON(&g, "show", id)
		out = players[g.ToAct[0]].play(id, 1)
		var now state
		players[0].mustJSON(&now, "show", id)
		if now.Version > g.Version+1 {
			return out, g.Version, now.Version
		}
	}
	t.Fatal("no round ended in 100 moves")
	return "", 0, 0
}

// TestRoundEnd: the move that ends a round prints one line for the move,
// then what the round's end did, one line each; the audit trail credits
// those automatic events to nobody, and words the floors plainly.
func TestRoundEnd(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana, bob, id := newTwoPlayerGame(t, srv.URL)
	out, before, after := playToRoundEnd(t, []*user{ana, bob}, id)
	t.Logf("the move that ended the round printed:\n%s", out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if strings.Count(out, " played ") != 1 || !strings.HasSuffix(lines[0], fmt.Sprintf("(version %d).", before+1)) {
		t.Errorf("the move is not one line:\n%s", out)
	}
	if !regexp.MustCompile(`^(Ana|Bob) played `).MatchString(lines[0]) {
		t.Errorf("the move line does not name the player: %q", lines[0])
	}
	if want := fmt.Sprintf("Then, automatically (versions %d to %d):", before+2, after); !strings.Contains(out, want) {
		t.Errorf("the round's end is not introduced by %q:\n%s", want, out)
	}
	for _, want := range []string{" to the wall: +", "floor, ", "Round 2 began"} {
		if !strings.Contains(out, want) {
			t.Errorf("the round's end lacks %q:\n%s", want, out)
		}
	}
	seen := map[string]bool{}
	for _, l := range lines {
		if seen[l] {
			t.Errorf("a line is repeated: %q\n%s", l, out)
		}
		seen[l] = true
	}
	if !strings.HasPrefix(lines[len(lines)-1], fmt.Sprintf("Game %s is at version %d", id, after)) {
		t.Errorf("the last line: %q", lines[len(lines)-1])
	}

	log := strings.Split(strings.TrimSpace(ana.must("log", id)), "\n")
	if len(log) != after {
		t.Fatalf("the log has %d lines for version %d", len(log), after)
	}
	// The command line is its own channel in the log.
	if !strings.Contains(log[before], "via cli") {
		t.Errorf("the move is not credited to its player: %q", log[before])
	}
	for _, l := range log[before+1 : after] {
		if !strings.Contains(l, " automatic ") || strings.Contains(l, "via cli") || strings.Contains(l, "seat ") {
			t.Errorf("an automatic event is credited to someone: %q", l)
		}
		if strings.Contains(l, "printed") || regexp.MustCompile(`[(,] ?marker`).MatchString(l) {
			t.Errorf("a floor in the wording of the rules' code: %q", l)
		}
	}
}

// lastMoves reads the versions the "Last moves" list of a watch screen
// shows, in order, and whether a move's line is followed by the line of
// what followed it automatically.
func lastMoves(screen string) (versions []int, then []string) {
	_, list, _ := strings.Cut(screen, "\nLast moves:\n")
	list, _, _ = strings.Cut(list, "\n\n")
	for _, l := range strings.Split(list, "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			if v, err := strconv.Atoi(f[0]); err == nil {
				versions = append(versions, v)
				continue
			}
			then = append(then, strings.TrimSpace(l))
		}
	}
	return versions, then
}

// movesInLog are the versions of the last n moves in a game's event
// log: the first event of each command (what followed from it
// automatically shares its command id).
func movesInLog(t *testing.T, u *user, id string, n int) []int {
	t.Helper()
	var log struct {
		Events []struct {
			Version int `json:"version"`
			Meta    struct {
				CommandID string `json:"command_id"`
			} `json:"meta"`
		} `json:"events"`
	}
	u.mustJSON(&log, "log", id)
	var out []int
	for i, ev := range log.Events {
		if i > 0 && ev.Meta.CommandID != "" && ev.Meta.CommandID == log.Events[i-1].Meta.CommandID {
			continue
		}
		out = append(out, ev.Version)
	}
	return out[max(len(out)-n, 0):]
}

// TestWatchLastMoves: the list below a watched table has each of the
// last moves once, none missing, a round's end summed up under the move
// that ended it — also after the stream was cut and taken up again.
func TestWatchLastMoves(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana, bob, id := newTwoPlayerGame(t, srv.URL)
	players := []*user{ana, bob}
	term := newTerminal(t)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	code := term.run(ctx, bob, "watch", id)
	term.waitFor("version 4  active", "Watching for moves")

	check := func(version int) {
		t.Helper()
		s := term.waitFor(fmt.Sprintf("version %d  active", version), "Watching for moves")
		got, then := lastMoves(s)
		want := movesInLog(t, ana, id, recentMoves)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("the last moves are versions %v, want %v:\n%s", got, want, s)
		}
		for _, l := range then {
			if !strings.HasPrefix(l, "then scores Ana ") || !strings.Contains(l, "round 2 began") {
				t.Errorf("a round's end summed up as %q:\n%s", l, s)
			}
		}
	}
	_, _, after := playToRoundEnd(t, players, id)
	check(after)
	if _, then := lastMoves(term.screen()); len(then) != 1 {
		t.Errorf("the round's end is summed up %d times:\n%s", len(then), term.screen())
	}

	// The stream is cut (a restart of the server): the watch takes it up
	// again, and lists each move once.
	srv.CloseClientConnections()
	var g state
	ana.mustJSON(&g, "show", id)
	players[g.ToAct[0]].play(id, 1)
	check(after + 1)
	ana.mustJSON(&g, "show", id)
	players[g.ToAct[0]].play(id, 1)
	check(after + 2)
	stop()
	wantExit(t, code, exitOK)
}

// TestReplayBeforeTheStart: before a game's first deal, its table says
// what the game waits for: a free seat, or nothing (every seat given).
func TestReplayBeforeTheStart(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana := newUser(t, srv.URL)
	ana.register("Ana")
	var g state
	ana.mustJSON(&g, "new", "--seat", "me", "--seat", "bot")
	out := ana.must("replay", g.ID, "--version", "1")
	if strings.Contains(out, "free") || !strings.Contains(out, "every seat is taken") {
		t.Errorf("version 1 of a game whose seats were all given:\n%s", out)
	}
	ana.mustJSON(&g, "new", "--seat", "me", "--seat", "open", "--seat", "open")
	if out := ana.must("replay", g.ID, "--version", "1"); !strings.Contains(out, "seats 1, 2 are still free") {
		t.Errorf("version 1 of a game with two open seats:\n%s", out)
	}
}

// TestErrorsSayWhatToDo: a token the server does not know is answered
// with how to sign in or register; a refusal says each thing once.
func TestErrorsSayWhatToDo(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana, bob, id := newTwoPlayerGame(t, srv.URL)
	ana.env["AZUL_TOKEN"] = "not-a-token"
	for _, args := range [][]string{{"games"}, {"show", id}, {"move", id, "F1", "red", "1"}} {
		msg := ana.wantCode(exitNotAllow, args...)
		for _, want := range []string{"does not know the token in AZUL_TOKEN", "azul login TOKEN", "azul register NAME"} {
			if !strings.Contains(msg, want) {
				t.Errorf("azul %s with an unknown token: %q lacks %q", strings.Join(args, " "), msg, want)
			}
		}
	}
	if msg := ana.wantCode(exitNotAllow, "games", "--token", "bogus"); !strings.Contains(msg, "the token given with --token") {
		t.Errorf("an unknown --token: %q", msg)
	}
	delete(ana.env, "AZUL_TOKEN")

	var lm legal
	ana.mustJSON(&lm, "moves", id)
	for _, c := range []struct {
		code int
		args []string
		want string
	}{
		{exitRefused, []string{"move", id, lm.Moves[0].Notation}, "azul: It is not your turn: seat 0 is to move.\n"},
		{exitFailure, []string{"show", "00000000-0000-4000-8000-000000000000"}, "azul: There is no game 00000000-0000-4000-8000-000000000000.\n"},
		{exitNotAllow, []string{"join", id}, "azul: This game has no free seat.\n"},
		{exitRefused, []string{"move", id, `{"type": "x"}`}, "azul: This is not a move of this game (Azul Mini): see the legal moves.\n"},
	} {
		if msg := bob.wantCode(c.code, c.args...); msg != c.want {
			t.Errorf("azul %s printed %q, want %q", strings.Join(c.args, " "), msg, c.want)
		}
	}
}
