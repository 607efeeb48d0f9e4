package tell_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/azul"
	"github.com/azuld/azuld/engine/pavilion"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/i18n/tell"
)

var cat = func() *i18n.Catalogue {
	c, err := i18n.New(i18n.Options{Pseudo: true})
	if err != nil {
		panic(err)
	}
	return c
}()

var tbl = tell.Table{Names: []string{"Ann", "Bob"}}

// events are one event of every kind of both families, and the
// variants that change the wording.
func events() []engine.Event {
	return []engine.Event{
		azul.Event{Kind: azul.EvGameStarted, Seat: 0, Players: 2},
		azul.Event{Kind: azul.EvFactoriesFilled, Seat: 1, Round: 2},
		azul.Event{Kind: azul.EvTilesTaken, Seat: 1, Source: 1, Colour: azul.Red, Count: 3, Line: 2, ToLine: 2, ToFloor: 1},
		azul.Event{Kind: azul.EvTilesTaken, Seat: 1, Source: 4, Colour: azul.White, Count: 2, Line: 5, ToLine: 2},
		azul.Event{Kind: azul.EvTilesTaken, Seat: 0, Source: azul.Center, Colour: azul.Black, Count: 1, Line: 4, ToLine: 1, Marker: true},
		azul.Event{Kind: azul.EvTilesTaken, Seat: 0, Source: azul.Center, Colour: azul.Blue, Count: 4, ToFloor: 2, ToLid: 2},
		azul.Event{Kind: azul.EvWallTiled, Seat: 0, Line: 1, Colour: azul.Blue, Points: 1},
		azul.Event{Kind: azul.EvLineToFloor, Seat: 1, Line: 3, Colour: azul.Yellow, Count: 3, ToFloor: 2, ToLid: 1},
		azul.Event{Kind: azul.EvFloorScored, Seat: 1, FloorLen: 3, Points: 2, Penalty: 4},
		azul.Event{Kind: azul.EvGameEnded},
		&pavilion.Event{Kind: pavilion.EvGameStarted, Seat: 0},
		&pavilion.Event{Kind: pavilion.EvRoundStarted, Seat: 1, Round: 3, Wild: pavilion.Orange},
		&pavilion.Event{Kind: pavilion.EvTilesTaken, Seat: 1, Source: pavilion.Center, Colour: pavilion.Orange, Count: 2, WildTaken: 1, Token: true, Lost: 2},
		&pavilion.Event{Kind: pavilion.EvTilesTaken, Seat: 0, Source: 2, Colour: pavilion.Green, Count: 1},
		&pavilion.Event{Kind: pavilion.EvAcquisitionEnded, Seat: 1},
		&pavilion.Event{Kind: pavilion.EvTilePlaced, Seat: 1, Star: 3, Space: 4, Colour: pavilion.Red, Points: 5, Features: 1 | 1<<7 | 1<<13},
		&pavilion.Event{Kind: pavilion.EvTilePlaced, Seat: 0, Star: 0, Space: 1, Colour: pavilion.Purple, Points: 1},
		&pavilion.Event{Kind: pavilion.EvBonusTaken, Seat: 0, Tiles: pavilion.Tiles{pavilion.Blue: 1, pavilion.Yellow: 1}},
		&pavilion.Event{Kind: pavilion.EvSupplyRefilled},
		&pavilion.Event{Kind: pavilion.EvPassed, Seat: 1, Tiles: pavilion.Tiles{pavilion.Blue: 2}, Discarded: pavilion.Tiles{pavilion.Red: 1}, Lost: 1},
		&pavilion.Event{Kind: pavilion.EvPassed, Seat: 0},
		&pavilion.Event{Kind: pavilion.EvResigned, Seat: 0},
		&pavilion.Event{Kind: pavilion.EvGameEnded},
	}
}

func TestLines(t *testing.T) {
	want := map[string][]string{
		"en": {"Bob took 3 red from F2: 2 to line 2, 1 to the floor.", "Bob took 2 white from F5 to line 5.",
			"Ann took 1 black and the start marker from the centre: 1 to line 4.", "Bob: floor, 3 tiles: −2 (of −4: a score does not go below 0).",
			"Bob took 2 orange, 1 wild and the start token from the centre: −2.", "Bob placed red on the red star, space 4, completing the window of star 1, the statue of star 2 and the pillar of star 2: +5.",
			"Bob passed, keeping 2 blue, discarding 1 tile: −1."},
		"nl": {"Bob nam 3 rode tegels van F2: 2 naar patroonlijn 2, 1 naar de vloerlijn.", "Bob nam 2 witte tegels van F5 naar patroonlijn 5.",
			"Ann nam 1 zwarte tegel en de startspelertegel uit het midden: 1 naar patroonlijn 4.", "Bob legde rood op de rode ster, vak 4"},
		"de": {"Bob nahm 3 rote Fliesen von F2: 2 in Musterreihe 2, 1 in die Bodenreihe.", "Bob legte Rot auf den roten Stern, Feld 4"},
		"it": {"Bob ha preso 3 piastrelle rosse da F2: 2 sulla riga modello 2, 1 sulla riga del pavimento.", "Bob ha collocato rosso sulla stella rossa, casella 4"},
	}
	for _, lang := range i18n.Languages {
		l := cat.Localizer(lang, time.UTC)
		var all []string
		for _, ev := range events() {
			line := tell.Line(l, tbl, ev)
			if line == "" || !strings.HasSuffix(line, ".") || strings.Contains(line, "[") {
				t.Errorf("%s: %s: %q", lang, ev.EventType(), line)
			}
			all = append(all, line)
		}
		text := strings.Join(all, "\n")
		for _, w := range want[lang] {
			if !strings.Contains(text, w) {
				t.Errorf("%s lacks %q:\n%s", lang, w, text)
			}
		}
	}
}

