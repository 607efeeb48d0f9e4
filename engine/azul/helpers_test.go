package azul

import (
	"errors"
	"testing"

	"github.com/azuld/azuld/engine"
)

// table builds a test position by hand. Every tile put somewhere is taken
// out of the bag, so the 100 tiles stay accounted for; state() checks the
// position through a snapshot round trip (DecodeState validates it).
type table struct {
	t *testing.T
	s State
}

// newTable is round 1, offer phase, seat 0 to move, empty factories.
func newTable(t *testing.T, players int, grey bool) *table {
	t.Helper()
	s := newState(players, grey)
	s.round, s.phase, s.turn, s.startSeat = 1, PhaseOffer, 0, 0
	return &table{t: t, s: s}
}

func (tb *table) draw(c Colour) {
	tb.t.Helper()
	if tb.s.bag[c] == 0 {
		tb.t.Fatalf("no %s left in the bag", c)
	}
	tb.s.bag[c]--
}

// wall puts a tile on a wall (row and column 1-based).
func (tb *table) wall(seat, row, col int, c Colour) *table {
	tb.t.Helper()
	tb.draw(c)
	tb.s.boards[seat].place(row-1, col-1, c)
	return tb
}

// wallRow puts tiles of the given colours on their coloured-wall spaces of
// a row.
func (tb *table) wallRow(seat, row int, colours ...Colour) *table {
	tb.t.Helper()
	for _, c := range colours {
		tb.wall(seat, row, WallColumn(row-1, c)+1, c)
	}
	return tb
}

// line puts n tiles of colour c on a pattern line (1..5).
func (tb *table) line(seat, line int, c Colour, n int) *table {
	tb.t.Helper()
	for range n {
		tb.draw(c)
	}
	b := &tb.s.boards[seat]
	b.LineColour[line-1], b.LineCount[line-1] = c, uint8(n)
	return tb
}

// floor appends items to a floor line; Marker makes seat the holder.
func (tb *table) floor(seat int, items ...Colour) *table {
	tb.t.Helper()
	b := &tb.s.boards[seat]
	for _, c := range items {
		if c == Marker {
			tb.s.markerHolder = int8(seat)
		} else {
			tb.draw(c)
		}
		b.Floor[b.FloorLen] = c
		b.FloorLen++
	}
	return tb
}

// factory adds tiles to factory f (0-based).
func (tb *table) factory(f int, colours ...Colour) *table {
	tb.t.Helper()
	for _, c := range colours {
		tb.draw(c)
		tb.s.factories[f][c]++
	}
	return tb
}

func (tb *table) center(colours ...Colour) *table {
	tb.t.Helper()
	for _, c := range colours {
		tb.draw(c)
		tb.s.center[c]++
	}
	return tb
}

// lid moves n tiles of colour c from the bag to the lid.
func (tb *table) lid(c Colour, n int) *table {
	tb.t.Helper()
	for range n {
		tb.draw(c)
		tb.s.lid[c]++
	}
	return tb
}

func (tb *table) score(seat, points int) *table {
	tb.s.boards[seat].Score = int16(points)
	return tb
}

// state checks the position and returns it.
func (tb *table) state() *State {
	tb.t.Helper()
	tb.s.onOffer = uint8(tb.s.countOffer())
	data, err := tb.s.MarshalJSON()
	if err != nil {
		tb.t.Fatalf("snapshot: %v", err)
	}
	back, err := DecodeState(data)
	if err != nil {
		tb.t.Fatalf("the test position is not a valid table: %v", err)
	}
	if back != tb.s {
		tb.t.Fatalf("snapshot round trip changed the test position")
	}
	s := tb.s
	return &s
}

// testSeed is a fixed seed for deterministic tests.
func testSeed(n byte) engine.Seed {
	var seed engine.Seed
	for i := range seed {
		seed[i] = n + byte(i)
	}
	return seed
}

// play decides cmd for seat on s and folds the events into s, failing the
// test on any error. It returns the events.
func play(t *testing.T, s *State, seat int, cmd Cmd) []Event {
	t.Helper()
	before := *s
	evs, err := Decide(s, seat, cmd, testSeed(7), nil)
	if err != nil {
		t.Fatalf("%s by seat %d: %v", cmd, seat, err)
	}
	if *s != before {
		t.Fatalf("Decide changed the state")
	}
	for _, e := range evs {
		if err := s.Apply(e); err != nil {
			t.Fatalf("%s by seat %d: folding its events: %v", cmd, seat, err)
		}
	}
	return evs
}

// wantRule checks that err is a RuleError with the given rule id.
func wantRule(t *testing.T, err error, rule string) {
	t.Helper()
	var re *engine.RuleError
	if !errors.As(err, &re) {
		t.Fatalf("error %v, want rule %s", err, rule)
	}
	if re.Rule != rule || re.Ref == "" || re.Detail == "" {
		t.Fatalf("rule error %+v, want rule %s with a ref and a detail", re, rule)
	}
}

// eventsOf returns the events of one kind.
func eventsOf(evs []Event, kind EventKind) []Event {
	var out []Event
	for _, e := range evs {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}
