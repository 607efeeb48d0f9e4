package bots_test

import (
	"errors"
	"testing"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/bots"
	"github.com/azuld/azuld/engine/rulesets"
)

func TestRandomBotPlaysLegalMovesToTheEnd(t *testing.T) {
	for id, rules := range rulesets.All() {
		seed := engine.Seed{1, 2, 3}
		evs, err := rules.Start(engine.Config{Ruleset: id, Players: 3}, seed)
		if err != nil {
			t.Fatal(err)
		}
		s, err := engine.Fold(rules, nil, evs)
		if err != nil {
			t.Fatal(err)
		}
		for step := 0; !s.Over(); step++ {
			if step > 5000 {
				t.Fatalf("%s: no end after 5000 moves", id)
			}
			seat := s.ToAct()[0]
			m, err := bots.Choose(bots.Random, s, seat, uint64(step))
			if err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			if m.Notation == "resign" {
				t.Fatalf("%s: the bot resigned", id)
			}
			again, _ := bots.Choose(bots.Random, s, seat, uint64(step))
			if again.Notation != m.Notation {
				t.Fatalf("%s: same state and salt gave %q then %q", id, m.Notation, again.Notation)
			}
			evs, err := rules.Decide(s, seat, m.Command, seed)
			if err != nil {
				t.Fatalf("%s: the bot's move %q was refused: %v", id, m.Notation, err)
			}
			if s, err = engine.Fold(rules, s, evs); err != nil {
				t.Fatal(err)
			}
		}
		if s.Final().Reason == "resigned" {
			t.Fatalf("%s: ended by resignation", id)
		}
	}
}

func TestChooseRefusesUnknownBotsAndUnstartedGames(t *testing.T) {
	if _, err := bots.Choose(bots.Random, nil, 0, 0); !errors.Is(err, bots.ErrNoMove) {
		t.Fatalf("nil state: %v", err)
	}
	if bots.Known("oracle") || !bots.Known(bots.Random) {
		t.Fatal("Known is wrong")
	}
}
