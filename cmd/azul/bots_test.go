package main

import (
	"strings"
	"testing"
	"time"
)

// TestBotsCommand: azul new seats a level; azul bots lists every kind a
// seat may hold with its name and, once it has played a rated game, its
// rating in the rule set and number of players asked for; an unknown
// kind is a usage error that lists the kinds.
func TestBotsCommand(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana, visitor := newUser(t, srv.URL), newUser(t, srv.URL)
	ana.register("Ana")
	var g struct {
		ID    string `json:"id"`
		Seats []struct {
			Bot string `json:"bot"`
		} `json:"seats"`
	}
	ana.mustJSON(&g, "new", "--seat", "me", "--seat", "bot:level3")
	if len(g.Seats) != 2 || g.Seats[1].Bot != "level3" {
		t.Fatalf("seats %+v", g.Seats)
	}
	ana.must("move", g.ID, "resign")
	line := func(out, kind string) string {
		for l := range strings.Lines(out) {
			if strings.HasPrefix(l, kind+" ") {
				return l
			}
		}
		return ""
	}
	eventually(t, 30*time.Second, func() bool {
		return !strings.Contains(line(visitor.must("bots"), "level3"), "not rated yet")
	}, "level 3 has no rating")
	out := visitor.must("bots")
	for _, kind := range []string{"random", "greedy", "search", "level1", "level6"} {
		if l := line(out, kind); !strings.Contains(l, "not rated yet") {
			t.Errorf("%s: %q", kind, l)
		}
	}
	if l := line(out, "level3"); !strings.Contains(l, "Level 3") || !strings.Contains(l, "(provisional)") || !strings.HasSuffix(strings.TrimSpace(l), "1") {
		t.Errorf("level 3: %q\n%s", l, out)
	}
	if l := line(visitor.must("bots", "--players", "3", "--lang", "nl"), "level3"); !strings.Contains(l, "Niveau 3") || !strings.Contains(l, "nog geen rating") {
		t.Errorf("level 3 with 3 players, in Dutch: %q", l)
	}
	if refusal := ana.wantCode(exitUsage, "new", "--seat", "me", "--seat", "bot:level9"); !strings.Contains(refusal, "level9") || !strings.Contains(refusal, "level6") {
		t.Errorf("an unknown bot: %s", refusal)
	}
}

// TestHintCommand: azul hint in an unrated game on your turn prints a
// move, its reasons and how to play it, and the move plays; in a rated
// game it is refused with the server's reason, in the reader's language.
func TestHintCommand(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	ana := newUser(t, srv.URL)
	ana.register("Ana")
	var g struct {
		ID string `json:"id"`
	}
	ana.mustJSON(&g, "new", "--unrated", "--seat", "me", "--seat", "bot:level1")
	out := ana.must("hint", g.ID)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	prefix := "Hint for seat 0: "
	if len(lines) != 3 || !strings.HasPrefix(lines[0], prefix) || !strings.HasPrefix(lines[1], "It ") || !strings.HasPrefix(lines[2], "Play it: azul move "+g.ID+" ") {
		t.Fatalf("azul hint:\n%s", out)
	}
	ana.must("move", g.ID, strings.TrimPrefix(lines[0], prefix))

	ana.mustJSON(&g, "new", "--seat", "me", "--seat", "bot:level1")
	refusal := ana.wantCode(exitRefused, "hint", g.ID)
	if !strings.Contains(refusal, "rated") {
		t.Errorf("a hint in a rated game: %s", refusal)
	}
	if de := ana.wantCode(exitRefused, "hint", g.ID, "--lang", "de"); !strings.Contains(de, "gewertet") {
		t.Errorf("a hint in a rated game, in German: %s", de)
	}
}
