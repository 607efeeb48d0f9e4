package azul

import (
	"fmt"
	"math/bits"

	"github.com/azuld/azuld/engine"
)

// The rule ids of the RuleErrors Decide returns, with their docs/rules.md refs.
const (
	RuleNoSuchFactory        = "azul.no-such-factory"
	RuleNoSuchTiles          = "azul.no-such-tiles"
	RuleLineHoldsOtherColour = "azul.line-holds-other-colour"
	RuleColourOnWallRow      = "azul.colour-already-on-wall-row"
	RuleColourOnWallColumn   = "azul.colour-already-on-wall-column"
	RuleLineFull             = "azul.line-full"
	RuleOfferOver            = "azul.offer-is-over"
	RuleNoWallChoiceNow      = "azul.no-wall-choice-now"
	RuleColouredWallFixed    = "azul.coloured-wall-is-fixed"
	RuleLinesTopToBottom     = "azul.lines-top-to-bottom"
	RuleWallSpaceTaken       = "azul.wall-space-taken"
)

func ruleErr(rule, ref, format string, args ...any) error {
	return &engine.RuleError{Rule: rule, Ref: ref, Detail: fmt.Sprintf(format, args...)}
}

func sourceName(source int8) string {
	if source == Center {
		return "the centre"
	}
	return fmt.Sprintf("F%d", source+1)
}

// takeEvent validates a take by seat and fills ev with the tiles_taken event it
// causes. Decide and Apply share it, so a fold accepts exactly the takes
// Decide accepts.
func takeEvent(s *State, seat int, cmd Cmd, ev *Event) error {
	if s.phase != PhaseOffer {
		if s.ToActMask()&(1<<uint(seat)) != 0 {
			return ruleErr(RuleOfferOver, "docs/rules.md §2.3",
				"the factory offer of this round is over: choose the wall space of line %d first", s.PendingLine(seat))
		}
		return fmt.Errorf("%w: nobody takes tiles during the wall tiling", engine.ErrNotYourTurn)
	}
	if seat != int(s.turn) {
		return fmt.Errorf("%w: seat %d is to take tiles, not seat %d", engine.ErrNotYourTurn, s.turn, seat)
	}
	var src *[NumColours]uint8
	switch {
	case cmd.Source == Center:
		src = &s.center
	case int(cmd.Source) >= s.NumFactories():
		return ruleErr(RuleNoSuchFactory, "docs/rules.md §0",
			"there is no factory F%d: a %d-player game has F1..F%d", cmd.Source+1, s.players, s.NumFactories())
	default:
		src = &s.factories[cmd.Source]
	}
	n := src[cmd.Colour]
	if n == 0 {
		return ruleErr(RuleNoSuchTiles, "docs/rules.md §2.2", "%s holds no %s tiles", sourceName(cmd.Source), cmd.Colour)
	}
	b := &s.boards[seat]
	*ev = Event{Kind: EvTilesTaken, Seat: int8(seat), Source: cmd.Source, Colour: cmd.Colour, Count: n, Line: cmd.Line}
	over := n
	if cmd.Line != Floor {
		r := int(cmd.Line) - 1
		switch {
		case b.LineCount[r] > 0 && b.LineColour[r] != cmd.Colour:
			return ruleErr(RuleLineHoldsOtherColour, "docs/rules.md §2.2",
				"line %d holds %s: a pattern line holds one colour only", r+1, b.LineColour[r])
		case b.rowColours[r]&(1<<cmd.Colour) != 0:
			return ruleErr(RuleColourOnWallRow, "docs/rules.md §2.2",
				"%s is already on row %d of the wall, so it can't go on line %d", cmd.Colour, r+1, r+1)
		case int(b.LineCount[r]) == r+1:
			return ruleErr(RuleLineFull, "docs/rules.md §2.2",
				"line %d is already complete: choose another line or the floor", r+1)
		}
		ev.ToLine = min(n, uint8(r+1)-b.LineCount[r])
		over = n - ev.ToLine
	}
	free := FloorSize - b.FloorLen
	if cmd.Source == Center && s.markerHolder < 0 {
		ev.Marker = true
		if free > 0 {
			free-- // the marker takes the leftmost free floor space
		}
	}
	ev.ToFloor = min(over, free)
	ev.ToLid = over - ev.ToFloor
	if cmd.Source != Center {
		ev.ToCenter = *src
		ev.ToCenter[cmd.Colour] = 0
	}
	return nil
}

