package pavilion

import (
	"encoding/json"
	"fmt"
)

// StateFormat is the version of the snapshot JSON written by
// State.MarshalJSON.
const StateFormat = 1

// stateWire is the snapshot JSON. Tile counts are arrays in colour order
// (purple, green, orange, yellow, blue, red); a board cell is 0 for empty
// or colour index + 1.
type stateWire struct {
	Format    int               `json:"format"`
	Ruleset   string            `json:"ruleset"`
	Players   int               `json:"players"`
	Board     string            `json:"board,omitempty"`
	WildOrder []string          `json:"wild_order,omitempty"`
	FirstSeat int               `json:"first_seat"`
	Round     int               `json:"round"`
	Phase     string            `json:"phase"`
	Turn      int               `json:"turn"`
	StartSeat int               `json:"start_seat"`
	Token     int               `json:"token"`
	BonusSeat int               `json:"bonus_seat"`
	BonusDue  int               `json:"bonus_due"`
	RefillDue bool              `json:"refill_due"`
	Reveals   int               `json:"reveals"`
	Bag       [NumColours]int   `json:"bag"`
	Tower     [NumColours]int   `json:"tower"`
	Supply    [NumColours]int   `json:"supply"`
	Centre    [NumColours]int   `json:"center"`
	Factories [][NumColours]int `json:"factories"`
	Seats     []seatWire        `json:"seats"`
	Reason    string            `json:"reason,omitempty"`
	Resigned  int               `json:"resigned"`
	Final     []finalWire       `json:"final,omitempty"`
}

type seatWire struct {
	Score  int              `json:"score"`
	Hand   [NumColours]int  `json:"hand"`
	Kept   [NumColours]int  `json:"kept"`
	Board  [NumStars][6]int `json:"board"`
	Passed bool             `json:"passed"`
}

type finalWire struct {
	StarPoints [NumStars]int `json:"star_points"`
	StarColour [NumStars]int `json:"star_colour"`
	AllCost    int           `json:"all_cost"`
	KeptN      int           `json:"kept"`
	KeptLost   int           `json:"kept_lost"`
	Resigned   bool          `json:"resigned"`
	Rank       int           `json:"rank"`
	Score      int           `json:"score"`
}

func countsOf(t Tiles) [NumColours]int {
	var out [NumColours]int
	for i, n := range t {
		out[i] = int(n)
	}
	return out
}

// MarshalJSON writes the state for a snapshot (see DecodeState).
func (s *State) MarshalJSON() ([]byte, error) {
	if !s.started {
		return nil, fmt.Errorf("snapshot of a game that has not started")
	}
	w := stateWire{
		Format: StateFormat, Ruleset: rulesetName(s.ruleset), Players: int(s.players),
		Board: s.Config().Options.Board, FirstSeat: int(s.firstSeat),
		Round: int(s.round), Phase: s.phase.String(), Turn: int(s.turn), StartSeat: int(s.startSeat),
		Token: int(s.token), BonusSeat: int(s.bonusSeat), BonusDue: int(s.bonusDue), RefillDue: s.refillDue,
		Reveals: int(s.reveals), Bag: countsOf(s.bag), Tower: countsOf(s.tower), Supply: countsOf(s.supply),
		Centre: countsOf(s.centre), Resigned: int(s.resigned),
	}
	if s.customWild {
		w.WildOrder = s.Config().Options.WildOrder
	}
	for f := range s.NumFactories() {
		w.Factories = append(w.Factories, countsOf(s.factories[f]))
	}
	for i := range int(s.players) {
		p := &s.seats[i]
		sw := seatWire{Score: int(p.Score), Hand: countsOf(p.Hand), Kept: countsOf(p.Kept), Passed: p.Passed}
		for star := range NumStars {
			for sp, c := range p.Board[star] {
				sw.Board[star][sp] = int(c)
			}
		}
		w.Seats = append(w.Seats, sw)
	}
	if s.phase == PhaseOver {
		w.Reason = reasonNames[s.reason]
		for i := range int(s.players) {
			f := &s.final[i]
			fw := finalWire{AllCost: int(f.AllCost), KeptN: int(f.KeptN), KeptLost: int(f.KeptLost),
				Resigned: f.Resigned, Rank: int(f.Rank), Score: int(f.Score)}
			for star := range NumStars {
				fw.StarPoints[star] = int(f.StarPoints[star])
				fw.StarColour[star] = int(f.StarColour[star])
			}
			w.Final = append(w.Final, fw)
		}
	}
	return json.Marshal(w)
}

