package azul

import (
	"fmt"
	"strings"
)

// Summary is a one-line English account of the event for audit logs and
// mails, e.g. "seat 1 took 3 red from F2: 2 to line 3, 1 to the floor;
// 1 blue to the centre".
func (e Event) Summary() string {
	switch e.Kind {
	case EvGameStarted:
		wall := "coloured wall"
		if e.Grey {
			wall = "grey wall"
		}
		return fmt.Sprintf("game started: %s, %d players, %s; seat %d starts", Ruleset, e.Players, wall, e.Seat)
	case EvFactoriesFilled:
		var b strings.Builder
		fmt.Fprintf(&b, "round %d: seat %d starts", e.Round, e.Seat)
		if e.LidToBag > 0 {
			fmt.Fprintf(&b, "; %d tiles went from the lid back into the bag", e.LidToBag)
		}
		b.WriteString("; drawn:")
		for f := range min(int(e.Count), MaxFactories) {
			fmt.Fprintf(&b, " F%d", f+1)
			if e.DealN[f] == 0 {
				b.WriteString(" -")
			}
			for k := range min(int(e.DealN[f]), FactorySize) {
				b.WriteByte(' ')
				b.WriteString(e.Deal[f][k].String())
			}
			if f+1 < int(e.Count) {
				b.WriteByte(',')
			}
		}
		return b.String()
	case EvTilesTaken:
		var parts []string
		if e.ToLine > 0 {
			parts = append(parts, fmt.Sprintf("%d to line %d", e.ToLine, e.Line))
		}
		if e.ToFloor > 0 {
			parts = append(parts, fmt.Sprintf("%d to the floor", e.ToFloor))
		}
		if e.ToLid > 0 {
			parts = append(parts, fmt.Sprintf("%d to the lid", e.ToLid))
		}
		s := fmt.Sprintf("seat %d took %d %s from %s", e.Seat, e.Count, e.Colour, sourceName(e.Source))
		if e.Marker {
			s += " and the start marker"
		}
		s += ": " + strings.Join(parts, ", ")
		if rest := countsText(e.ToCenter); e.Source != Center && rest != "-" {
			s += "; " + rest + " to the centre"
		}
		return s
	case EvWallTiled:
		s := fmt.Sprintf("seat %d tiled %s from line %d at row %d, column %d: +%d (horizontal %d, vertical %d), score %d",
			e.Seat, e.Colour, e.Line, e.Line, e.Column, e.Points, e.HRun, e.VRun, e.Score)
		if e.ToLid > 0 {
			s += fmt.Sprintf("; %d to the lid", e.ToLid)
		}
		return s
	case EvLineToFloor:
		return fmt.Sprintf("seat %d's line %d (%d %s) had no legal wall space: %d to the floor, %d to the lid",
			e.Seat, e.Line, e.Count, e.Colour, e.ToFloor, e.ToLid)
	case EvFloorScored:
		items := make([]string, 0, FloorSize)
		for _, c := range e.Floor[:min(int(e.FloorLen), FloorSize)] {
			if c == Marker {
				items = append(items, "start marker")
			} else {
				items = append(items, c.String())
			}
		}
		lost := fmt.Sprintf("%d points", e.Points)
		if e.Points == 1 {
			lost = "1 point"
		}
		floor := strings.Join(items, ", ")
		if e.Points < e.Penalty {
			// The floor asked for more than the score had.
			floor += fmt.Sprintf("; it shows %d, but a score stops at 0", e.Penalty)
		}
		s := fmt.Sprintf("seat %d lost %s for the floor (%s), score %d", e.Seat, lost, floor, e.Score)
		if e.ToLid > 0 {
			s += fmt.Sprintf("; %d to the lid", e.ToLid)
		}
		return s
	case EvGameEnded:
		f := finalOf(&e)
		var parts []string
		for _, p := range f.Players {
			s := fmt.Sprintf("seat %d %d (rank %d)", p.Seat, p.Score, p.Rank)
			if p.Resigned {
				s += ", resigned"
			}
			parts = append(parts, s)
		}
		return fmt.Sprintf("game over in round %d (%s): %s", e.Round, strings.ReplaceAll(f.Reason, "_", " "), strings.Join(parts, "; "))
	}
	return "unknown event"
}
