// Package tell says what a game's event did, in a reader's language:
// "Bob took 3 red from F2: 2 to line 2, 1 to the floor" / "Bob nam 3 rode
// tegels van F2: 2 naar patroonlijn 2, 1 naar de vloerlijn". It is the
// languages' counterpart of the engines' English Summary(): the engines
// speak in events and codes, and this package (pure: no I/O, no clock)
// puts them in words from the catalogue's tell domain and the rulebooks'
// terms (domain game).
//
// Line tells any event on its own (a history, an audit); Item tells what
// a scoring event scored, for a round's account under the seat's name.
package tell

import (
	"strconv"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/i18n"
)

// Table is what a line needs besides the event: the seats' names and
// the board's side.
type Table struct {
	// Names are the players' names by seat; an empty or missing one is
	// said as "seat N" in the reader's words.
	Names []string
	// Bots are the bot kinds by seat ("search"), "" for a player's seat:
	// a bot without a name is said by its kind's name in the reader's
	// words ("zoekbot"), not the English the server names it with.
	Bots []string
	// Monochrome is Summer Pavilion's monochrome side, whose stars have
	// no colour and are named by number.
	Monochrome bool
}

// Name is a seat's name for the reader.
func (t Table) Name(l *i18n.Localizer, seat int) string {
	if seat >= 0 && seat < len(t.Bots) && t.Bots[seat] != "" {
		if name := BotName(l, t.Bots[seat]); name != "" {
			return name
		}
	}
	if seat >= 0 && seat < len(t.Names) && t.Names[seat] != "" {
		return t.Names[seat]
	}
	return l.T("tell.seat", "N", strconv.Itoa(seat))
}

// BotName is a bot kind's name in the reader's words, "" for a kind the
// catalogue does not know.
func BotName(l *i18n.Localizer, kind string) string {
	if id := "game.bot." + kind; l.Catalogue().Has(id) {
		return l.T(id)
	}
	return ""
}

// Line is one event in words, a sentence with its full stop. Every
// event of both families has one, so that a history can tell them all.
func Line(l *i18n.Localizer, t Table, ev engine.Event) string {
	if ev == nil {
		return l.T("tell.unknown")
	}
	return line(l, t, ev.Describe())
}

// Item is what a scoring event scored, without the seat's name ("red
// from line 4 to the wall: +3"); "" for an event that scores nothing.
func Item(l *i18n.Localizer, t Table, ev engine.Event) string {
	if ev == nil {
		return ""
	}
	return item(l, t, ev.Describe())
}

// TakenBack is the line of an agreed take-back.
func TakenBack(l *i18n.Localizer, toVersion int64) string {
	return l.T("tell.taken_back", "Version", l.Num(int(toVersion)))
}

// Signed is a score change as the tables print it: "+3", "−2", "0".
func Signed(l *i18n.Localizer, n int) string { return l.Signed(n) }

// tilesOf is "3 red" / "3 rode tegels" in the reader's words.
func tilesOf(l *i18n.Localizer, colour string, n int) string {
	return l.N("game.tiles_of."+colour, n)
}

// colourNoun is a colour as a noun ("Blau" in German).
func colourNoun(l *i18n.Localizer, colour string) string {
	return l.T("tell.colour." + colour)
}

