package azul

import (
	"testing"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/enginetest"
)

// TestConformance plays random games of every configuration through the
// engine's conformance suite.
func TestConformance(t *testing.T) {
	var configs []engine.Config
	for players := 2; players <= 4; players++ {
		for _, wall := range []string{"", "grey"} {
			configs = append(configs, engine.Config{Ruleset: Ruleset, Players: players, Options: engine.Options{Wall: wall}})
		}
	}
	enginetest.TestRules(t, New(), enginetest.Options{
		Configs: configs,
		Games:   3,
		Seed:    1,
		// line_to_floor (a grey wall's line without a legal space) is too
		// rare in random play to require; TestGreyWallWholeLineToFloor plays it.
		EventTypes: []string{"game_started", "factories_filled", "tiles_taken", "wall_tiled",
			"floor_scored", "game_ended"},
	})
}
