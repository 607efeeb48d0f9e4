package azul

import "math/bits"

// Phase is where a round stands.
type Phase uint8

// The phases. A State is in phaseNone only before game_started.
const (
	phaseNone Phase = iota
	// PhaseOffer: players take tiles from the factories and the centre.
	PhaseOffer
	// PhaseTiling: wall tiling and floor scoring (docs/rules.md §2.3). A
	// coloured-wall game passes through it inside one Decide batch; a
	// grey-wall game waits in it for the players' tile commands. Also the
	// phase of the state between game_started and the first deal.
	PhaseTiling
	// PhaseOver: the game has ended.
	PhaseOver
)

// String is the phase name of the state JSON: offer, tiling, over.
func (p Phase) String() string {
	switch p {
	case PhaseOffer:
		return "offer"
	case PhaseTiling:
		return "tiling"
	case PhaseOver:
		return "over"
	}
	return "none"
}

// EndReason is why a game ended.
type EndReason uint8

// The end reasons (engine.Final.Reason).
const (
	NotEnded EndReason = iota
	// EndRowCompleted: a player completed a wall row (docs/rules.md §2.5).
	EndRowCompleted
	// EndRoundLimit: round 50 was tiled (Decision A3).
	EndRoundLimit
	// EndNoTiles: not a single tile could be dealt (Decision A3).
	EndNoTiles
	// EndResigned: a player resigned.
	EndResigned
)

// String is the Final.Reason text.
func (r EndReason) String() string {
	switch r {
	case NotEnded:
		return ""
	case EndRowCompleted:
		return "row_completed"
	case EndRoundLimit:
		return "round_limit"
	case EndNoTiles:
		return "no_tiles"
	case EndResigned:
		return "resigned"
	}
	return "invalid"
}

func parseEndReason(text string) (EndReason, bool) {
	for r := EndRowCompleted; r <= EndResigned; r++ {
		if r.String() == text {
			return r, true
		}
	}
	return NotEnded, false
}

// Game constants.
const (
	// MaxPlayers is the largest number of players.
	MaxPlayers = 4
	// MaxRounds is the round after whose tiling a game ends anyway
	// (Decision A3).
	MaxRounds = 50
	// FloorSize is the number of spaces of a floor line.
	FloorSize = 7
	// TilesPerColour is the number of tiles of each colour in the game.
	TilesPerColour = 20
	// FactorySize is the number of tiles dealt to a factory.
	FactorySize = 4
)

// floorLoss holds at byte k the total printed penalty of the first k floor
// spaces, whose penalties are −1, −1, −2, −2, −2, −3, −3 (docs/rules.md §2.1).
const floorLoss = "\x00\x01\x02\x04\x06\x08\x0b\x0e"

// FloorPenalty is the total printed penalty of a floor holding k items.
func FloorPenalty(k int) int {
	if k < 0 {
		return 0
	}
	return int(floorLoss[min(k, FloorSize)])
}

// FactoryCount is the number of factories for a number of players.
func FactoryCount(players int) int { return 2*players + 1 }

// Board is one player's board. The exported fields are a copy when read
// through State.Board; the state changes only through events.
type Board struct {
	// LineColour and LineCount are the pattern lines (index 0 = line 1,
	// which holds 1 tile; index 4 = line 5). LineColour is NoColour when
	// the line is empty.
	LineColour [5]Colour
	LineCount  [5]uint8
	// Wall is row-major; NoColour marks an empty space.
	Wall [5][5]Colour
	// Floor holds FloorLen items from the left (tiles or Marker); the rest
	// are NoColour.
	Floor    [FloorSize]Colour
	FloorLen uint8
	Score    int16

	// Derived from Wall, for the legality checks of hot loops: the colours
	// (bit per colour) in each row and column, and the occupied spaces
	// (bit per column) of each row.
	rowColours [5]uint8
	colColours [5]uint8
	rowTiles   [5]uint8
}

// State is a whole Azul Mini game: a plain value of fixed-size arrays, so
// copying it copies the game and == compares two games. Change it only with
// Apply; read it with its methods.
type State struct {
	players uint8
	grey    bool
	phase   Phase
	round   uint8
	// turn is the seat to act in the offer phase.
	turn int8
	// startSeat is the seat that started the current round.
	startSeat int8
	// markerHolder is the seat that took the start marker this round (on
	// its floor or beside it), -1 while the marker lies in the centre.
	markerHolder int8
	// resigned is the seat that resigned, -1 if none.
	resigned  int8
	endReason EndReason
	// onOffer counts the tiles in the factories and the centre (derived;
	// it tells a take that ends the offer without a scan).
	onOffer   uint8
	bag       [NumColours]uint8
	lid       [NumColours]uint8
	factories [MaxFactories][NumColours]uint8
	center    [NumColours]uint8
	boards    [MaxPlayers]Board
}

