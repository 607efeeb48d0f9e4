package azul

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/jsonstrict"
)

// stateJSON is the snapshot form of a State (format StateFormat).
type stateJSON struct {
	Format       int            `json:"format"`
	Players      int            `json:"players"`
	Wall         string         `json:"wall"`
	Phase        string         `json:"phase"`
	Round        int            `json:"round"`
	Turn         int            `json:"turn"`
	StartSeat    int            `json:"start_seat"`
	MarkerHolder int            `json:"marker_holder"`
	Resigned     int            `json:"resigned"`
	EndReason    string         `json:"end_reason,omitempty"`
	Bag          colourCounts   `json:"bag"`
	Lid          colourCounts   `json:"lid"`
	Factories    []colourCounts `json:"factories"`
	Center       colourCounts   `json:"center"`
	Boards       []boardJSON    `json:"boards"`
}

type boardJSON struct {
	Lines [5]lineState      `json:"lines"`
	Wall  [5][5]*colourJSON `json:"wall"`
	Floor []colourJSON      `json:"floor"`
	Score int               `json:"score"`
}

type lineState struct {
	Colour *colourJSON `json:"color"`
	Count  int         `json:"count"`
}

// MarshalJSON writes the state as a snapshot; DecodeState reads it back
// to an equal State.
func (s *State) MarshalJSON() ([]byte, error) {
	if s.phase == phaseNone {
		return nil, errors.New("azul: no snapshot of a game that has not started")
	}
	j := stateJSON{
		Format: StateFormat, Players: int(s.players), Wall: "coloured", Phase: s.phase.String(),
		Round: int(s.round), Turn: int(s.turn), StartSeat: int(s.startSeat), MarkerHolder: int(s.markerHolder),
		Resigned: int(s.resigned), EndReason: s.endReason.String(),
		Bag: s.bag, Lid: s.lid, Center: s.center,
	}
	if s.grey {
		j.Wall = "grey"
	}
	for f := range s.NumFactories() {
		j.Factories = append(j.Factories, s.factories[f])
	}
	for seat := range int(s.players) {
		b := &s.boards[seat]
		bj := boardJSON{Score: int(b.Score), Floor: []colourJSON{}}
		for r := range 5 {
			if b.LineCount[r] > 0 {
				c := colourJSON(b.LineColour[r])
				bj.Lines[r] = lineState{Colour: &c, Count: int(b.LineCount[r])}
			}
			for col := range 5 {
				if c := colourJSON(b.Wall[r][col]); Colour(c).IsTile() {
					bj.Wall[r][col] = &c
				}
			}
		}
		for _, c := range b.Floor[:b.FloorLen] {
			bj.Floor = append(bj.Floor, colourJSON(c))
		}
		j.Boards = append(j.Boards, bj)
	}
	return json.Marshal(j)
}

// DecodeState reads a snapshot written by State.MarshalJSON. It checks
// that the snapshot is a possible table (every index in range, 100 tiles,
// walls and lines that follow the rules) so no method can fail on it.
func DecodeState(data []byte) (State, error) {
	var j stateJSON
	if err := jsonstrict.Unmarshal(data, &j); err != nil {
		return State{}, fmt.Errorf("%w: azul snapshot: %v", engine.ErrInconsistent, err)
	}
	s, err := stateFromJSON(&j)
	if err != nil {
		return State{}, fmt.Errorf("%w: azul snapshot: %v", engine.ErrInconsistent, err)
	}
	return s, nil
}

