package notify

import (
	"testing"
	"time"

	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/play"
)

// A mail names a bot's seat by the bot's name in the reader's language,
// not by the English the server names it with; a player's name stays.
func TestMailNamesBotsInTheReadersWords(t *testing.T) {
	t.Parallel()
	cat, err := i18n.New(i18n.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := &play.Game{Seats: []play.Seat{{Seat: 0, PlayerID: "p1", Name: "Ann"}, {Seat: 1, Bot: "search"}, {Seat: 2, Bot: "greedy"}}}
	for lang, want := range map[string][]string{
		"en": {"Ann", "search bot", "greedy bot"},
		"nl": {"Ann", "zoekbot", "gulzige bot"},
		"de": {"Ann", "Such-Bot", "gieriger Bot"},
		"it": {"Ann", "bot di ricerca", "bot goloso"},
	} {
		info := gameInfo(cat.Localizer(lang, time.UTC), g)
		for i, p := range info.Players {
			if p.Name != want[i] {
				t.Errorf("%s seat %d: %q, want %q", lang, i, p.Name, want[i])
			}
		}
	}
	// A kind this catalogue does not know keeps its raw name.
	odd := &play.Game{Seats: []play.Seat{{Seat: 0, Bot: "tortoise"}}}
	if got := gameInfo(cat.Localizer("nl", time.UTC), odd).Players[0].Name; got != "tortoise bot" {
		t.Errorf("unknown kind: %q", got)
	}
}