func (s *State) applyTake(e *Event) {
	if e.Source == Center {
		s.center[e.Colour] = 0
	} else {
		for c, n := range e.ToCenter {
			s.center[c] += n
		}
		s.factories[e.Source] = [NumColours]uint8{}
	}
	b := &s.boards[e.Seat]
	if e.Marker {
		s.markerHolder = e.Seat
		if b.FloorLen < FloorSize {
			b.Floor[b.FloorLen] = Marker
			b.FloorLen++
		}
	}
	if e.ToLine > 0 {
		r := e.Line - 1
		b.LineColour[r] = e.Colour
		b.LineCount[r] += e.ToLine
	}
	for range e.ToFloor {
		b.Floor[b.FloorLen] = e.Colour
		b.FloorLen++
	}
	s.lid[e.Colour] += e.ToLid
	s.onOffer -= e.Count // a factory's rest stays on offer in the centre
	if s.onOffer == 0 {
		s.phase = PhaseTiling
	} else {
		s.turn = int8((int(s.turn) + 1) % int(s.players))
	}
}

// wallEvent validates moving the tile of seat's pattern line (1..5) to
// wall column col (0-based) and returns the wall_tiled event.
func wallEvent(s *State, seat, line, col int) (Event, error) {
	if s.phase != PhaseTiling {
		return Event{}, ruleErr(RuleNoWallChoiceNow, "docs/rules.md §2.3", "the wall tiling has not begun")
	}
	b := &s.boards[seat]
	r := b.firstComplete()
	if r < 0 {
		return Event{}, ruleErr(RuleNoWallChoiceNow, "docs/rules.md §2.3", "seat %d has no complete pattern line to tile", seat)
	}
	if r != line-1 {
		return Event{}, ruleErr(RuleLinesTopToBottom, "docs/rules.md §2.3",
			"lines are tiled top to bottom: line %d comes first", r+1)
	}
	c := b.LineColour[r]
	if b.LegalColumns(line, s.grey)&(1<<col) == 0 {
		switch {
		case !s.grey:
			return Event{}, ruleErr(RuleColouredWallFixed, "docs/rules.md §2.3",
				"on the coloured wall, %s goes to column %d of row %d", c, WallColumn(r, c)+1, r+1)
		case b.rowTiles[r]&(1<<col) != 0:
			return Event{}, ruleErr(RuleWallSpaceTaken, "docs/rules.md §2.6",
				"row %d, column %d of the wall already holds a tile", r+1, col+1)
		case b.rowColours[r]&(1<<c) != 0:
			return Event{}, ruleErr(RuleColourOnWallRow, "docs/rules.md §2.6", "%s is already on row %d of the wall", c, r+1)
		default:
			return Event{}, ruleErr(RuleColourOnWallColumn, "docs/rules.md §2.6",
				"%s is already in column %d of the wall", c, col+1)
		}
	}
	h, v := b.placementRuns(r, col)
	points := PlacementPoints(h, v)
	return Event{Kind: EvWallTiled, Seat: int8(seat), Line: int8(line), Colour: c, Column: int8(col + 1),
		HRun: uint8(h), VRun: uint8(v), Points: int16(points), ToLid: uint8(r), Score: b.Score + int16(points)}, nil
}

func (s *State) applyWall(e *Event) {
	b := &s.boards[e.Seat]
	r := int(e.Line) - 1
	b.place(r, int(e.Column)-1, e.Colour)
	b.LineColour[r], b.LineCount[r] = NoColour, 0
	s.lid[e.Colour] += e.ToLid
	b.Score = e.Score
}

// lineToFloorEvent is the line_to_floor event of seat's topmost complete
// line when the grey wall has no legal space for it (docs/rules.md §2.6).
func lineToFloorEvent(s *State, seat int) (Event, error) {
	b := &s.boards[seat]
	r := b.firstComplete()
	if !s.grey || s.phase != PhaseTiling || r < 0 || b.greyColumns(r, b.LineColour[r]) != 0 {
		return Event{}, fmt.Errorf("seat %d has no complete line without a legal wall space", seat)
	}
	n := uint8(r + 1)
	toFloor := min(n, FloorSize-b.FloorLen)
	return Event{Kind: EvLineToFloor, Seat: int8(seat), Line: int8(r + 1), Colour: b.LineColour[r], Count: n,
		ToFloor: toFloor, ToLid: n - toFloor}, nil
}

func (s *State) applyLineToFloor(e *Event) {
	b := &s.boards[e.Seat]
	r := int(e.Line) - 1
	b.LineColour[r], b.LineCount[r] = NoColour, 0
	for range e.ToFloor {
		b.Floor[b.FloorLen] = e.Colour
		b.FloorLen++
	}
	s.lid[e.Colour] += e.ToLid
}

