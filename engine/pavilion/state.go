package pavilion

import (
	"github.com/azuld/azuld/engine"
)

// Rule set ids.
const (
	RulesetPavilion = "summer-pavilion"
	RulesetMini     = "summer-pavilion-mini"
)

// Game constants (docs/rules.md §0, §3.1).
const (
	MaxPlayers   = 4
	MaxFactories = 9
	FactorySize  = 4
	SupplySize   = 10
	Rounds       = 6
	StartScore   = 5
	KeepLimit    = 4
	// Center is the Cmd.Source / Event.Source value of the centre of the table.
	Center = -1
)

// Phase is the part of a round the game is in.
type Phase uint8

// Phases. PhaseNone is the state after game_started, before the first deal.
const (
	PhaseNone Phase = iota
	PhaseAcquire
	PhasePlay
	PhaseBonus
	PhaseOver
)

var phaseNames = [...]string{"setup", "acquire", "play", "bonus", "over"}

// String is the phase name of the state JSON.
func (p Phase) String() string {
	if int(p) < len(phaseNames) {
		return phaseNames[p]
	}
	return "unknown"
}

// Board option values kept as given in the configuration.
const (
	boardDefault  uint8 = iota // ""
	boardColoured              // "coloured"
	boardMono                  // "monochrome"
)

// Final reasons.
const (
	reasonNone uint8 = iota
	reasonRounds
	reasonResigned
)

// Cell is one board space: 0 empty, otherwise colour+1.
type Cell uint8

// Empty reports whether no tile lies on the space.
func (c Cell) Empty() bool { return c == 0 }

// Colour is the colour of the tile on the space (undefined when empty).
func (c Cell) Colour() Colour { return Colour(c - 1) }

func cellOf(c Colour) Cell { return Cell(c + 1) }

// Player is one seat's part of the state.
type Player struct {
	Score int16
	Hand  Tiles
	Kept  Tiles
	// Board[star][space-1].
	Board [NumStars][6]Cell
	// Covered has bit star*6+space-1 set for every covered space.
	Covered uint64
	Passed  bool
}

// FinalSeat is one seat's end-of-game result in compact form.
type FinalSeat struct {
	// StarPoints is the value of each completed star (0: not completed).
	StarPoints [NumStars]uint8
	// StarColour is the completed star's colour, or NumColours when it is
	// multicoloured.
	StarColour [NumStars]uint8
	// AllCost has bit n-1 set when every space of cost n (1..4) is covered.
	AllCost  uint8
	KeptN    uint8
	KeptLost uint8
	Resigned bool
	Rank     uint8
	Score    int16
}

// State is a whole game in a fixed-size value: copying it copies the game.
// The zero State is "no game yet"; game_started starts it.
type State struct {
	ruleset    uint8 // 0 summer-pavilion, 1 summer-pavilion-mini
	boardOpt   uint8
	customWild bool
	wildOrder  [Rounds]Colour
	players    uint8
	started    bool
	firstSeat  int8

	round     uint8
	phase     Phase
	turn      int8
	startSeat int8
	token     int8 // seat holding the start player token, -1: centre
	// bonusSeat owes bonusDue tiles (PhaseBonus).
	bonusSeat int8
	bonusDue  uint8
	// refillDue: a bonus was taken and the supply must be refilled
	// before anyone acts.
	refillDue bool
	reveals   int32

	bag       Tiles
	tower     Tiles
	supply    Tiles
	centre    Tiles
	factories [MaxFactories]Tiles
	seats     [MaxPlayers]Player

	reason   uint8
	resigned int8
	final    [MaxPlayers]FinalSeat
}

// Players is the number of seats.
func (s *State) Players() int { return int(s.players) }

// Monochrome reports whether the monochrome side is played.
func (s *State) Monochrome() bool { return s.boardOpt == boardMono }

// Floor is the lowest score penalties can bring a seat to.
func (s *State) Floor() int {
	if s.ruleset == 1 {
		return 0
	}
	return 1
}

// Round is the current round (1..6; 0 before the first deal).
func (s *State) Round() int { return int(s.round) }

// Phase is the current phase.
func (s *State) Phase() Phase { return s.phase }

// Wild is the wild colour of the current round.
func (s *State) Wild() Colour {
	if s.round == 0 {
		return s.wildOrder[0]
	}
	return s.wildOrder[s.round-1]
}

// WildOrder is the wild colour of every round.
func (s *State) WildOrder() [Rounds]Colour { return s.wildOrder }

// Turn is the seat whose turn it is in the acquire and play phases.
func (s *State) Turn() int { return int(s.turn) }

// TokenHolder is the seat holding the start player token, -1 when it lies
// in the centre.
func (s *State) TokenHolder() int { return int(s.token) }

