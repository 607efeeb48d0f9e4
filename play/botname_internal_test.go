package play

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/i18n"
)

// The game's log names a bot by its name in the reader's language: where
// it was seated at the creation, and where it takes over a seat left.
func TestLogNamesBotsInTheReadersWords(t *testing.T) {
	t.Parallel()
	cat, err := i18n.New(i18n.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := &Game{Config: engine.Config{Ruleset: "azul-mini", Players: 2}, Seats: []Seat{{Seat: 0, PlayerID: "p1", Name: "Ann"}, {Seat: 1, Bot: "search"}}}
	left, _ := json.Marshal(seatLeft{Seat: 0, By: "bot", Bot: "greedy"})
	for lang, want := range map[string][2]string{
		"en": {"Ann, search bot", "the greedy bot plays"},
		"nl": {"Ann, zoekbot", "de gulzige bot speelt"},
		"de": {"Ann, Such-Bot", "spielt ein gieriger Bot"},
		"it": {"Ann, bot di ricerca", "gioca il bot goloso"},
	} {
		l := cat.Localizer(lang, time.UTC)
		if got := g.describe(l, events.Record{Type: EvGameCreated}); !strings.Contains(got, want[0]) {
			t.Errorf("%s creation: %q lacks %q", lang, got, want[0])
		}
		if got := g.describe(l, events.Record{Type: EvSeatLeft, Data: left}); !strings.Contains(got, want[1]) {
			t.Errorf("%s leaving: %q lacks %q", lang, got, want[1])
		}
	}
}
