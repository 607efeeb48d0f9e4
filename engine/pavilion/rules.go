package pavilion

import (
	"fmt"

	"github.com/azuld/azuld/engine"
)

// Rules is the engine.Rules of one Summer Pavilion rule set: a thin,
// type-erased layer over Start, Decide, State.Apply, ParseCommand,
// ParseNotation, DecodeEvent and DecodeState.
type Rules struct {
	ruleset uint8
}

// New returns the rules of "summer-pavilion" or "summer-pavilion-mini".
func New(ruleset string) (engine.Rules, error) {
	switch ruleset {
	case RulesetPavilion:
		return Rules{ruleset: 0}, nil
	case RulesetMini:
		return Rules{ruleset: 1}, nil
	}
	return nil, fmt.Errorf("%w: %q is not a Summer Pavilion rule set", engine.ErrBadCommand, ruleset)
}

// Ruleset is the rule set id.
func (r Rules) Ruleset() string { return rulesetName(r.ruleset) }

// Start validates cfg and returns game_started and round 1's deal.
func (r Rules) Start(cfg engine.Config, seed engine.Seed) ([]engine.Event, error) {
	if cfg.Ruleset != r.Ruleset() {
		return nil, fmt.Errorf("%w: ruleset %q given to the %s rules", engine.ErrBadCommand, cfg.Ruleset, r.Ruleset())
	}
	evs, err := Start(cfg, seed, nil)
	if err != nil {
		return nil, err
	}
	return boxEvents(evs), nil
}

func boxEvents(evs []Event) []engine.Event {
	out := make([]engine.Event, len(evs))
	for i := range evs {
		out[i] = &evs[i]
	}
	return out
}

// state unboxes a state of these rules.
func (r Rules) state(s engine.State) (*State, error) {
	st, ok := s.(*State)
	if !ok || st == nil || !st.started {
		return nil, fmt.Errorf("%w: not a Summer Pavilion game state", engine.ErrBadCommand)
	}
	if st.ruleset != r.ruleset {
		return nil, fmt.Errorf("%w: a %s state given to the %s rules", engine.ErrBadCommand, rulesetName(st.ruleset), r.Ruleset())
	}
	return st, nil
}

// Decide validates cmd (a Cmd or *Cmd) of seat against s.
func (r Rules) Decide(s engine.State, seat int, cmd engine.Command, seed engine.Seed) ([]engine.Event, error) {
	st, err := r.state(s)
	if err != nil {
		return nil, err
	}
	var c Cmd
	switch v := cmd.(type) {
	case Cmd:
		c = v
	case *Cmd:
		if v == nil {
			return nil, fmt.Errorf("%w: no command", engine.ErrBadCommand)
		}
		c = *v
	default:
		return nil, fmt.Errorf("%w: %T is not a Summer Pavilion command", engine.ErrBadCommand, cmd)
	}
	evs, err := Decide(st, seat, c, seed, nil)
	if err != nil {
		return nil, err
	}
	return boxEvents(evs), nil
}

// Evolve applies one event (an Event or *Event) to a copy of s; s is nil
// before game_started.
func (r Rules) Evolve(s engine.State, e engine.Event) (engine.State, error) {
	var ev *Event
	switch v := e.(type) {
	case *Event:
		ev = v
	case Event:
		ev = &v
	}
	if ev == nil {
		return s, fmt.Errorf("%w: %T is not a Summer Pavilion event", engine.ErrInconsistent, e)
	}
	var next State
	if st, ok := s.(*State); ok && st != nil {
		if st.ruleset != r.ruleset {
			return s, fmt.Errorf("%w: a %s state given to the %s rules", engine.ErrInconsistent, rulesetName(st.ruleset), r.Ruleset())
		}
		next = *st
	} else if s != nil && !isNilState(s) {
		return s, fmt.Errorf("%w: %T is not a Summer Pavilion state", engine.ErrInconsistent, s)
	}
	if ev.Kind == EvGameStarted && ev.Ruleset != r.ruleset {
		return s, fmt.Errorf("%w: a %s game given to the %s rules", engine.ErrInconsistent, rulesetName(ev.Ruleset), r.Ruleset())
	}
	if err := next.Apply(ev); err != nil {
		return s, err
	}
	return &next, nil
}

func isNilState(s engine.State) bool {
	st, ok := s.(*State)
	return ok && st == nil
}

// ParseCommand reads a command's JSON.
func (r Rules) ParseCommand(data []byte) (engine.Command, error) {
	c, err := ParseCommand(data)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// ParseNotation reads a command's text notation.
func (r Rules) ParseNotation(text string) (engine.Command, error) {
	c, err := ParseNotation(text)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// DecodeEvent decodes a stored event.
func (r Rules) DecodeEvent(eventType string, schemaVersion int, data []byte) (engine.Event, error) {
	e, err := DecodeEvent(eventType, schemaVersion, data)
	if err != nil {
		return nil, err
	}
	return &e, nil
}

// DecodeState reads a snapshot written by State.MarshalJSON.
func (r Rules) DecodeState(data []byte) (engine.State, error) {
	s, err := DecodeState(data)
	if err != nil {
		return nil, err
	}
	if s.ruleset != r.ruleset {
		return nil, fmt.Errorf("snapshot of a %s game given to the %s rules", rulesetName(s.ruleset), r.Ruleset())
	}
	return s, nil
}

// StateFormat is the snapshot format version.
func (r Rules) StateFormat() int { return StateFormat }
