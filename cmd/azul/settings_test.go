package main

import (
	"strings"
	"testing"
)

// TestNewSettingsAndWatch: azul new --unrated --private creates such a
// game; azul games --watch, without a token, lists the running public
// games and not the private one; a take-back in a rated game (take-backs
// off) is refused, saying why.
func TestNewSettingsAndWatch(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana := newUser(t, srv.URL)
	ana.register("Ana")
	var private, public struct {
		ID         string `json:"id"`
		Rated      bool   `json:"rated"`
		Visibility string `json:"visibility"`
		Takebacks  bool   `json:"takebacks"`
	}
	ana.mustJSON(&private, "new", "--unrated", "--private", "--seat", "me", "--seat", "bot")
	if private.Rated || private.Visibility != "private" || !private.Takebacks {
		t.Errorf("azul new --unrated --private: %+v", private)
	}
	ana.mustJSON(&public, "new", "--seat", "me", "--seat", "bot")
	if !public.Rated || public.Visibility != "public" || public.Takebacks {
		t.Errorf("azul new: %+v", public)
	}
	visitor := newUser(t, srv.URL)
	out := visitor.must("games", "--watch")
	if !strings.Contains(out, "Games to watch:") || !strings.Contains(out, public.ID) || strings.Contains(out, private.ID) {
		t.Errorf("azul games --watch:\n%s", out)
	}
	if msg := ana.wantCode(exitUsage, "games", "--watch", "--status", "open"); msg == "" {
		t.Error("--watch with --status: no message")
	}

	// A rated game has no take-backs.
	a, _, id := newTwoPlayerGame(t, srv.URL)
	a.play(id, 1)
	if msg := a.wantCode(exitRefused, "takeback", id); !strings.Contains(msg, "without take-backs") {
		t.Errorf("takeback in a rated game: %q", msg)
	}
}
