package pavilion_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/pavilion"
)

// TestSummary: every event of random games reads as one line of English.
func TestSummary(t *testing.T) {
	e := pavilion.Event{Kind: pavilion.EvTilesTaken, Seat: 1, Source: pavilion.Center, Colour: pavilion.Yellow, Count: 3, WildTaken: 1, Token: true, Lost: 4}
	if got, want := e.Summary(), "seat 1 took 3 yellow + 1 wild from the centre, took the start token, −4"; got != want {
		t.Fatalf("summary %q, want %q", got, want)
	}
	for _, ruleset := range []string{"summer-pavilion", "summer-pavilion-mini"} {
		rules, err := pavilion.New(ruleset)
		if err != nil {
			t.Fatal(err)
		}
		seed := engine.Seed{byte(len(ruleset))}
		evs, err := rules.Start(engine.Config{Ruleset: ruleset, Players: 3}, seed)
		if err != nil {
			t.Fatal(err)
		}
		s, err := engine.Fold(rules, nil, evs)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		all := evs
		for steps := 0; !s.Over() && steps < 2000; steps++ {
			seat := s.ToAct()[0]
			moves := s.LegalMoves(seat)
			m := moves[rng.IntN(len(moves))]
			if strings.HasPrefix(m.Notation, "resign") && len(moves) > 1 {
				continue
			}
			decided, err := rules.Decide(s, seat, m.Command, seed)
			if err != nil {
				t.Fatal(err)
			}
			if s, err = engine.Fold(rules, s, decided); err != nil {
				t.Fatal(err)
			}
			all = append(all, decided...)
		}
		for _, ev := range all {
			sum := ev.(interface{ Summary() string }).Summary()
			if sum == "" || strings.Contains(sum, "unknown") || strings.Contains(sum, "%!") || strings.Contains(sum, "\n") {
				t.Fatalf("%s: %q", ev.EventType(), sum)
			}
		}
	}
}
