package azul

import (
	"slices"
	"testing"
)

// The worked examples of docs/rules.md §4 from the Azul Mini rulebook.

// TestExampleWallTileScoresSeven: a wall tile that joins a horizontal run
// of 4 and a vertical run of 3 scores 4 + 3 = 7 (the rulebook's yellow
// tile). Row 2 of the coloured wall is white blue yellow red black, so
// yellow lies in column 3; white, blue and red of row 2 make the
// horizontal run, red (row 1) and blue (row 3) of column 3 the vertical.
func TestExampleWallTileScoresSeven(t *testing.T) {
	tb := newTable(t, 2, false).
		wallRow(0, 2, White, Blue, Red).
		wallRow(0, 1, Red).
		wallRow(0, 3, Blue).
		score(0, 20).
		line(0, 2, Yellow, 1).
		factory(0, Yellow)
	s := tb.state()
	if WallColumn(1, Yellow) != 2 || WallColumn(0, Red) != 2 || WallColumn(2, Blue) != 2 {
		t.Fatalf("the example's tiles are not in column 3")
	}
	evs := play(t, s, 0, Take(0, Yellow, 2))
	walls := eventsOf(evs, EvWallTiled)
	if len(walls) != 1 {
		t.Fatalf("%d wall tiles placed, want 1: %+v", len(walls), evs)
	}
	w := walls[0]
	if w.Seat != 0 || w.Line != 2 || w.Column != 3 || w.Colour != Yellow {
		t.Fatalf("wall tile %+v, want seat 0's yellow on row 2 column 3", w)
	}
	if w.HRun != 4 || w.VRun != 3 || w.Points != 7 {
		t.Fatalf("runs %d×%d scoring %d, want 4 and 3 scoring 7", w.HRun, w.VRun, w.Points)
	}
	if s.Score(0) != 27 {
		t.Fatalf("score %d, want 20 + 7", s.Score(0))
	}
	// The rulebook's smaller examples: alone 1; in a run of 3 horizontal
	// tiles 3; a run of 3 vertical 3.
	for _, c := range []struct{ h, v, want int }{{1, 1, 1}, {3, 1, 3}, {1, 3, 3}, {4, 3, 7}, {5, 5, 10}} {
		if got := PlacementPoints(c.h, c.v); got != c.want {
			t.Errorf("PlacementPoints(%d, %d) = %d, want %d", c.h, c.v, got, c.want)
		}
	}
}

// TestExampleFloorFourTilesAndMarkerCostsEight: Oliver's floor holds the
// start marker and 4 tiles and costs 1+1+2+2+2 = 8 points. Here he takes 4
// red from the centre with the marker, straight to the floor.
func TestExampleFloorFourTilesAndMarkerCostsEight(t *testing.T) {
	s := newTable(t, 2, false).score(0, 10).center(Red, Red, Red, Red).state()
	evs := play(t, s, 0, Take(Center, Red, Floor))
	take := evs[0]
	if !take.Marker || take.ToFloor != 4 || take.ToLid != 0 {
		t.Fatalf("take %+v: want the marker and 4 tiles on the floor", take)
	}
	floors := eventsOf(evs, EvFloorScored)
	if len(floors) != 1 {
		t.Fatalf("%d floors scored, want 1", len(floors))
	}
	f := floors[0]
	if f.FloorLen != 5 || f.Floor[0] != Marker || !f.Marker || f.ToLid != 4 {
		t.Fatalf("floor %+v: want the marker first, then 4 tiles to the lid", f)
	}
	if f.Penalty != 8 || f.Points != 8 || f.Score != 2 || s.Score(0) != 2 {
		t.Fatalf("floor penalty %d, lost %d, score %d: want 8, 8, 2", f.Penalty, f.Points, s.Score(0))
	}
	if s.Round() != 2 || !s.CenterMarker() || countTiles(s) != nil {
		t.Fatalf("round %d, marker in the centre %v, tiles %v: want round 2 with the marker back in the centre",
			s.Round(), s.CenterMarker(), countTiles(s))
	}
}

// TestExamplePatternLineRestrictions: Andrea takes 2 yellow. Rows 2 and 3
// of her wall hold yellow, line 4 holds a blue tile. She may put 1 on line
// 1 and 1 on the floor, both on line 5, or both on the floor; nothing
// else.
func TestExamplePatternLineRestrictions(t *testing.T) {
	s := newTable(t, 2, false).
		wallRow(0, 2, Yellow).
		wallRow(0, 3, Yellow).
		line(0, 4, Blue, 1).
		factory(0, Yellow, Yellow, Red, Red).
		factory(1, Black).
		state()
	var lines []int8
	for _, c := range AppendLegal(nil, s, 0) {
		if c.Source == 0 && c.Colour == Yellow {
			lines = append(lines, c.Line)
		}
	}
	if want := []int8{1, 5, Floor}; !slices.Equal(lines, want) {
		t.Fatalf("legal lines for the 2 yellow: %v, want %v", lines, want)
	}
	for line, rule := range map[int8]string{2: RuleColourOnWallRow, 3: RuleColourOnWallRow, 4: RuleLineHoldsOtherColour} {
		_, err := Decide(s, 0, Take(0, Yellow, line), testSeed(1), nil)
		wantRule(t, err, rule)
	}
	// A: one on line 1, one on the floor.
	a := *s
	e := play(t, &a, 0, Take(0, Yellow, 1))[0]
	if e.ToLine != 1 || e.ToFloor != 1 || e.ToLid != 0 || e.ToCenter != [NumColours]uint8{Red: 2} {
		t.Fatalf("option A: %+v", e)
	}
	if b := a.Board(0); b.LineCount[0] != 1 || b.FloorLen != 1 || b.Floor[0] != Yellow || a.Center()[Red] != 2 {
		t.Fatalf("option A board: line 1 %d, floor %v", b.LineCount[0], b.Floor[:b.FloorLen])
	}
	// B: both on line 5.
	b := *s
	if e := play(t, &b, 0, Take(0, Yellow, 5))[0]; e.ToLine != 2 || e.ToFloor != 0 {
		t.Fatalf("option B: %+v", e)
	}
	// C: both on the floor.
	c := *s
	if e := play(t, &c, 0, Take(0, Yellow, Floor))[0]; e.ToLine != 0 || e.ToFloor != 2 {
		t.Fatalf("option C: %+v", e)
	}
}