func line(l *i18n.Localizer, t Table, d engine.Description) string {
	who := t.Name(l, d.Seat)
	switch d.Phrase {
	case engine.PhraseStarted:
		return l.T("tell.started", "Name", who)
	case engine.PhraseRoundStarted:
		if d.Colour != "" {
			return l.T("tell.pavilion.round_began", "Round", l.Num(d.Round), "Wild", colourNoun(l, d.Colour), "Name", who)
		}
		return l.T("tell.round_began", "Round", l.Num(d.Round), "Name", who)
	case engine.PhraseAzulTaken:
		return azulTaken(l, who, d)
	case engine.PhraseAzulWallTiled, engine.PhraseAzulLineToFloor, engine.PhraseAzulFloorScored:
		return l.T("tell.scored", "Name", who, "Item", item(l, t, d))
	case engine.PhrasePavilionTaken:
		return pavilionTaken(l, who, d)
	case engine.PhrasePavilionPlacingBegan:
		return l.T("tell.pavilion.placing_began", "Name", who)
	case engine.PhrasePavilionPlaced:
		return l.T("tell.pavilion.placed", "Name", who, "Item", item(l, t, d))
	case engine.PhrasePavilionBonus:
		return l.T("tell.pavilion.bonus", "Name", who, "Tiles", tileCounts(l, d.Tiles))
	case engine.PhrasePavilionSupplyRefilled:
		return l.T("tell.pavilion.supply_refilled")
	case engine.PhrasePavilionPassed:
		return l.T("tell.pavilion.passed_line", "Name", who, "Item", item(l, t, d))
	case engine.PhraseResigned:
		return l.T("tell.resigned", "Name", who)
	case engine.PhraseGameEnded:
		return l.T("tell.game_ended")
	}
	return l.T("tell.unknown")
}

// factory is a factory's name, "F2".
func factory(source int) string { return "F" + strconv.Itoa(source+1) }

// placed is how many of a move's tiles went to a place.
func placed(d engine.Description, place string) int {
	for _, p := range d.To {
		if p.Place == place {
			return p.Count
		}
	}
	return 0
}

func azulTaken(l *i18n.Localizer, who string, d engine.Description) string {
	tiles := tilesOf(l, d.Colour, d.Count)
	var took string
	switch {
	case d.Source != engine.FromCentre:
		took = l.T("tell.azul.took_factory", "Name", who, "Tiles", tiles, "Factory", factory(d.Source))
	case d.Marker:
		took = l.T("tell.azul.took_centre_marker", "Name", who, "Tiles", tiles)
	default:
		took = l.T("tell.azul.took_centre", "Name", who, "Tiles", tiles)
	}
	line := strconv.Itoa(d.Line)
	type dest struct{ part, to string }
	var dests []dest
	for _, p := range d.To {
		switch p.Place {
		case engine.PlaceLine:
			dests = append(dests, dest{l.T("tell.azul.part_line", "N", l.Num(p.Count), "Line", line), l.T("tell.azul.to_line", "Line", line)})
		case engine.PlaceFloor:
			dests = append(dests, dest{l.T("tell.azul.part_floor", "N", l.Num(p.Count)), l.T("tell.azul.to_floor")})
		case engine.PlaceLid:
			dests = append(dests, dest{l.T("tell.azul.part_lid", "N", l.Num(p.Count)), l.T("tell.azul.to_lid")})
		}
	}
	if len(dests) == 1 && !d.Marker {
		// "Bob took 4 red from F2 to line 4": the count is said once.
		return l.T("tell.azul.took_to", "Took", took, "To", dests[0].to)
	}
	parts := make([]string, len(dests))
	for i, d := range dests {
		parts[i] = d.part
	}
	return l.T("tell.azul.took_parts", "Took", took, "Parts", l.T("tell.parts", "List", joinParts(l, parts)))
}

// joinParts joins the parts of a move's account with commas.
func joinParts(l *i18n.Localizer, parts []string) string {
	out := ""
	for i, p := range parts {
		if i > 0 {
			out += l.T("common.list_separator")
		}
		out += p
	}
	return out
}

func pavilionTaken(l *i18n.Localizer, who string, d engine.Description) string {
	tiles := []string{tilesOf(l, d.Colour, d.Count)}
	if d.Wilds > 0 {
		tiles = append(tiles, l.N("tell.pavilion.wilds", d.Wilds))
	}
	if d.Marker {
		tiles = append(tiles, l.T("tell.pavilion.the_token"))
	}
	what := l.List(tiles)
	took := l.T("tell.pavilion.took_centre", "Name", who, "Tiles", what)
	if d.Source != engine.FromCentre {
		took = l.T("tell.pavilion.took_factory", "Name", who, "Tiles", what, "Factory", factory(d.Source))
	}
	if d.Points < 0 {
		return l.T("tell.pavilion.took_lost", "Took", took, "Points", l.Signed(d.Points))
	}
	return l.T("tell.sentence", "Text", took)
}

