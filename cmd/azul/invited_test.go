package main

import (
	"strings"
	"testing"
)

// TestInvitationCommands: azul new naming another player's id invites
// them; the game waits. azul decline declines (the seat is free for
// anyone), azul accept accepts (the game starts); a player not invited
// finds nothing to decline, as for a game that does not exist.
func TestInvitationCommands(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana, bob, eve := newUser(t, srv.URL), newUser(t, srv.URL), newUser(t, srv.URL)
	ana.register("Ana")
	bob.register("Bob")
	eve.register("Eve")
	var me struct {
		ID string `json:"id"`
	}
	bob.mustJSON(&me, "account", "show")
	if me.ID == "" {
		t.Fatal("no id for Bob")
	}
	invite := func() string {
		t.Helper()
		var g state
		ana.mustJSON(&g, "new", "--seat", "me", "--seat", me.ID)
		if g.Status != "open" || len(g.YourSeats) != 1 {
			t.Fatalf("a game naming Bob is %s with Ana at %v, want open", g.Status, g.YourSeats)
		}
		return g.ID
	}
	declined := invite()
	if msg := eve.wantCode(exitFailure, "decline", declined); !strings.Contains(msg, "There is no game "+declined) {
		t.Fatalf("Eve's decline refused as %q", msg)
	}
	if out := bob.must("decline", declined); !strings.Contains(out, "You declined the invitation to game "+declined) {
		t.Fatalf("azul decline printed %q", out)
	}
	accepted := invite()
	if out := bob.must("accept", accepted); !strings.Contains(out, "at seat 1; it is active") {
		t.Fatalf("azul accept printed %q", out)
	}
}