// newState is the state right after game_started: every tile in the bag,
// empty boards, round 0 (before the first deal).
func newState(players int, grey bool) State {
	s := State{
		players:      uint8(players),
		grey:         grey,
		phase:        PhaseTiling,
		markerHolder: -1,
		resigned:     -1,
	}
	for c := range s.bag {
		s.bag[c] = TilesPerColour
	}
	for i := range s.boards {
		s.boards[i] = emptyBoard()
	}
	return s
}

func emptyBoard() Board {
	var b Board
	for r := range 5 {
		b.LineColour[r] = NoColour
		for c := range 5 {
			b.Wall[r][c] = NoColour
		}
	}
	for i := range b.Floor {
		b.Floor[i] = NoColour
	}
	return b
}

// Players is the number of players.
func (s *State) Players() int { return int(s.players) }

// Grey reports whether the game uses the grey wall (docs/rules.md §2.6).
func (s *State) Grey() bool { return s.grey }

// Phase is the current phase.
func (s *State) Phase() Phase { return s.phase }

// Round is the current round, 1-based (0 before the first deal).
func (s *State) Round() int { return int(s.round) }

// Reveals counts the random reveals so far: one per deal, so it equals the
// round number.
func (s *State) Reveals() int { return int(s.round) }

// Turn is the seat to act in the offer phase, -1 in other phases.
func (s *State) Turn() int {
	if s.phase != PhaseOffer {
		return -1
	}
	return int(s.turn)
}

// StartSeat is the seat that started the current round.
func (s *State) StartSeat() int { return int(s.startSeat) }

// MarkerHolder is the seat holding the start marker (taken this round, or
// kept after the floor scoring), -1 while it lies in the centre.
func (s *State) MarkerHolder() int { return int(s.markerHolder) }

// NumFactories is the number of factories in play.
func (s *State) NumFactories() int { return FactoryCount(int(s.players)) }

// Factory is the tile count by colour of factory i (0-based).
func (s *State) Factory(i int) [NumColours]uint8 {
	if i < 0 || i >= MaxFactories {
		return [NumColours]uint8{}
	}
	return s.factories[i]
}

// Center is the tile count by colour in the centre.
func (s *State) Center() [NumColours]uint8 { return s.center }

// CenterMarker reports whether the start marker lies in the centre.
func (s *State) CenterMarker() bool { return s.phase == PhaseOffer && s.markerHolder < 0 }

// Bag is the tile count by colour in the bag.
func (s *State) Bag() [NumColours]uint8 { return s.bag }

// Lid is the tile count by colour in the box lid (the discard pile).
func (s *State) Lid() [NumColours]uint8 { return s.lid }

// Board is a copy of seat's board (an empty board for a seat not in play).
func (s *State) Board(seat int) Board {
	if seat < 0 || seat >= int(s.players) {
		return emptyBoard()
	}
	return s.boards[seat]
}

// Score is seat's score (0 for a seat not in play).
func (s *State) Score(seat int) int {
	if seat < 0 || seat >= int(s.players) {
		return 0
	}
	return int(s.boards[seat].Score)
}

// Over reports whether the game has ended.
func (s *State) Over() bool { return s.phase == PhaseOver }

// EndReason is why the game ended (NotEnded while it runs).
func (s *State) EndReason() EndReason { return s.endReason }

// ResignedSeat is the seat that resigned, -1 if none did.
func (s *State) ResignedSeat() int { return int(s.resigned) }

// ToActMask has bit i set when seat i may act now: the seat to move in the
// offer phase; in a grey-wall tiling, every seat with a wall space to
// choose (Decision A2). Zero when the game is over.
func (s *State) ToActMask() uint8 {
	switch s.phase {
	case PhaseOffer:
		return 1 << uint(s.turn)
	case PhaseTiling:
		if !s.grey {
			return 0
		}
		var mask uint8
		for seat := range int(s.players) {
			if s.PendingLine(seat) > 0 {
				mask |= 1 << uint(seat)
			}
		}
		return mask
	}
	return 0
}

// PendingLine is the pattern line (1..5) whose wall space seat must choose
// now in a grey-wall tiling, 0 when the seat has no choice to make. Lines
// are handled top to bottom; a line with no or one legal space needs no
// choice (the engine moves it itself).
func (s *State) PendingLine(seat int) int {
	if s.phase != PhaseTiling || !s.grey || seat < 0 || seat >= int(s.players) {
		return 0
	}
	b := &s.boards[seat]
	r := b.firstComplete()
	if r < 0 || bits.OnesCount8(b.greyColumns(r, b.LineColour[r])) < 2 {
		return 0
	}
	return r + 1
}

// firstComplete is the topmost complete pattern line (0-based), -1 if none.
func (b *Board) firstComplete() int {
	for r := range 5 {
		if int(b.LineCount[r]) == r+1 {
			return r
		}
	}
	return -1
}