// DecodeState reads a snapshot written by State.MarshalJSON. It checks the
// format version, every range and that all 132 tiles are accounted for.
func DecodeState(data []byte) (*State, error) {
	var w stateWire
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	if w.Format != StateFormat {
		return nil, fmt.Errorf("snapshot format %d, this engine reads %d", w.Format, StateFormat)
	}
	bad := func(what string) (*State, error) { return nil, fmt.Errorf("snapshot: bad %s", what) }
	var s State
	s.started = true
	switch w.Ruleset {
	case RulesetPavilion:
		s.ruleset = 0
	case RulesetMini:
		s.ruleset = 1
	default:
		return bad("ruleset")
	}
	if w.Players < 2 || w.Players > MaxPlayers {
		return bad("players")
	}
	s.players = uint8(w.Players)
	n := w.Players
	switch w.Board {
	case "":
	case "coloured":
		s.boardOpt = boardColoured
	case "monochrome":
		s.boardOpt = boardMono
	default:
		return bad("board")
	}
	s.wildOrder = defaultWildOrder
	if w.WildOrder != nil {
		if len(w.WildOrder) != Rounds {
			return bad("wild order")
		}
		for i, name := range w.WildOrder {
			c, ok := ParseColour(name)
			if !ok || name != c.String() {
				return bad("wild order")
			}
			s.wildOrder[i] = c
		}
		if !isPermutation(s.wildOrder) {
			return bad("wild order")
		}
		s.customWild = true
	}
	seatOK := func(v int) bool { return v >= 0 && v < n }
	if !seatOK(w.FirstSeat) || !seatOK(w.Turn) || !seatOK(w.StartSeat) || (w.Token != -1 && !seatOK(w.Token)) ||
		(w.Resigned != -1 && !seatOK(w.Resigned)) {
		return bad("seat")
	}
	s.firstSeat, s.turn, s.startSeat, s.token, s.resigned = int8(w.FirstSeat), int8(w.Turn), int8(w.StartSeat), int8(w.Token), int8(w.Resigned)
	if w.Round < 0 || w.Round > Rounds || w.Reveals < 0 || w.Reveals > 1<<20 {
		return bad("round")
	}
	s.round, s.reveals = uint8(w.Round), int32(w.Reveals)
	phase := -1
	for i, name := range phaseNames {
		if name == w.Phase {
			phase = i
		}
	}
	if phase < 0 || (phase == int(PhaseNone)) != (w.Round == 0) {
		return bad("phase")
	}
	s.phase = Phase(phase)
	if s.phase == PhaseBonus {
		if !seatOK(w.BonusSeat) || w.BonusDue < 1 || w.BonusDue > 6 {
			return bad("bonus")
		}
	} else if w.BonusSeat != -1 || w.BonusDue != 0 {
		return bad("bonus")
	}
	s.bonusSeat, s.bonusDue, s.refillDue = int8(w.BonusSeat), uint8(w.BonusDue), w.RefillDue
	var err error
	tiles := func(v [NumColours]int) Tiles {
		var t Tiles
		for i, c := range v {
			if c < 0 || c > TilesPerColour {
				err = fmt.Errorf("snapshot: tile count %d out of range", c)
			}
			t[i] = uint8(max(0, min(c, TilesPerColour)))
		}
		return t
	}
	s.bag, s.tower, s.supply, s.centre = tiles(w.Bag), tiles(w.Tower), tiles(w.Supply), tiles(w.Centre)
	if len(w.Factories) != s.NumFactories() {
		return bad("factories")
	}
	for f, v := range w.Factories {
		s.factories[f] = tiles(v)
	}
	if len(w.Seats) != n {
		return bad("seats")
	}
	for i, sw := range w.Seats {
		p := &s.seats[i]
		if sw.Score < -maxScore || sw.Score > maxScore {
			return bad("score")
		}
		p.Score, p.Hand, p.Kept, p.Passed = int16(sw.Score), tiles(sw.Hand), tiles(sw.Kept), sw.Passed
		for star := range NumStars {
			for sp, c := range sw.Board[star] {
				if c < 0 || c > NumColours {
					return bad("board cell")
				}
				p.Board[star][sp] = Cell(c)
				if c != 0 {
					p.Covered |= bit(star, sp+1)
				}
			}
		}
	}
	if err != nil {
		return nil, err
	}
	for _, c := range s.TileCount() {
		if c != TilesPerColour {
			return bad("tile count (every colour has 22 tiles)")
		}
	}
	if s.phase == PhaseOver {
		switch w.Reason {
		case "rounds_played":
			s.reason = reasonRounds
		case "resigned":
			s.reason = reasonResigned
		default:
			return bad("reason")
		}
		if len(w.Final) != n {
			return bad("final")
		}
		for i, fw := range w.Final {
			f := &s.final[i]
			if fw.AllCost < 0 || fw.AllCost > 15 || fw.KeptN < 0 || fw.KeptN > 255 || fw.KeptLost < 0 || fw.KeptLost > fw.KeptN ||
				fw.Rank < 1 || fw.Rank > n || fw.Score < -maxScore || fw.Score > maxScore {
				return bad("final")
			}
			f.AllCost, f.KeptN, f.KeptLost, f.Resigned, f.Rank, f.Score = uint8(fw.AllCost), uint8(fw.KeptN), uint8(fw.KeptLost), fw.Resigned, uint8(fw.Rank), int16(fw.Score)
			for star := range NumStars {
				if fw.StarPoints[star] < 0 || fw.StarPoints[star] > 20 || fw.StarColour[star] < 0 || fw.StarColour[star] > NumColours {
					return bad("final")
				}
				f.StarPoints[star], f.StarColour[star] = uint8(fw.StarPoints[star]), uint8(fw.StarColour[star])
			}
		}
	} else if w.Reason != "" || len(w.Final) != 0 {
		return bad("final")
	}
	return &s, nil
}
