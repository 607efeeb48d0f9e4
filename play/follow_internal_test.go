package play

import (
	"fmt"
	"testing"
)

// The follower's kept games stay within their byte budget, however many
// games it follows; a finished game or a newer version of a game never
// counts twice.
func TestFollowerKeepsWithinItsBytes(t *testing.T) {
	t.Parallel()
	game := func(i, version int) *Game {
		return &Game{ID: fmt.Sprintf("01a21611-fb1d-71cf-a22b-%012d", i), Status: StatusActive, Version: int64(version)}
	}
	one := game(0, 1).MemSize()
	f := &follower{games: map[string]*Game{}, maxBytes: 10 * one}
	sum := func() (n int64) {
		for _, g := range f.games {
			n += g.MemSize()
		}
		return n
	}
	for i := range 100 {
		f.keep(game(i, 1))
		f.keep(game(i, 2)) // the same game again, a version on
		if f.gamesBytes > f.maxBytes || f.gamesBytes != sum() {
			t.Fatalf("after %d games: %d bytes counted, %d held, budget %d", i+1, f.gamesBytes, sum(), f.maxBytes)
		}
	}
	if len(f.games) == 0 || len(f.games) > 10 {
		t.Fatalf("%d games kept, want 1 to 10", len(f.games))
	}
	last := game(99, 3)
	last.Status = StatusFinished
	f.keep(last)
	if _, ok := f.games[last.ID]; ok || f.gamesBytes != sum() {
		t.Fatalf("a finished game is kept (%v) or miscounted (%d, %d)", ok, f.gamesBytes, sum())
	}
}
