package pavilion

import (
	"testing"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/enginetest"
)

// TestConformance plays random games of every rule set and option
// through the engine's conformance suite.
func TestConformance(t *testing.T) {
	t.Parallel()
	custom := []string{"red", "blue", "purple", "yellow", "green", "orange"}
	for _, ruleset := range []string{RulesetPavilion, RulesetMini} {
		t.Run(ruleset, func(t *testing.T) {
			t.Parallel()
			rules, err := New(ruleset)
			if err != nil {
				t.Fatal(err)
			}
			var configs []engine.Config
			for players := 2; players <= 4; players++ {
				for _, board := range []string{"", "monochrome"} {
					configs = append(configs, engine.Config{Ruleset: ruleset, Players: players, Options: engine.Options{Board: board}})
				}
			}
			configs = append(configs, engine.Config{Ruleset: ruleset, Players: 3, Options: engine.Options{WildOrder: custom}})
			enginetest.TestRules(t, rules, enginetest.Options{
				Configs: configs,
				Games:   2,
				Seed:    2,
				EventTypes: []string{"game_started", "round_started", "tiles_taken", "acquisition_ended",
					"tile_placed", "passed", "game_ended"},
			})
		})
	}
}