func stateFromJSON(j *stateJSON) (State, error) {
	if j.Format != StateFormat {
		return State{}, fmt.Errorf("format %d, this engine reads format %d", j.Format, StateFormat)
	}
	if err := small("players", j.Players, 2, MaxPlayers); err != nil {
		return State{}, err
	}
	n := j.Players
	var grey bool
	switch j.Wall {
	case "coloured":
	case "grey":
		grey = true
	default:
		return State{}, fmt.Errorf("wall %q", j.Wall)
	}
	s := newState(n, grey)
	switch j.Phase {
	case "offer":
		s.phase = PhaseOffer
	case "tiling":
		s.phase = PhaseTiling
	case "over":
		s.phase = PhaseOver
	default:
		return State{}, fmt.Errorf("phase %q", j.Phase)
	}
	if err := errors.Join(small("round", j.Round, 0, MaxRounds), small("turn", j.Turn, 0, n-1),
		small("start_seat", j.StartSeat, 0, n-1), small("marker_holder", j.MarkerHolder, -1, n-1),
		small("resigned", j.Resigned, -1, n-1)); err != nil {
		return State{}, err
	}
	s.round, s.turn, s.startSeat = uint8(j.Round), int8(j.Turn), int8(j.StartSeat)
	s.markerHolder, s.resigned = int8(j.MarkerHolder), int8(j.Resigned)
	if j.EndReason != "" {
		reason, ok := parseEndReason(j.EndReason)
		if !ok {
			return State{}, fmt.Errorf("end_reason %q", j.EndReason)
		}
		s.endReason = reason
	}
	if (s.endReason != NotEnded) != (s.phase == PhaseOver) || (s.resigned >= 0) != (s.endReason == EndResigned) {
		return State{}, errors.New("end reason, resigned seat and phase disagree")
	}
	if s.phase == PhaseOffer && s.round == 0 {
		return State{}, errors.New("an offer before the first deal")
	}
	s.bag, s.lid, s.center = j.Bag, j.Lid, j.Center
	var total [NumColours]int
	add := func(counts [NumColours]uint8) {
		for c, k := range counts {
			total[c] += int(k)
		}
	}
	add(s.bag)
	add(s.lid)
	add(s.center)
	if len(j.Factories) != s.NumFactories() {
		return State{}, fmt.Errorf("%d factories, a %d-player game has %d", len(j.Factories), n, s.NumFactories())
	}
	for f, counts := range j.Factories {
		if sum5(counts) > FactorySize {
			return State{}, fmt.Errorf("factory %d holds more than %d tiles", f, FactorySize)
		}
		s.factories[f] = counts
		add(counts)
	}
	s.onOffer = uint8(s.countOffer())
	if s.phase == PhaseOffer && s.onOffer == 0 {
		return State{}, errors.New("an offer phase with no tile on offer")
	}
	if len(j.Boards) != n {
		return State{}, fmt.Errorf("%d boards for %d players", len(j.Boards), n)
	}
	markers := 0
	for seat, bj := range j.Boards {
		b := &s.boards[seat]
		if err := boardFromJSON(b, &bj, grey); err != nil {
			return State{}, fmt.Errorf("board %d: %w", seat, err)
		}
		for r := range 5 {
			if b.LineCount[r] > 0 {
				total[b.LineColour[r]] += int(b.LineCount[r])
			}
			for col := range 5 {
				if c := b.Wall[r][col]; c.IsTile() {
					total[c]++
				}
			}
		}
		for _, c := range b.Floor[:b.FloorLen] {
			if c == Marker {
				markers++
				if int(s.markerHolder) != seat {
					return State{}, fmt.Errorf("the marker is on the floor of seat %d, held by seat %d", seat, s.markerHolder)
				}
			} else {
				total[c]++
			}
		}
	}
	if markers > 1 {
		return State{}, errors.New("more than one start marker")
	}
	for c, k := range total {
		if k != TilesPerColour {
			return State{}, fmt.Errorf("%d %s tiles in the game, not %d", k, Colour(c), TilesPerColour)
		}
	}
	return s, nil
}

func boardFromJSON(b *Board, bj *boardJSON, grey bool) error {
	if err := small("score", bj.Score, 0, maxScore); err != nil {
		return err
	}
	b.Score = int16(bj.Score)
	for r := range 5 {
		for col := range 5 {
			p := bj.Wall[r][col]
			if p == nil {
				continue
			}
			c := Colour(*p)
			if !c.IsTile() {
				return fmt.Errorf("wall %d,%d holds %s", r+1, col+1, c)
			}
			if !grey && WallColour(r, col) != c {
				return fmt.Errorf("wall %d,%d holds %s, the coloured wall has %s there", r+1, col+1, c, WallColour(r, col))
			}
			if b.rowColours[r]&(1<<c) != 0 || b.colColours[col]&(1<<c) != 0 {
				return fmt.Errorf("wall %d,%d: %s twice in a row or column", r+1, col+1, c)
			}
			b.place(r, col, c)
		}
	}
	for r, line := range bj.Lines {
		if err := small("line count", line.Count, 0, r+1); err != nil {
			return err
		}
		if (line.Colour == nil) != (line.Count == 0) {
			return fmt.Errorf("line %d: a colour goes with a count above 0", r+1)
		}
		if line.Count == 0 {
			continue
		}
		c := Colour(*line.Colour)
		if !c.IsTile() || b.rowColours[r]&(1<<c) != 0 {
			return fmt.Errorf("line %d holds %s", r+1, c)
		}
		b.LineColour[r], b.LineCount[r] = c, uint8(line.Count)
	}
	if len(bj.Floor) > FloorSize {
		return fmt.Errorf("%d floor items, at most %d", len(bj.Floor), FloorSize)
	}
	for i, c := range bj.Floor {
		b.Floor[i] = Colour(c)
	}
	b.FloorLen = uint8(len(bj.Floor))
	return nil
}