// NumFactories is the number of factories (5, 7 or 9).
func (s *State) NumFactories() int { return 2*int(s.players) + 1 }

// Factory is the content of factory i (0-based).
func (s *State) Factory(i int) Tiles { return s.factories[i] }

// Centre is the content of the centre of the table.
func (s *State) Centre() Tiles { return s.centre }

// Supply is the content of the supply board.
func (s *State) Supply() Tiles { return s.supply }

// Bag is the content of the bag.
func (s *State) Bag() Tiles { return s.bag }

// Tower is the content of the tower (discard pile).
func (s *State) Tower() Tiles { return s.tower }

// Seat is a copy of one seat's part of the state.
func (s *State) Seat(seat int) Player { return s.seats[seat] }

// Score is the current score of a seat.
func (s *State) Score(seat int) int { return int(s.seats[seat].Score) }

// BonusDue is the seat that must choose bonus tiles and how many (PhaseBonus).
func (s *State) BonusDue() (seat, tiles int) { return int(s.bonusSeat), int(s.bonusDue) }

// Reveals counts the random reveals folded so far.
func (s *State) Reveals() int { return int(s.reveals) }

// Over reports whether the game has ended.
func (s *State) Over() bool { return s.phase == PhaseOver }

// Config is the configuration the game was started with.
func (s *State) Config() engine.Config {
	cfg := engine.Config{Ruleset: rulesetName(s.ruleset), Players: int(s.players)}
	switch s.boardOpt {
	case boardColoured:
		cfg.Options.Board = "coloured"
	case boardMono:
		cfg.Options.Board = "monochrome"
	}
	if s.customWild {
		cfg.Options.WildOrder = make([]string, Rounds)
		for i, c := range s.wildOrder {
			cfg.Options.WildOrder[i] = c.String()
		}
	}
	return cfg
}

func rulesetName(r uint8) string {
	if r == 1 {
		return RulesetMini
	}
	return RulesetPavilion
}

// Scores are the current scores by seat.
func (s *State) Scores() []int {
	out := make([]int, s.players)
	for i := range out {
		out[i] = int(s.seats[i].Score)
	}
	return out
}

// ToAct is the seat that may act now (resigning aside), or none.
func (s *State) ToAct() []int {
	if seat := s.actor(); seat >= 0 {
		return []int{seat}
	}
	return []int{}
}

// actor is the seat that must act now, -1 when nobody can (game over,
// before the deal, or between the events of one automatic sequence).
func (s *State) actor() int {
	switch s.phase {
	case PhaseAcquire:
		if s.tableEmpty() {
			return -1
		}
		return int(s.turn)
	case PhasePlay:
		if s.refillDue || s.allPassed() || s.seats[s.turn].Passed || s.seats[s.turn].Hand.Total() == 0 {
			return -1
		}
		return int(s.turn)
	case PhaseBonus:
		return int(s.bonusSeat)
	}
	return -1
}

// tableEmpty reports whether the factories and the centre are empty.
func (s *State) tableEmpty() bool {
	if s.centre.Total() != 0 {
		return false
	}
	for i := range s.NumFactories() {
		if s.factories[i].Total() != 0 {
			return false
		}
	}
	return true
}

// allPassed reports whether every seat has passed this round.
func (s *State) allPassed() bool {
	for i := range int(s.players) {
		if !s.seats[i].Passed {
			return false
		}
	}
	return true
}

// nextActive is the next seat clockwise after seat that has not passed,
// or -1 when all have passed.
func (s *State) nextActive(seat int) int {
	n := int(s.players)
	for i := 1; i <= n; i++ {
		t := (seat + i) % n
		if !s.seats[t].Passed {
			return t
		}
	}
	return -1
}

// starColours lists the colours on a star.
func (p *Player) starColours(star int) Tiles {
	var t Tiles
	for _, c := range p.Board[star] {
		if !c.Empty() {
			t[c.Colour()]++
		}
	}
	return t
}

// TileCount counts every tile of the game by colour, wherever it is; in a
// consistent state every colour has TilesPerColour.
func (s *State) TileCount() [NumColours]int {
	var t [NumColours]int
	add := func(x Tiles) {
		for c, n := range x {
			t[c] += int(n)
		}
	}
	add(s.bag)
	add(s.tower)
	add(s.supply)
	add(s.centre)
	for i := range s.factories {
		add(s.factories[i])
	}
	for i := range s.seats {
		p := &s.seats[i]
		add(p.Hand)
		add(p.Kept)
		for star := range NumStars {
			for _, c := range p.Board[star] {
				if !c.Empty() && c.Colour().Valid() {
					t[c.Colour()]++
				}
			}
		}
	}
	return t
}
