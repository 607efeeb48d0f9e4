package rulesets

import (
	"testing"

	"github.com/azuld/azuld/engine"
)

func TestAllHasEveryRuleset(t *testing.T) {
	reg := All()
	for _, id := range []string{"azul-mini", "summer-pavilion", "summer-pavilion-mini"} {
		r, err := reg.Get(id)
		if err != nil {
			t.Fatalf("Get(%q): %v", id, err)
		}
		if r.Ruleset() != id {
			t.Errorf("registry entry %q plays %q", id, r.Ruleset())
		}
		if _, err := r.Start(engine.Config{Ruleset: id, Players: 2}, engine.Seed{}); err != nil {
			t.Errorf("%s: start a 2-player game: %v", id, err)
		}
	}
	if len(reg) != 3 {
		t.Errorf("registry has %d rule sets, want 3", len(reg))
	}
	if _, err := reg.Get("chess"); err == nil {
		t.Error("an unknown rule set was found")
	}
}
