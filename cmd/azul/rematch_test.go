package main

import (
	"strings"
	"testing"
)

// TestRematchCommand: azul rematch on a finished game prints the new game
// and whose acceptance it waits for; the invited player accepts with azul
// join, which a third player is refused with a clear message.
func TestRematchCommand(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana, bob, id := newTwoPlayerGame(t, srv.URL)
	eve := newUser(t, srv.URL)
	eve.register("Eve")
	if msg := ana.wantCode(exitFailure, "rematch", id); !strings.Contains(msg, "once the game is over") {
		t.Fatalf("rematch of a running game: %q", msg)
	}
	var g state
	ana.mustJSON(&g, "show", id)
	mover := ana
	if g.ToAct[0] == 1 {
		mover = bob
	}
	mover.must("move", id, "resign")

	if msg := eve.wantCode(exitFailure, "rematch", id); !strings.Contains(msg, "There is no game "+id) {
		t.Fatalf("a stranger's rematch: %q", msg)
	}
	out := bob.must("rematch", id)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "Rematch created: game ") || lines[1] != "It waits for Ana to accept (azul join with its id)." {
		t.Fatalf("azul rematch printed %q", out)
	}
	newID := strings.TrimSuffix(strings.TrimPrefix(lines[0], "Rematch created: game "), ".")
	again := ana.must("rematch", id)
	if !strings.HasPrefix(again, "The rematch is game "+newID+".\n") {
		t.Fatalf("a second azul rematch printed %q", again)
	}
	msg := eve.wantCode(exitNotAllow, "join", newID)
	if !strings.Contains(msg, "kept for other players") {
		t.Fatalf("Eve's join refused as %q", msg)
	}
	msg = eve.wantCode(exitNotAllow, "join", newID, "--seat", "1")
	if !strings.Contains(msg, "kept for another player") {
		t.Fatalf("Eve's join of seat 1 refused as %q", msg)
	}
	out = ana.must("join", newID)
	if !strings.Contains(out, "it is active") {
		t.Fatalf("Ana's acceptance printed %q", out)
	}
}
