package azul

import (
	"errors"
	"slices"
	"testing"

	"github.com/azuld/azuld/engine"
)

// TestDecisionA1FullFloorStillTakesMarker: with a full floor, the first
// player to take from the centre still takes the marker (and starts the
// next round) with no further penalty; the overflowing tiles go to the lid.
func TestDecisionA1FullFloorStillTakesMarker(t *testing.T) {
	s := newTable(t, 2, false).
		floor(1, Red, Red, Red, Red, Black, Black, Black).
		score(1, 20).
		center(Blue, Blue).
		factory(0, White).
		state()
	s.turn = 1
	take := play(t, s, 1, Take(Center, Blue, 1))[0]
	if !take.Marker || take.ToLine != 1 || take.ToFloor != 0 || take.ToLid != 1 {
		t.Fatalf("take %+v: want the marker, 1 blue on line 1, 1 to the lid", take)
	}
	if s.MarkerHolder() != 1 {
		t.Fatalf("marker holder %d, want 1", s.MarkerHolder())
	}
	if b := s.Board(1); b.FloorLen != 7 || slices.Contains(b.Floor[:], Marker) {
		t.Fatalf("floor %v: want the 7 tiles and no marker", b.Floor)
	}
	evs := play(t, s, 0, Take(0, White, 2))
	floors := eventsOf(evs, EvFloorScored)
	if len(floors) != 1 || floors[0].Seat != 1 || floors[0].Penalty != 14 || floors[0].Marker {
		t.Fatalf("floor scoring %+v: want seat 1 to lose the 14 of a full floor, no marker", floors)
	}
	if s.Score(1) != 20-14+1 {
		t.Fatalf("seat 1 scores %d, want 20 - 14 + 1 (the blue tile of line 1)", s.Score(1))
	}
	if s.Round() != 2 || s.StartSeat() != 1 || s.Turn() != 1 {
		t.Fatalf("round %d started by seat %d: want round 2 started by the marker holder, seat 1", s.Round(), s.StartSeat())
	}
}

// greyTilingTable: a grey-wall 2-player game at the last take of round 1.
// Seat 0 has complete lines 1 (blue) and 3 (red), seat 1 a complete line
// 2 (yellow); seat 0 takes the last tile.
func greyTilingTable(t *testing.T) *State {
	s := newTable(t, 2, true).
		line(0, 1, Blue, 1).
		line(0, 3, Red, 3).
		line(1, 2, Yellow, 2).
		factory(0, White).
		state()
	if evs := play(t, s, 0, Take(0, White, 5)); len(evs) != 1 {
		t.Fatalf("the last take caused %d events, want only the take: tiling waits for the players", len(evs))
	}
	return s
}

// TestDecisionA2GreyTilingIsSimultaneous: every player with a wall space
// to choose acts at once; each player's lines go top to bottom; the round
// goes on once everyone has chosen, and the order between players does
// not matter.
func TestDecisionA2GreyTilingIsSimultaneous(t *testing.T) {
	s := greyTilingTable(t)
	if got := s.ToAct(); !slices.Equal(got, []int{0, 1}) {
		t.Fatalf("ToAct %v, want both seats", got)
	}
	if s.PendingLine(0) != 1 || s.PendingLine(1) != 2 || s.Phase() != PhaseTiling {
		t.Fatalf("pending lines %d and %d in phase %s, want 1 and 2 in tiling", s.PendingLine(0), s.PendingLine(1), s.Phase())
	}
	_, err := Decide(s, 0, Tile(3, 1), testSeed(1), nil)
	wantRule(t, err, RuleLinesTopToBottom)
	_, err = Decide(s, 0, Take(0, White, 1), testSeed(1), nil)
	wantRule(t, err, RuleOfferOver)
	if got := AppendLegal(nil, s, 0); len(got) != 5 || got[0] != Tile(1, 1) || got[4] != Tile(1, 5) {
		t.Fatalf("legal moves of seat 0: %v, want tile 1 1 .. tile 1 5", got)
	}

	// Order A: seat 1, then seat 0 twice.
	a := *s
	if evs := play(t, &a, 1, Tile(2, 4)); len(evs) != 1 {
		t.Fatalf("seat 1's choice caused %v; the round must wait for seat 0", evs)
	}
	if got := a.ToAct(); !slices.Equal(got, []int{0}) {
		t.Fatalf("after seat 1 chose, ToAct %v, want [0]", got)
	}
	if _, err := Decide(&a, 1, Tile(2, 5), testSeed(1), nil); !errors.Is(err, engine.ErrNotYourTurn) {
		t.Fatalf("seat 1 choosing again: %v, want ErrNotYourTurn", err)
	}
	play(t, &a, 0, Tile(1, 2))
	if a.PendingLine(0) != 3 {
		t.Fatalf("after line 1, seat 0 should choose for line 3, not %d", a.PendingLine(0))
	}
	// Column 2 holds blue; only the same colour is barred from a column.
	evs := play(t, &a, 0, Tile(3, 2))
	if len(eventsOf(evs, EvFactoriesFilled)) != 1 || a.Round() != 2 || a.Phase() != PhaseOffer {
		t.Fatalf("the last choice should start round 2: %v", evs)
	}

	// Order B: seat 0 twice, then seat 1.
	b := *s
	play(t, &b, 0, Tile(1, 2))
	play(t, &b, 0, Tile(3, 2))
	if got := b.ToAct(); !slices.Equal(got, []int{1}) {
		t.Fatalf("after seat 0's choices, ToAct %v, want [1]", got)
	}
	play(t, &b, 1, Tile(2, 4))
	if a != b {
		t.Fatalf("the order of the players' choices changed the result")
	}
	if w := a.Board(0).Wall; w[0][1] != Blue || w[2][1] != Red {
		t.Fatalf("seat 0's wall %v: want blue at 1,2 and red at 3,2", w)
	}
	// Blue (row 1) and red (row 3) of column 2 are not adjacent: 1 each.
	if a.Score(0) != 1+1 || a.Score(1) != 1 {
		t.Fatalf("scores %v: want 2 and 1", a.Scores())
	}
}

