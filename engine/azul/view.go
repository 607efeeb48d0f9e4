package azul

import (
	"fmt"
	"slices"
	"strings"

	"github.com/azuld/azuld/engine"
)

// BoardView is an Azul board in the state JSON (docs/architecture.md §5.4).
type BoardView struct {
	// Lines: index 0 is line 1; Colour is null when the line is empty.
	Lines []LineView `json:"lines"`
	// Wall is row-major; null marks an empty space.
	Wall [5][5]*string `json:"wall"`
	// Floor lists the floor items from the left: colours and "marker".
	Floor []string `json:"floor"`
	// PendingLine is the pattern line whose grey-wall space the player
	// must choose now (omitted when there is none).
	PendingLine int `json:"pending_line,omitempty"`
	// Grey is the grey wall, whose spaces have no printed colour (not in
	// the JSON: the view's options say it).
	Grey bool `json:"-"`
}

// LineView is one pattern line.
type LineView struct {
	Colour *string `json:"color"`
	Count  int     `json:"count"`
}

func colourCountMap(counts [NumColours]uint8) map[string]int {
	m := make(map[string]int)
	for c, n := range counts {
		if n > 0 {
			m[Colour(c).String()] = int(n)
		}
	}
	return m
}

func colourName(c Colour) *string {
	name := c.String()
	return &name
}

// View is the state JSON of docs/architecture.md §5.4 without the server's fields.
func (s *State) View() engine.View {
	v := engine.View{
		Ruleset: Ruleset, Options: options(s.grey), Round: int(s.round), Phase: s.phase.String(),
		ToAct: s.ToAct(), Factories: []map[string]int{},
		Center:  engine.CenterView{Tiles: colourCountMap(s.center), Marker: s.CenterMarker()},
		Bag:     sum5(s.bag),
		Discard: sum5(s.lid),
		Players: []engine.PlayerView{},
		Final:   s.Final(),
	}
	for f := range s.NumFactories() {
		v.Factories = append(v.Factories, colourCountMap(s.factories[f]))
	}
	for seat := range int(s.players) {
		b := &s.boards[seat]
		bv := BoardView{Lines: make([]LineView, 5), Floor: []string{}, PendingLine: s.PendingLine(seat), Grey: s.grey}
		for r := range 5 {
			if b.LineCount[r] > 0 {
				bv.Lines[r] = LineView{Colour: colourName(b.LineColour[r]), Count: int(b.LineCount[r])}
			}
			for col := range 5 {
				if c := b.Wall[r][col]; c.IsTile() {
					bv.Wall[r][col] = colourName(c)
				}
			}
		}
		for _, c := range b.Floor[:b.FloorLen] {
			bv.Floor = append(bv.Floor, c.String())
		}
		v.Players = append(v.Players, engine.PlayerView{
			Seat: seat, Score: int(b.Score), Board: bv, Marker: int(s.markerHolder) == seat,
		})
	}
	return v
}

// countsText is "2 blue, 1 red" ("-" when empty).
func countsText(counts [NumColours]uint8) string {
	var parts []string
	for c, n := range counts {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, Colour(c)))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