// TokenItem is the scoring item of taking Summer Pavilion's start token
// (it costs points): "start token: −2", or "took the start token".
func TokenItem(l *i18n.Localizer, lost int) string {
	if lost > 0 {
		return l.T("tell.pavilion.token_lost", "Points", l.Signed(-lost))
	}
	return l.T("tell.pavilion.token_taken")
}

func item(l *i18n.Localizer, t Table, d engine.Description) string {
	switch d.Phrase {
	case engine.PhraseAzulWallTiled:
		return l.T("tell.azul.wall_tiled", "Colour", colourNoun(l, d.Colour), "Line", strconv.Itoa(d.Line), "Points", l.Signed(d.Points))
	case engine.PhraseAzulLineToFloor:
		return l.T("tell.azul.line_to_floor", "Line", strconv.Itoa(d.Line), "Tiles", tilesOf(l, d.Colour, d.Count), "N", l.Num(placed(d, engine.PlaceFloor)))
	case engine.PhraseAzulFloorScored:
		item := l.T("tell.azul.floor", "Tiles", l.N("game.tiles", d.Floor), "Points", l.Signed(d.Points))
		if d.Points > d.Penalty {
			item = l.T("tell.azul.floor_capped", "Floor", item, "Penalty", l.Signed(d.Penalty))
		}
		return item
	case engine.PhrasePavilionPlaced:
		what := l.T("tell.pavilion.placed_item", "Colour", colourNoun(l, d.Colour), "Star", onStar(l, t, d), "Space", strconv.Itoa(d.Space))
		var done []string
		for _, f := range d.Features {
			done = append(done, l.T("tell.pavilion.feature."+f.Kind, "Star", strconv.Itoa(f.Star)))
		}
		if len(done) > 0 {
			what = l.T("tell.pavilion.completing", "What", what, "Features", l.List(done))
		}
		return l.T("tell.item_points", "What", what, "Points", l.Signed(d.Points))
	case engine.PhrasePavilionPassed:
		item := l.T("tell.pavilion.passed_none")
		if len(d.Tiles) > 0 {
			item = l.T("tell.pavilion.passed_keeping", "Tiles", tileCounts(l, d.Tiles))
		}
		if d.Discarded > 0 {
			item = l.T("tell.pavilion.discarding", "What", item, "Tiles", l.N("game.tiles", d.Discarded))
		}
		if d.Points < 0 {
			item = l.T("tell.item_points", "What", item, "Points", l.Signed(d.Points))
		}
		return item
	case engine.PhrasePavilionTaken:
		if d.Marker {
			return TokenItem(l, -d.Points)
		}
	}
	return ""
}

// onStar is "on the red star", "on the centre star", "on star 3".
func onStar(l *i18n.Localizer, t Table, d engine.Description) string {
	if d.CentreStar {
		return l.T("tell.pavilion.on_star.centre")
	}
	if d.StarColour != "" && !t.Monochrome {
		return l.T("tell.pavilion.on_star." + d.StarColour)
	}
	return l.T("tell.pavilion.on_star.number", "Star", strconv.Itoa(d.Star))
}

// tileCounts is "4 yellow and 1 red" in the reader's words ("none"
// for no tiles).
func tileCounts(l *i18n.Localizer, tiles []engine.Tiles) string {
	if len(tiles) == 0 {
		return l.T("tell.none")
	}
	parts := make([]string, len(tiles))
	for i, t := range tiles {
		parts[i] = tilesOf(l, t.Colour, t.Count)
	}
	return l.List(parts)
}