// stuckTable is a 4-player coloured game whose tiles are nearly all locked
// on the boards: each wall row lacks one colour (so no row, column or
// colour is complete), the lines hold only tiles of their row's missing
// colour and never a complete line. keep[c] tiles of colour c stay in the
// bag; one blue tile lies on F1 for seat 1's last take (onto line 5).
func stuckTable(t *testing.T, keep [NumColours]int) *table {
	tb := newTable(t, 4, false)
	for p := range 4 {
		for r := range 5 {
			missing := Colour((r + p) % 5)
			for c := range Colour(NumColours) {
				if c != missing {
					tb.wallRow(p, r+1, c)
				}
			}
		}
	}
	tb.factory(0, Blue)
	for c := range Colour(NumColours) {
		left := int(tb.s.bag[c]) - keep[c]
		for p := range 4 {
			r := (int(c) - p + 5) % 5
			n := min(left, r)
			if n > 0 {
				tb.line(p, r+1, c, n)
				left -= n
			}
		}
		if left != 0 {
			t.Fatalf("%d %s tiles found no line", left, c)
		}
	}
	tb.s.turn = 1
	return tb
}

// TestDecisionA3NoTilesToDeal: when not a single tile can be dealt at the
// start of a round (bag and lid empty), the game ends with reason
// no_tiles and the usual end bonuses.
func TestDecisionA3NoTilesToDeal(t *testing.T) {
	s := stuckTable(t, [NumColours]int{}).state()
	if b := s.Board(1); b.LineColour[4] != Blue || b.LineCount[4] != 3 {
		t.Fatalf("seat 1's line 5: %d %s, want 3 blue", b.LineCount[4], b.LineColour[4])
	}
	if sum5(s.Bag())+sum5(s.Lid()) != 0 {
		t.Fatalf("bag and lid should be empty")
	}
	evs := play(t, s, 1, Take(0, Blue, 5))
	if len(evs) != 2 || evs[1].Kind != EvGameEnded {
		t.Fatalf("events %v: want the take, then the end", evs)
	}
	f := s.Final()
	if !s.Over() || f == nil || f.Reason != "no_tiles" {
		t.Fatalf("final %+v: want the game over by no_tiles", f)
	}
	for _, p := range f.Players {
		if p.Score != 0 || len(p.Breakdown) != 4 || p.Breakdown[1].Count != 0 || p.Rank != 1 {
			t.Fatalf("seat %d: %+v: want 0 points, no bonus, shared rank 1", p.Seat, p)
		}
	}
	if len(f.Winners) != 4 {
		t.Fatalf("winners %v, want all four (the victory is shared)", f.Winners)
	}
}

// TestDecisionA3RoundLimit: a game also ends after the wall tiling of
// round 50, with the end bonuses.
func TestDecisionA3RoundLimit(t *testing.T) {
	build := func(round int) *State {
		tb := newTable(t, 2, false).
			wallRow(0, 1, Blue).wallRow(0, 2, White).wallRow(0, 3, Black).wallRow(0, 4, Red).
			line(0, 5, Yellow, 4).
			score(0, 30).score(1, 31).
			factory(0, Yellow)
		s := tb.state()
		s.round = uint8(round)
		return s
	}
	s := build(49)
	play(t, s, 0, Take(0, Yellow, 5))
	if s.Over() || s.Round() != 50 {
		t.Fatalf("round 49 should lead to round 50, got round %d over %v", s.Round(), s.Over())
	}

	s = build(50)
	evs := play(t, s, 0, Take(0, Yellow, 5))
	end := evs[len(evs)-1]
	if end.Kind != EvGameEnded || end.Reason != EndRoundLimit || end.Round != 50 {
		t.Fatalf("last event %+v: want game_ended by round_limit in round 50", end)
	}
	// Seat 0 completes column 1 with the yellow of line 5: 1 point for
	// joining a vertical run of 5 gives 5, then +7 for the column.
	f := s.Final()
	if f.Reason != "round_limit" || f.Players[0].Score != 30+5+7 || f.Players[1].Score != 31 {
		t.Fatalf("final %+v: want seat 0 at 30+5+7, seat 1 at 31", f)
	}
	if f.Players[0].Breakdown[2] != (engine.ScoreItem{Item: "columns", Count: 1, Points: 7}) {
		t.Fatalf("seat 0's breakdown %+v: want 1 column for 7", f.Players[0].Breakdown)
	}
	if !slices.Equal(f.Winners, []int{0}) {
		t.Fatalf("winners %v, want [0]", f.Winners)
	}
}