// completeLines reports whether some board still has a complete line.
func (s *State) completeLines() bool {
	for seat := range int(s.players) {
		if s.boards[seat].firstComplete() >= 0 {
			return true
		}
	}
	return false
}

// floorEvent is the floor_scored event of seat, once every wall tile of
// the round is placed.
func floorEvent(s *State, seat int) (Event, error) {
	b := &s.boards[seat]
	if s.phase != PhaseTiling || b.FloorLen == 0 || s.completeLines() {
		return Event{}, fmt.Errorf("seat %d has no floor to score now", seat)
	}
	penalty := int16(FloorPenalty(int(b.FloorLen)))
	lost := min(penalty, b.Score) // the score never drops below 0
	e := Event{Kind: EvFloorScored, Seat: int8(seat), Floor: b.Floor, FloorLen: b.FloorLen,
		Penalty: penalty, Points: lost, Score: b.Score - lost}
	for _, c := range b.Floor[:b.FloorLen] {
		if c == Marker {
			e.Marker = true
		} else {
			e.ToLid++
		}
	}
	return e, nil
}

func (s *State) applyFloor(e *Event) {
	b := &s.boards[e.Seat]
	for _, c := range b.Floor[:b.FloorLen] {
		if c.IsTile() {
			s.lid[c]++
		}
	}
	b.Floor, b.FloorLen = emptyFloor(), 0
	b.Score = e.Score
}

// nextStartSeat is who starts the next round: the marker holder, or, when
// nobody took the marker this round, the seat that started it.
func (s *State) nextStartSeat() int8 {
	if s.markerHolder >= 0 {
		return s.markerHolder
	}
	return s.startSeat
}

// endCondition is why the game ends after this round's tiling (NotEnded
// if it goes on): docs/rules.md §2.5 first, then the two ends of Decision A3.
func (s *State) endCondition() EndReason {
	switch {
	case s.anyFullRow():
		return EndRowCompleted
	case s.round >= MaxRounds:
		return EndRoundLimit
	case sum5(s.bag)+sum5(s.lid) == 0:
		return EndNoTiles
	}
	return NotEnded
}

// canDeal reports whether the state is between rounds with a deal due.
func (s *State) canDeal() bool {
	return s.phase == PhaseTiling && s.tilingDone() && s.endCondition() == NotEnded
}

// randIntN is the part of math/rand/v2.Rand a deal uses.
type randIntN interface{ IntN(n int) int }

// dealEvent draws the next round's factories (docs/rules.md §1, §2.4): tile by
// tile, factory by factory; when the bag is empty the whole lid is poured
// back into it once, and when both are empty the deal stops short.
func dealEvent(s *State, rng randIntN) Event {
	nf := s.NumFactories()
	e := Event{Kind: EvFactoriesFilled, Round: s.round + 1, Seat: s.nextStartSeat(), Count: uint8(nf)}
	bag, lid := s.bag, s.lid
	bagN, lidN := sum5(bag), sum5(lid)
	for f := range nf {
		for k := range FactorySize {
			if bagN == 0 {
				if lidN == 0 {
					return e
				}
				bag, lid = lid, [NumColours]uint8{}
				bagN, lidN = lidN, 0
				e.LidToBag = uint8(bagN)
			}
			x := rng.IntN(bagN)
			c := Colour(0)
			for x >= int(bag[c]) {
				x -= int(bag[c])
				c++
			}
			bag[c]--
			bagN--
			e.Deal[f][k] = c
			e.DealN[f]++
		}
	}
	return e
}

// followDeal replays a deal's draws on the bag and lid, checking that the
// event could have come from them; it returns the bag and lid after it.
func followDeal(s *State, e *Event) (bag, lid [NumColours]uint8, err error) {
	nf := s.NumFactories()
	if int(e.Count) != nf {
		return bag, lid, fmt.Errorf("%d factories dealt, the game has %d", e.Count, nf)
	}
	bag, lid = s.bag, s.lid
	bagN, lidN := sum5(bag), sum5(lid)
	want := min(FactorySize*nf, bagN+lidN)
	poured := 0
	dealt := 0
	for f := range MaxFactories {
		n := int(e.DealN[f])
		if n > FactorySize || (f >= nf && n > 0) {
			return bag, lid, fmt.Errorf("factory %d gets %d tiles", f, n)
		}
		if n > 0 && f > 0 && e.DealN[f-1] < FactorySize {
			return bag, lid, fmt.Errorf("factory %d gets tiles while factory %d is not full", f, f-1)
		}
		for k := range FactorySize {
			c := e.Deal[f][k]
			if k >= n {
				if c != 0 {
					return bag, lid, fmt.Errorf("factory %d: unused draw slot set", f)
				}
				continue
			}
			if bagN == 0 {
				if lidN == 0 || poured > 0 {
					return bag, lid, fmt.Errorf("factory %d: a tile drawn from an empty bag and lid", f)
				}
				bag, lid = lid, [NumColours]uint8{}
				bagN, lidN = lidN, 0
				poured = bagN
			}
			if !c.IsTile() || bag[c] == 0 {
				return bag, lid, fmt.Errorf("factory %d: %s drawn, but the bag holds none", f, c)
			}
			bag[c]--
			bagN--
			dealt++
		}
	}
	if dealt != want {
		return bag, lid, fmt.Errorf("%d tiles dealt, %d due", dealt, want)
	}
	if int(e.LidToBag) != poured {
		return bag, lid, fmt.Errorf("lid_to_bag %d, but %d tiles went from the lid to the bag", e.LidToBag, poured)
	}
	return bag, lid, nil
}

