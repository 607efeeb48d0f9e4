package enginetest_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/azul"
	"github.com/azuld/azuld/engine/enginetest"
)

// recorder is a TB that keeps what the suite reports instead of failing.
type recorder struct {
	errs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

var config = engine.Config{Ruleset: azul.Ruleset, Players: 2}

// run is the suite over rules with one short game.
func run(rules engine.Rules) *recorder {
	r := &recorder{}
	enginetest.TestRules(r, rules, enginetest.Options{Configs: []engine.Config{config}, Games: 1, Seed: 7})
	return r
}

func TestHonestRulesPass(t *testing.T) {
	if r := run(azul.New()); len(r.errs) > 0 {
		t.Errorf("the suite reports sound rules:\n%s", strings.Join(r.errs, "\n"))
	}
}

// broken rules, each breaking one promise of engine.go.
type plainEvolveError struct{ engine.Rules }

// Evolve refuses forged events with an error that does not wrap
// ErrInconsistent.
func (b plainEvolveError) Evolve(s engine.State, e engine.Event) (engine.State, error) {
	next, err := b.Rules.Evolve(s, e)
	if err != nil {
		return nil, errors.New("no")
	}
	return next, nil
}

type lossyEvents struct{ engine.Rules }

// DecodeEvent forgets the data.
func (b lossyEvents) DecodeEvent(typ string, v int, data []byte) (engine.Event, error) {
	return b.Rules.DecodeEvent(typ, v, []byte(`{}`))
}

type panickyDecide struct{ engine.Rules }

// Decide panics on a command of another family.
func (b panickyDecide) Decide(s engine.State, seat int, cmd engine.Command, seed engine.Seed) ([]engine.Event, error) {
	if cmd == nil || cmd.Notation() == "junk" {
		panic("unexpected command")
	}
	return b.Rules.Decide(s, seat, cmd, seed)
}

type seedDependent struct{ engine.Rules }

// Decide draws from another seed after every move, so that the events of
// a move that reveals nothing depend on the seed.
func (b seedDependent) Decide(s engine.State, seat int, cmd engine.Command, seed engine.Seed) ([]engine.Event, error) {
	evs, err := b.Rules.Decide(s, seat, cmd, seed)
	if err == nil && seed[0]&1 == 1 {
		evs = append(evs[:len(evs):len(evs)], evs[len(evs)-1])
	}
	return evs, err
}

type noNotation struct{ engine.Rules }

// ParseNotation reads nothing.
func (noNotation) ParseNotation(string) (engine.Command, error) {
	return nil, fmt.Errorf("%w: no notation", engine.ErrBadCommand)
}

func TestBrokenRulesFail(t *testing.T) {
	for name, rules := range map[string]engine.Rules{
		"Evolve's errors do not wrap ErrInconsistent": plainEvolveError{azul.New()},
		"events do not survive their JSON":            lossyEvents{azul.New()},
		"Decide panics on junk":                       panickyDecide{azul.New()},
		"notation does not parse back":                noNotation{azul.New()},
		"Decide depends on the seed without a reveal": seedDependent{azul.New()},
	} {
		t.Run(name, func(t *testing.T) {
			if r := run(rules); len(r.errs) == 0 {
				t.Errorf("the suite found nothing wrong")
			}
		})
	}
}

func TestMissingEventTypesFail(t *testing.T) {
	r := &recorder{}
	enginetest.TestRules(r, azul.New(), enginetest.Options{
		Configs: []engine.Config{config}, Games: 1, EventTypes: []string{"no_such_event"},
	})
	if len(r.errs) != 1 || !strings.Contains(r.errs[0], "no_such_event") {
		t.Errorf("the suite reports %q, want the missing event type", r.errs)
	}
}

func TestNoConfigsFail(t *testing.T) {
	r := &recorder{}
	enginetest.TestRules(r, azul.New(), enginetest.Options{})
	if len(r.errs) == 0 {
		t.Errorf("the suite accepted no configurations")
	}
}