// greyColumns is the set (bit per column) of the wall spaces of row r where
// a tile of colour c may go on the grey wall: empty, and c neither in the
// row nor in the column (docs/rules.md §2.6).
func (b *Board) greyColumns(r int, c Colour) uint8 {
	if r < 0 || r >= 5 || !c.IsTile() || b.rowColours[r]&(1<<c) != 0 {
		return 0
	}
	var mask uint8
	for col := range 5 {
		if b.rowTiles[r]&(1<<col) == 0 && b.colColours[col]&(1<<c) == 0 {
			mask |= 1 << col
		}
	}
	return mask
}

// LegalColumns is the set (bit per 0-based column) of the wall spaces
// where the tile of complete pattern line (1..5) may go: the printed space
// of its colour on the coloured wall, the legal spaces of §2.6 on the
// grey wall. Zero when the line is not complete.
func (b *Board) LegalColumns(line int, grey bool) uint8 {
	r := line - 1
	if r < 0 || r >= 5 || int(b.LineCount[r]) != line {
		return 0
	}
	c := b.LineColour[r]
	if grey {
		return b.greyColumns(r, c)
	}
	if !c.IsTile() || b.rowColours[r]&(1<<c) != 0 {
		return 0
	}
	return 1 << WallColumn(r, c)
}

// place puts a tile of colour c on the wall at row r, column col.
func (b *Board) place(r, col int, c Colour) {
	b.Wall[r][col] = c
	b.rowColours[r] |= 1 << c
	b.colColours[col] |= 1 << c
	b.rowTiles[r] |= 1 << col
}

// placementRuns are the lengths of the horizontal and vertical runs of
// wall tiles that a tile put at (r, col) would join, counting itself.
func (b *Board) placementRuns(r, col int) (h, v int) {
	h, v = 1, 1
	for c := col - 1; c >= 0 && b.rowTiles[r]&(1<<c) != 0; c-- {
		h++
	}
	for c := col + 1; c < 5 && b.rowTiles[r]&(1<<c) != 0; c++ {
		h++
	}
	for rr := r - 1; rr >= 0 && b.rowTiles[rr]&(1<<col) != 0; rr-- {
		v++
	}
	for rr := r + 1; rr < 5 && b.rowTiles[rr]&(1<<col) != 0; rr++ {
		v++
	}
	return h, v
}

// PlacementPoints is what a wall tile joining runs of h (horizontal) and
// v (vertical) tiles, itself included, scores (docs/rules.md §2.3): 1 when it
// touches nothing, else each run of 2 or more counts its length.
func PlacementPoints(h, v int) int {
	if h < 2 && v < 2 {
		return 1
	}
	points := 0
	if h >= 2 {
		points += h
	}
	if v >= 2 {
		points += v
	}
	return points
}

// hasFullRow reports whether some wall row is complete.
func (b *Board) hasFullRow() bool {
	for r := range 5 {
		if b.rowTiles[r] == 0x1f {
			return true
		}
	}
	return false
}

// Bonuses counts the complete rows, columns and colours of the wall
// (docs/rules.md §2.5) and the tiles on it.
func (b *Board) Bonuses() (rows, columns, colours, tiles int) {
	var perColour [NumColours]int
	for r := range 5 {
		if b.rowTiles[r] == 0x1f {
			rows++
		}
		tiles += bits.OnesCount8(b.rowTiles[r])
		for col := range 5 {
			if c := b.Wall[r][col]; c.IsTile() {
				perColour[c]++
			}
		}
	}
	for col := range 5 {
		full := true
		for r := range 5 {
			if b.rowTiles[r]&(1<<col) == 0 {
				full = false
				break
			}
		}
		if full {
			columns++
		}
	}
	for _, n := range perColour {
		if n == 5 {
			colours++
		}
	}
	return rows, columns, colours, tiles
}

// Bonus points per complete row, column and colour (docs/rules.md §2.5).
const (
	RowBonus    = 2
	ColumnBonus = 7
	ColourBonus = 10
)

// countOffer counts the tiles on offer (factories and centre).
func (s *State) countOffer() int {
	n := sum5(s.center)
	for f := range FactoryCount(int(s.players)) {
		n += sum5(s.factories[f])
	}
	return n
}

// tilingDone reports whether no board holds a complete pattern line or a
// floor item: the wall tiling and floor scoring of the round are over.
func (s *State) tilingDone() bool {
	for seat := range int(s.players) {
		b := &s.boards[seat]
		if b.firstComplete() >= 0 || b.FloorLen > 0 {
			return false
		}
	}
	return true
}

// anyFullRow reports whether some player has a complete wall row.
func (s *State) anyFullRow() bool {
	for seat := range int(s.players) {
		if s.boards[seat].hasFullRow() {
			return true
		}
	}
	return false
}

func sum5(a [NumColours]uint8) int {
	return int(a[0]) + int(a[1]) + int(a[2]) + int(a[3]) + int(a[4])
}
