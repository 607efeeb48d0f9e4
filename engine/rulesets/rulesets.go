// Package rulesets assembles the registry of every rule set the server
// plays. It is the one place that knows all game families.
package rulesets

import (
	"fmt"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/azul"
	"github.com/azuld/azuld/engine/pavilion"
)

// All returns a new registry of every rule set.
func All() engine.Registry {
	reg := engine.Registry{}
	a := azul.New()
	reg[a.Ruleset()] = a
	for _, id := range []string{pavilion.RulesetPavilion, pavilion.RulesetMini} {
		r, err := pavilion.New(id)
		if err != nil {
			// The ids are the package's own constants: this cannot fail
			// unless the package is broken, which its tests catch.
			panic(fmt.Sprintf("rulesets: %v", err))
		}
		reg[id] = r
	}
	return reg
}
