package pavilion

import (
	"errors"
	"strings"
	"testing"

	"github.com/azuld/azuld/engine"
)

// testSeed is the seed of the fixtures' deals.
var testSeed = engine.Seed{1, 2, 3}

// tl reads tiles written as colour names, e.g. tl("red red yellow").
func tl(t testing.TB, text string) Tiles {
	t.Helper()
	var out Tiles
	for _, w := range strings.Fields(text) {
		c, ok := ParseColour(w)
		if !ok {
			t.Fatalf("bad colour %q", w)
		}
		out[c]++
	}
	return out
}

// fixture is a started game whose table is cleared (every tile back in the
// bag), in round 1's acquire phase, for tests to lay out exactly the
// position they need.
func fixture(t testing.TB, ruleset string, players int, opts engine.Options) *State {
	t.Helper()
	evs, err := Start(engine.Config{Ruleset: ruleset, Players: players, Options: opts}, testSeed, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &State{}
	for i := range evs {
		if err := s.Apply(&evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	s.supply, s.centre = Tiles{}, Tiles{}
	s.factories = [MaxFactories]Tiles{}
	for c := range s.bag {
		s.bag[c] = TilesPerColour
	}
	return s
}

// fromBag takes tiles out of the bag (the test's way of laying them out).
func (s *State) fromBag(t testing.TB, tiles Tiles) Tiles {
	t.Helper()
	if !s.bag.Contains(tiles) {
		t.Fatalf("the bag (%s) does not hold %s", s.bag, tiles)
	}
	s.bag = s.bag.Minus(tiles)
	return tiles
}

// cover puts a tile of colour c from the bag on a space of seat's board.
func (s *State) cover(t testing.TB, seat, star, space int, c Colour) {
	t.Helper()
	var one Tiles
	one[c] = 1
	s.fromBag(t, one)
	s.seats[seat].Board[star][space-1] = cellOf(c)
	s.seats[seat].Covered |= bit(star, space)
}

// toPlay puts the game in the play phase with seat to act.
func (s *State) toPlay(seat int) {
	s.phase = PhasePlay
	s.turn = int8(seat)
}

// play decides cmd for seat, applies the events to s and returns them.
func play(t testing.TB, s *State, seat int, cmd Cmd) []Event {
	t.Helper()
	evs, err := Decide(s, seat, cmd, testSeed, nil)
	if err != nil {
		t.Fatalf("%s by seat %d: %v\n%s", cmd, seat, err, s.Text())
	}
	for i := range evs {
		if err := s.Apply(&evs[i]); err != nil {
			t.Fatalf("apply %s: %v", evs[i].Kind, err)
		}
	}
	return evs
}

// mustRefuse checks that cmd is refused with the given rule id (or error).
func mustRefuse(t testing.TB, s *State, seat int, cmd Cmd, want any) {
	t.Helper()
	before := *s
	evs, err := Decide(s, seat, cmd, testSeed, nil)
	if err == nil {
		t.Fatalf("%s by seat %d accepted: %v", cmd, seat, evs)
	}
	if *s != before {
		t.Fatalf("a refused command changed the state")
	}
	switch w := want.(type) {
	case string:
		var re *engine.RuleError
		if !errors.As(err, &re) || re.Rule != w {
			t.Fatalf("%s: got %v, want rule %s", cmd, err, w)
		}
		if !strings.HasPrefix(re.Ref, "docs/rules.md §") {
			t.Fatalf("rule error without a docs/rules.md reference: %+v", re)
		}
	case error:
		if !errors.Is(err, w) {
			t.Fatalf("%s: got %v, want %v", cmd, err, w)
		}
	}
}

// kinds lists the kinds of events.
func kinds(evs []Event) []EventKind {
	out := make([]EventKind, len(evs))
	for i := range evs {
		out[i] = evs[i].Kind
	}
	return out
}

// find returns the first event of a kind, failing the test if none.
func find(t testing.TB, evs []Event, k EventKind) Event {
	t.Helper()
	for _, e := range evs {
		if e.Kind == k {
			return e
		}
	}
	t.Fatalf("no %s among %v", k, kinds(evs))
	return Event{}
}

// checkTiles asserts that every tile is in exactly one place.
func checkTiles(t testing.TB, s *State) {
	t.Helper()
	for c, n := range s.TileCount() {
		if n != TilesPerColour {
			t.Fatalf("%d %s tiles in the game, want %d\n%s", n, Colour(c), TilesPerColour, s.Text())
		}
	}
}