// Text renders the table for a monospace font, at most 72 columns: the
// offer (F1.., C), bag and lid, then every board with pattern lines 1..5
// filled from the right, the wall (capitals are tiles; on the coloured
// wall small letters show the empty spaces' colours) and the floor.
func (s *State) Text() string {
	if s.phase == phaseNone {
		return "Azul Mini: the game has not started.\n"
	}
	var t strings.Builder
	wall := "coloured wall"
	if s.grey {
		wall = "grey wall"
	}
	fmt.Fprintf(&t, "Azul Mini, %d players, %s, round %d: %s\n", s.players, wall, s.round, s.phase)
	switch {
	case s.phase == PhaseOffer:
		fmt.Fprintf(&t, "Seat %d to take tiles.\n", s.turn)
	case s.phase == PhaseTiling && s.ToActMask() != 0:
		var who []string
		for _, seat := range s.ToAct() {
			who = append(who, fmt.Sprintf("seat %d (line %d)", seat, s.PendingLine(seat)))
		}
		t.WriteString(wrap("To choose a wall space: "+strings.Join(who, ", ")+".") + "\n")
	case s.phase == PhaseOver:
		fmt.Fprintf(&t, "Game over (%s).\n", strings.ReplaceAll(s.endReason.String(), "_", " "))
	}
	t.WriteString("\n")
	for f := range s.NumFactories() {
		fmt.Fprintf(&t, "F%-2d %s\n", f+1, countsText(s.factories[f]))
	}
	center := countsText(s.center)
	if s.CenterMarker() {
		if center == "-" {
			center = "start marker"
		} else {
			center = "start marker, " + center
		}
	}
	fmt.Fprintf(&t, "C   %s\n", center)
	fmt.Fprintf(&t, "Bag %d tiles, lid %d tiles.\n", sum5(s.bag), sum5(s.lid))
	for seat := range int(s.players) {
		t.WriteString("\n")
		s.boardText(&t, seat)
	}
	if f := s.Final(); f != nil {
		t.WriteString("\nFinal result:\n")
		players := slices.Clone(f.Players)
		slices.SortStableFunc(players, func(a, b engine.FinalPlayer) int { return a.Rank - b.Rank })
		for _, p := range players {
			fmt.Fprintf(&t, "  %d. seat %d: %s", p.Rank, p.Seat, points(p.Score))
			for _, item := range p.Breakdown {
				if item.Item != "play" {
					fmt.Fprintf(&t, ", %s %d (+%d)", item.Item, item.Count, item.Points)
				}
			}
			if p.Resigned {
				t.WriteString(", resigned")
			}
			t.WriteString("\n")
		}
	}
	t.WriteString("\nB blue, Y yellow, R red, K black, W white, M start marker.\n")
	if s.grey {
		t.WriteString("Wall: capitals are tiles, dots empty spaces.\n")
	} else {
		t.WriteString("Wall: capitals are tiles, small letters empty spaces.\n")
	}
	return t.String()
}

func (s *State) boardText(t *strings.Builder, seat int) {
	b := &s.boards[seat]
	head := fmt.Sprintf("Seat %d: %s", seat, points(int(b.Score)))
	if int(s.markerHolder) == seat {
		head += ", holds the start marker"
	}
	if line := s.PendingLine(seat); line > 0 {
		head += fmt.Sprintf(", chooses the wall space of line %d", line)
	}
	t.WriteString(wrap(head))
	t.WriteString("\n  line      wall 1 2 3 4 5\n")
	for r := range 5 {
		var row [9]byte
		for i := range row {
			row[i] = ' '
		}
		// Line r+1 has r+1 spaces ending at the right; tiles fill from the right.
		for k := range r + 1 {
			pos := 8 - 2*k
			row[pos] = '.'
			if k < int(b.LineCount[r]) {
				row[pos] = b.LineColour[r].Letter()
			}
		}
		fmt.Fprintf(t, "  %d  %s |", r+1, row[:])
		for col := range 5 {
			cell := byte('.')
			switch c := b.Wall[r][col]; {
			case c.IsTile():
				cell = c.Letter()
			case !s.grey:
				cell = WallColour(r, col).Letter() + ('a' - 'A')
			}
			fmt.Fprintf(t, " %c", cell)
		}
		t.WriteString("\n")
	}
	t.WriteString("  floor")
	for i := range FloorSize {
		if i < int(b.FloorLen) {
			fmt.Fprintf(t, " %c", b.Floor[i].Letter())
		} else {
			t.WriteString(" .")
		}
	}
	if b.FloorLen > 0 {
		fmt.Fprintf(t, "  (-%d)", FloorPenalty(int(b.FloorLen)))
	}
	t.WriteString("\n")
}

func points(n int) string {
	if n == 1 {
		return "1 point"
	}
	return fmt.Sprintf("%d points", n)
}

// textWidth is the most columns a line of Text takes.
const textWidth = 72

// wrap breaks a line of Text longer than textWidth after its last comma
// that fits, going on indented by two spaces.
func wrap(line string) string {
	var out strings.Builder
	for len(line) > textWidth {
		cut := strings.LastIndex(line[:textWidth], ", ")
		if cut < 0 {
			break
		}
		out.WriteString(line[:cut+1] + "\n")
		line = "  " + line[cut+2:]
	}
	out.WriteString(line)
	return out.String()
}