func (s *State) applyDeal(e *Event, bag, lid [NumColours]uint8) {
	s.bag, s.lid = bag, lid
	for f := range MaxFactories {
		s.factories[f] = [NumColours]uint8{}
		for k := range e.DealN[f] {
			s.factories[f][e.Deal[f][k]]++
		}
	}
	s.onOffer = 0
	for f := range MaxFactories {
		s.onOffer += e.DealN[f]
	}
	s.round = e.Round
	s.phase = PhaseOffer
	s.startSeat, s.turn = e.Seat, e.Seat
	s.markerHolder = -1 // the start player puts the marker in the centre
}

// endEvent is the game_ended event for reason. With scoresFinal the
// current scores already hold the end bonuses (the state after the game
// ended); otherwise they are added. A resigned game adds no bonuses.
func endEvent(s *State, reason EndReason, resigned int, scoresFinal bool) Event {
	n := int(s.players)
	e := Event{Kind: EvGameEnded, Round: s.round, Reason: reason, Resigned: int8(resigned), Count: uint8(n)}
	var rows [MaxPlayers]int
	for seat := range n {
		b := &s.boards[seat]
		r, cols, colours, tiles := b.Bonuses()
		rows[seat] = r
		fs := FinalSeat{Score: b.Score, Play: b.Score, WallTiles: uint8(tiles)}
		if reason != EndResigned {
			fs.Rows, fs.Columns, fs.Colours = uint8(r), uint8(cols), uint8(colours)
			bonus := int16(r*RowBonus + cols*ColumnBonus + colours*ColourBonus)
			if scoresFinal {
				fs.Play -= bonus
			} else {
				fs.Score += bonus
			}
		}
		e.Final[seat] = fs
	}
	// Ranks: more points first, then more complete rows (docs/rules.md §2.5);
	// still tied seats share a rank. A resigned seat is ranked last.
	for seat := range n {
		if seat == resigned {
			e.Final[seat].Rank = uint8(n)
			continue
		}
		rank := 1
		for o := range n {
			if o == seat || o == resigned {
				continue
			}
			so, ss := e.Final[o].Score, e.Final[seat].Score
			if so > ss || (so == ss && rows[o] > rows[seat]) {
				rank++
			}
		}
		e.Final[seat].Rank = uint8(rank)
	}
	return e
}

func (s *State) applyEnd(e *Event) {
	for seat := range int(s.players) {
		s.boards[seat].Score = e.Final[seat].Score
	}
	s.phase = PhaseOver
	s.endReason = e.Reason
	s.resigned = e.Resigned
}

// Apply folds one event into the state (the typed Evolve). An event that
// does not fit the state is rejected with an error wrapping
// engine.ErrInconsistent and leaves the state unchanged. The first event
// of a game, game_started, is applied to the zero State.
func (s *State) Apply(e Event) error {
	if err := s.apply(&e); err != nil {
		return fmt.Errorf("%w: %s: %v", engine.ErrInconsistent, e.Kind, err)
	}
	return nil
}

