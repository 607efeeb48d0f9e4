package azul

import "testing"

// TestFloorSummary: a scored floor reads as plain English, the start
// marker by its name, and says when the score stopped the loss at 0.
func TestFloorSummary(t *testing.T) {
	for _, c := range []struct {
		e    Event
		want string
	}{
		{Event{Kind: EvFloorScored, Seat: 1, Floor: [FloorSize]Color{Marker}, FloorLen: 1, Penalty: 1, Points: 1, Score: 2},
			"seat 1 lost 1 point for the floor (start marker), score 2"},
		{Event{Kind: EvFloorScored, Seat: 0, Floor: [FloorSize]Color{Marker, Yellow, Yellow, Yellow}, FloorLen: 4, Penalty: 6, Points: 6, Score: 3, ToLid: 3},
			"seat 0 lost 6 points for the floor (start marker, yellow, yellow, yellow), score 3; 3 to the lid"},
		{Event{Kind: EvFloorScored, Seat: 0, Floor: [FloorSize]Color{Red, Red}, FloorLen: 2, Penalty: 2, Points: 1, Score: 0, ToLid: 2},
			"seat 0 lost 1 point for the floor (red, red; it shows 2, but a score stops at 0), score 0; 2 to the lid"},
	} {
		if got := c.e.Summary(); got != c.want {
			t.Errorf("summary %q, want %q", got, c.want)
		}
	}
}
