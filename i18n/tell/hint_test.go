package tell_test

import (
	"strings"
	"testing"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/bots"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/i18n/tell"
)

// TestHintReasonsInEveryLanguage: every kind of reason has words in each
// language, its own in each, and nothing outside the catalogue.
func TestHintReasonsInEveryLanguage(t *testing.T) {
	reasons := []bots.Reason{
		{Kind: bots.ReasonCompletesLine, Line: 4, Colour: "blue"},
		{Kind: bots.ReasonScores, Points: 7},
		{Kind: bots.ReasonCompletes, Feature: engine.Feature{Kind: "window", Star: 2}},
		{Kind: bots.ReasonStartMarker, Family: "azul"},
		{Kind: bots.ReasonStartMarker, Family: "pavilion"},
		{Kind: bots.ReasonWilds, Count: 2},
		{Kind: bots.ReasonBonus, Tiles: []engine.Tiles{{Colour: "red", Count: 2}}},
		{Kind: bots.ReasonKeeps, Tiles: []engine.Tiles{{Colour: "green", Count: 1}}},
		{Kind: bots.ReasonFloor, Count: 2, Colour: "black"},
		{Kind: bots.ReasonSearch},
	}
	en := tell.Reasons(cat.Localizer("en", nil), reasons)
	if en[0] != "completes line 4 (blue)" || en[1] != "scores 7 points" {
		t.Errorf("English: %q", en)
	}
	for _, lang := range i18n.Languages {
		words := tell.Reasons(cat.Localizer(lang, nil), reasons)
		for i, w := range words {
			if w == "" || strings.Contains(w, "tell.") || (lang != "en" && w == en[i]) {
				t.Errorf("%s: reason %+v reads %q", lang, reasons[i], w)
			}
		}
	}
	for _, w := range tell.Reasons(cat.Localizer(i18n.Pseudo, nil), reasons) {
		if by := i18n.Bypassed(w); len(by) > 0 {
			t.Errorf("pseudo-locale: %q outside the catalogue: %v", w, by)
		}
	}
}