func (s *State) apply(e *Event) error {
	if e.Kind == EvGameStarted {
		if s.phase != phaseNone {
			return fmt.Errorf("the game has already started")
		}
		if e.Players < 2 || e.Players > MaxPlayers || e.Seat < 0 || e.Seat >= int8(e.Players) {
			return fmt.Errorf("%d players, first seat %d", e.Players, e.Seat)
		}
		if *e != (Event{Kind: EvGameStarted, Players: e.Players, Grey: e.Grey, Seat: e.Seat}) {
			return fmt.Errorf("fields outside game_started are set")
		}
		*s = newState(int(e.Players), e.Grey)
		s.startSeat = e.Seat
		return nil
	}
	if s.phase == phaseNone {
		return fmt.Errorf("the game has not started")
	}
	if s.phase == PhaseOver {
		return fmt.Errorf("the game is over")
	}
	if e.Kind != EvFactoriesFilled && (e.Seat < 0 || int(e.Seat) >= int(s.players)) {
		return fmt.Errorf("no seat %d", e.Seat)
	}
	switch e.Kind {
	case EvFactoriesFilled:
		if !s.canDeal() {
			return fmt.Errorf("no deal is due")
		}
		if e.Round != s.round+1 || e.Seat != s.nextStartSeat() {
			return fmt.Errorf("round %d started by seat %d, want round %d started by seat %d", e.Round, e.Seat, s.round+1, s.nextStartSeat())
		}
		bag, lid, err := followDeal(s, e)
		if err != nil {
			return err
		}
		if *e != (Event{Kind: EvFactoriesFilled, Round: e.Round, Seat: e.Seat, Count: e.Count, LidToBag: e.LidToBag, Deal: e.Deal, DealN: e.DealN}) {
			return fmt.Errorf("fields outside factories_filled are set")
		}
		s.applyDeal(e, bag, lid)
	case EvTilesTaken:
		cmd := Take(e.Source, e.Colour, e.Line)
		if err := cmd.check(); err != nil {
			return err
		}
		var want Event
		if err := takeEvent(s, int(e.Seat), cmd, &want); err != nil {
			return err
		}
		if want != *e {
			return fmt.Errorf("the take records other results than the rules give")
		}
		s.applyTake(e)
	case EvWallTiled:
		if e.Line < 1 || e.Line > 5 || e.Column < 1 || e.Column > 5 {
			return fmt.Errorf("line %d, column %d", e.Line, e.Column)
		}
		want, err := wallEvent(s, int(e.Seat), int(e.Line), int(e.Column)-1)
		if err != nil {
			return err
		}
		if want != *e {
			return fmt.Errorf("the wall tiling records other results than the rules give")
		}
		s.applyWall(e)
	case EvLineToFloor:
		want, err := lineToFloorEvent(s, int(e.Seat))
		if err != nil {
			return err
		}
		if want != *e {
			return fmt.Errorf("the line to the floor records other results than the rules give")
		}
		s.applyLineToFloor(e)
	case EvFloorScored:
		want, err := floorEvent(s, int(e.Seat))
		if err != nil {
			return err
		}
		if want != *e {
			return fmt.Errorf("the floor scoring records other results than the rules give")
		}
		s.applyFloor(e)
	case EvGameEnded:
		if err := s.checkEnd(e); err != nil {
			return err
		}
		s.applyEnd(e)
	default:
		return fmt.Errorf("unknown event kind %d", e.Kind)
	}
	return nil
}

// checkEnd checks that the game may end for the event's reason now and
// that its result is the one the rules give.
func (s *State) checkEnd(e *Event) error {
	resigned := int(e.Resigned)
	if e.Reason == EndResigned {
		if resigned < 0 || resigned >= int(s.players) {
			return fmt.Errorf("resigned seat %d", resigned)
		}
	} else {
		if resigned != -1 {
			return fmt.Errorf("a resigned seat in a game that ended by %s", e.Reason)
		}
		if s.phase != PhaseTiling || !s.tilingDone() {
			return fmt.Errorf("the round's tiling is not over")
		}
		if got := s.endCondition(); got != e.Reason {
			return fmt.Errorf("the game ends by %q now, not %q", got, e.Reason)
		}
	}
	if want := endEvent(s, e.Reason, resigned, false); want != *e {
		return fmt.Errorf("the final result differs from the one the rules give")
	}
	return nil
}

// autoTile moves seat's complete grey-wall lines that leave no choice: a
// line with no legal space goes to the floor, a line with one legal space
// is tiled there. It stops at the first line with a choice.
func (s *State) autoTile(seat int, buf []Event) []Event {
	b := &s.boards[seat]
	for {
		r := b.firstComplete()
		if r < 0 {
			return buf
		}
		cols := b.greyColumns(r, b.LineColour[r])
		var e Event
		switch bits.OnesCount8(cols) {
		case 0:
			e, _ = lineToFloorEvent(s, seat)
			s.applyLineToFloor(&e)
		case 1:
			e, _ = wallEvent(s, seat, r+1, bits.TrailingZeros8(cols))
			s.applyWall(&e)
		default:
			return buf
		}
		buf = append(buf, e)
	}
}