// Every line and item of every event, in the pseudo-locale, comes from
// the catalogue: no English word but the names and notation.
func TestPseudoLocale(t *testing.T) {
	l := cat.Localizer(i18n.Pseudo, time.UTC)
	for _, ev := range events() {
		for _, s := range []string{tell.Line(l, tbl, ev), tell.Item(l, tbl, ev)} {
			if found := i18n.Bypassed(s, "Ann", "Bob"); len(found) > 0 {
				t.Errorf("%s: %q outside the catalogue in %q", ev.EventType(), found, s)
			}
		}
	}
	mono := tell.Table{Names: tbl.Names, Monochrome: true}
	if s := tell.Line(l, mono, &pavilion.Event{Kind: pavilion.EvTilePlaced, Star: 3, Space: 1, Colour: pavilion.Red}); len(i18n.Bypassed(s, "Ann")) > 0 {
		t.Errorf("monochrome: %q", s)
	}
	if s := tell.TakenBack(l, 12); len(i18n.Bypassed(s)) > 0 {
		t.Errorf("take-back: %q", s)
	}
	if missing := cat.Missing(); len(missing) > 0 {
		t.Errorf("missing messages: %q", missing)
	}
}

// Items are the scoring events' own words; other events score nothing.
func TestItems(t *testing.T) {
	l := cat.Localizer("en", time.UTC)
	scoring := []string{"wall_tiled", "line_to_floor", "floor_scored", "tile_placed", "passed"}
	for _, ev := range events() {
		item := tell.Item(l, tbl, ev)
		isScoring := slices.Contains(scoring, ev.EventType())
		if e, ok := ev.(*pavilion.Event); ok && e.Kind == pavilion.EvTilesTaken && e.Token {
			isScoring = true
		}
		if (item != "") != isScoring {
			t.Errorf("%s: item %q", ev.EventType(), item)
		}
	}
	if got := tell.Line(l, tell.Table{}, azul.Event{Kind: azul.EvGameEnded, Seat: 3}); got != "The game ended." {
		t.Errorf("game over: %q", got)
	}
	if got := (tell.Table{}).Name(l, 3); got != "seat 3" {
		t.Errorf("a seat without a name: %q", got)
	}
}

// A bot's seat is said by the bot's name in the reader's words; a seat
// without a bot keeps its player's name, and an unknown kind the name it
// was given.
func TestBotSeatsInTheReadersWords(t *testing.T) {
	c, err := i18n.New(i18n.Options{})
	if err != nil {
		t.Fatal(err)
	}
	table := tell.Table{Names: []string{"Ann", "search bot", "tortoise bot"}, Bots: []string{"", "search", "tortoise"}}
	for lang, want := range map[string]string{"en": "search bot", "nl": "zoekbot", "de": "Such-Bot", "it": "bot di ricerca"} {
		l := c.Localizer(lang, time.UTC)
		if got := table.Name(l, 1); got != want {
			t.Errorf("%s: the search bot is %q, want %q", lang, got, want)
		}
		if got := table.Name(l, 0); got != "Ann" {
			t.Errorf("%s: Ann is %q", lang, got)
		}
		if got := table.Name(l, 2); got != "tortoise bot" {
			t.Errorf("%s: an unknown kind is %q", lang, got)
		}
	}
}

// described is an event of no family that says only its phrase.
type described struct{ d engine.Description }

func (described) EventType() string              { return "described" }
func (described) SchemaVersion() int             { return 1 }
func (e described) Describe() engine.Description { return e.d }

// TestEveryPhraseHasWords: every phrase an engine may describe an event
// with is told in words, not as an unknown event.
func TestEveryPhraseHasWords(t *testing.T) {
	l := cat.Localizer("en", time.UTC)
	unknown := tell.Line(l, tbl, described{engine.Description{Phrase: "no_such_phrase"}})
	for _, p := range engine.Phrases() {
		if got := tell.Line(l, tbl, described{engine.Description{Phrase: p, Source: engine.FromCentre}}); got == unknown {
			t.Errorf("phrase %s is told as %q", p, got)
		}
	}
}
