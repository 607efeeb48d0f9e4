package azul

import "testing"

// TestRoundEndSummary: the events of a round's end read as plain
// English: a scored floor names the start marker and says when the score
// stopped the loss at 0; no "0 to the lid".
func TestRoundEndSummary(t *testing.T) {
	for _, c := range []struct {
		e    Event
		want string
	}{
		{Event{Kind: EvFloorScored, Seat: 1, Floor: [FloorSize]Colour{Marker}, FloorLen: 1, Penalty: 1, Points: 1, Score: 2},
			"seat 1 lost 1 point for the floor (start marker), score 2"},
		{Event{Kind: EvFloorScored, Seat: 0, Floor: [FloorSize]Colour{Marker, Yellow, Yellow, Yellow}, FloorLen: 4, Penalty: 6, Points: 6, Score: 3, ToLid: 3},
			"seat 0 lost 6 points for the floor (start marker, yellow, yellow, yellow), score 3; 3 to the lid"},
		{Event{Kind: EvFloorScored, Seat: 0, Floor: [FloorSize]Colour{Red, Red}, FloorLen: 2, Penalty: 2, Points: 1, Score: 0, ToLid: 2},
			"seat 0 lost 1 point for the floor (red, red; it shows 2, but a score stops at 0), score 0; 2 to the lid"},
		{Event{Kind: EvWallTiled, Seat: 1, Colour: Blue, Line: 1, Column: 1, Points: 1, HRun: 1, VRun: 1, Score: 1},
			"seat 1 tiled blue from line 1 at row 1, column 1: +1 (horizontal 1, vertical 1), score 1"},
		{Event{Kind: EvWallTiled, Seat: 0, Colour: Red, Line: 3, Column: 5, Points: 4, HRun: 2, VRun: 2, Score: 9, ToLid: 2},
			"seat 0 tiled red from line 3 at row 3, column 5: +4 (horizontal 2, vertical 2), score 9; 2 to the lid"},
	} {
		if got := c.e.Summary(); got != c.want {
			t.Errorf("summary %q, want %q", got, c.want)
		}
	}
}
