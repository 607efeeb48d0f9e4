package azul

import (
	"fmt"

	"github.com/azuld/azuld/engine"
)

// StateFormat is the version of the snapshot JSON written by
// State.MarshalJSON.
const StateFormat = 1

// New returns the type-erased rules of "azul-mini" for the server. Hot
// loops use the typed functions instead (Start, Decide, AppendLegal,
// State.Apply), which neither box nor allocate per move.
func New() engine.Rules { return rules{} }

type rules struct{}

func (rules) Ruleset() string { return Ruleset }

func (rules) StateFormat() int { return StateFormat }

func (rules) Start(cfg engine.Config, seed engine.Seed) ([]engine.Event, error) {
	evs, err := Start(cfg, seed, nil)
	if err != nil {
		return nil, err
	}
	return boxEvents(evs), nil
}

func (rules) Decide(s engine.State, seat int, cmd engine.Command, seed engine.Seed) ([]engine.Event, error) {
	st, ok := s.(*State)
	if !ok || st == nil {
		return nil, fmt.Errorf("%w: not a started %s game", engine.ErrBadCommand, Ruleset)
	}
	c, err := commandOf(cmd)
	if err != nil {
		return nil, err
	}
	evs, err := Decide(st, seat, c, seed, nil)
	if err != nil {
		return nil, err
	}
	return boxEvents(evs), nil
}

// commandOf unboxes an Azul command.
func commandOf(cmd engine.Command) (Cmd, error) {
	switch c := cmd.(type) {
	case Cmd:
		return c, nil
	case *Cmd:
		if c != nil {
			return *c, nil
		}
	}
	return Cmd{}, fmt.Errorf("%w: %T is not an %s move", engine.ErrBadCommand, cmd, Ruleset)
}

// boxEvents boxes events as *Event, as every family's type-erased events
// are pointers (boxing a pointer to the slice's element copies nothing).
func boxEvents(evs []Event) []engine.Event {
	out := make([]engine.Event, len(evs))
	for i := range evs {
		out[i] = &evs[i]
	}
	return out
}

func (rules) Evolve(s engine.State, e engine.Event) (engine.State, error) {
	var ev Event
	switch x := e.(type) {
	case Event:
		ev = x
	case *Event:
		if x == nil {
			return s, fmt.Errorf("%w: nil event", engine.ErrInconsistent)
		}
		ev = *x
	default:
		return s, fmt.Errorf("%w: %T is not an %s event", engine.ErrInconsistent, e, Ruleset)
	}
	var next State
	if s != nil {
		st, ok := s.(*State)
		if !ok {
			return s, fmt.Errorf("%w: %T is not an %s state", engine.ErrInconsistent, s, Ruleset)
		}
		if st != nil {
			next = *st
		}
	}
	if err := next.Apply(ev); err != nil {
		return s, err
	}
	return &next, nil
}

func (rules) ParseCommand(data []byte) (engine.Command, error) {
	c, err := ParseCommand(data)
	if err != nil {
		return nil, err
	}
	return c, nil
}

func (rules) ParseNotation(text string) (engine.Command, error) {
	c, err := ParseNotation(text)
	if err != nil {
		return nil, err
	}
	return c, nil
}

func (rules) DecodeEvent(eventType string, schemaVersion int, data []byte) (engine.Event, error) {
	e, err := DecodeEvent(eventType, schemaVersion, data)
	if err != nil {
		return nil, err
	}
	return &e, nil
}

func (rules) DecodeState(data []byte) (engine.State, error) {
	s, err := DecodeState(data)
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// --- engine.State ---

// Config is the configuration the game was started with (options
// normalised: the coloured wall is Wall "").
func (s *State) Config() engine.Config {
	return engine.Config{Ruleset: Ruleset, Players: int(s.players), Options: options(s.grey)}
}

// ToAct lists the seats that may act now, ascending.
func (s *State) ToAct() []int {
	mask := s.ToActMask()
	seats := []int{}
	for seat := range MaxPlayers {
		if mask&(1<<seat) != 0 {
			seats = append(seats, seat)
		}
	}
	return seats
}

// Final is the final result, nil while the game runs.
func (s *State) Final() *engine.Final {
	if s.phase != PhaseOver {
		return nil
	}
	e := endEvent(s, s.endReason, int(s.resigned), true)
	return finalOf(&e)
}

// LegalMoves lists the legal moves of seat: those of AppendLegal, then
// resign. A seat that may not act now gets none (it may still resign at
// any time; Decide accepts that).
func (s *State) LegalMoves(seat int) []engine.Move {
	cmds := AppendLegal(nil, s, seat)
	if len(cmds) == 0 {
		return []engine.Move{}
	}
	cmds = append(cmds, Resign())
	moves := make([]engine.Move, len(cmds))
	for i, c := range cmds {
		moves[i] = engine.NewMove(c)
	}
	return moves
}

// Scores are the current scores by seat.
func (s *State) Scores() []int {
	scores := make([]int, s.players)
	for seat := range scores {
		scores[seat] = int(s.boards[seat].Score)
	}
	return scores
}
