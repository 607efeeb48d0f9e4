package engine_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/rulesets"
)

// A game is a fold of events: Start deals, Decide turns a command into the
// facts it causes, and Fold applies them. The same seed gives the same
// game, which is what lets anyone re-derive every draw after the end.
func Example() {
	rules, err := rulesets.All().Get("azul-mini")
	if err != nil {
		log.Fatal(err)
	}
	seed, err := engine.ParseSeed("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
	if err != nil {
		log.Fatal(err)
	}
	start, err := rules.Start(engine.Config{Ruleset: "azul-mini", Players: 2}, seed)
	if err != nil {
		log.Fatal(err)
	}
	state, err := engine.Fold(rules, nil, start)
	if err != nil {
		log.Fatal(err)
	}
	seat := state.ToAct()[0]
	moves := state.LegalMoves(seat)
	fmt.Println("seat to act:", seat)
	fmt.Println("first legal move:", moves[0].Notation, string(moves[0].JSON))

	// A command in text notation, decided and folded.
	cmd, err := rules.ParseNotation(moves[0].Notation)
	if err != nil {
		log.Fatal(err)
	}
	facts, err := rules.Decide(state, seat, cmd, seed)
	if err != nil {
		log.Fatal(err)
	}
	state, err = engine.Fold(rules, state, facts)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("events:", len(facts), facts[0].EventType())
	fmt.Println("next to act:", state.ToAct())
	// Output:
	// seat to act: 0
	// first legal move: F1 blue 1 {"type":"take","factory":0,"color":"blue","line":1}
	// events: 1 tiles_taken
	// next to act: [1]
}

// An illegal command is refused with the rule it breaks and a reference
// into docs/rules.md; nothing is decided.
func ExampleRuleError() {
	rules, _ := rulesets.All().Get("summer-pavilion")
	seed, _ := engine.ParseSeed("1f1e1d1c1b1a191817161514131211100f0e0d0c0b0a09080706050403020100")
	start, _ := rules.Start(engine.Config{Ruleset: "summer-pavilion", Players: 2}, seed)
	state, _ := engine.Fold(rules, nil, start)
	cmd, err := rules.ParseCommand([]byte(`{"type":"place","star":1,"space":1,"color":"purple","wilds":0}`))
	if err != nil {
		log.Fatal(err)
	}
	_, err = rules.Decide(state, state.ToAct()[0], cmd, seed)
	var rule *engine.RuleError
	if errors.As(err, &rule) {
		fmt.Println("rule:", rule.Rule)
		fmt.Println("ref:", rule.Ref)
	}
	// Output:
	// rule: pavilion.acquire-phase
	// ref: docs/rules.md §3.4
}
