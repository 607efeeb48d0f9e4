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
	"github.com/azuld/azuld/engine/azul"
	"github.com/azuld/azuld/engine/pavilion"
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
	switch e := ev.(type) {
	case azul.Event:
		return azulLine(l, t, &e)
	case *azul.Event:
		return azulLine(l, t, e)
	case pavilion.Event:
		return pavilionLine(l, t, &e)
	case *pavilion.Event:
		return pavilionLine(l, t, e)
	}
	return l.T("tell.unknown")
}

// Item is what a scoring event scored, without the seat's name ("red
// from line 4 to the wall: +3"); "" for an event that scores nothing.
func Item(l *i18n.Localizer, t Table, ev engine.Event) string {
	switch e := ev.(type) {
	case azul.Event:
		return azulItem(l, &e)
	case *azul.Event:
		return azulItem(l, e)
	case pavilion.Event:
		return pavilionItem(l, t, &e)
	case *pavilion.Event:
		return pavilionItem(l, t, e)
	}
	return ""
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

func azulLine(l *i18n.Localizer, t Table, e *azul.Event) string {
	who := t.Name(l, int(e.Seat))
	switch e.Kind {
	case azul.EvGameStarted:
		return l.T("tell.started", "Name", who)
	case azul.EvFactoriesFilled:
		return l.T("tell.round_began", "Round", l.Num(int(e.Round)), "Name", who)
	case azul.EvTilesTaken:
		return azulTaken(l, who, e)
	case azul.EvWallTiled, azul.EvLineToFloor, azul.EvFloorScored:
		return l.T("tell.scored", "Name", who, "Item", azulItem(l, e))
	case azul.EvGameEnded:
		return l.T("tell.game_ended")
	}
	return l.T("tell.unknown")
}

func azulTaken(l *i18n.Localizer, who string, e *azul.Event) string {
	tiles := tilesOf(l, e.Color.String(), int(e.Count))
	var took string
	switch {
	case e.Source != azul.Center:
		took = l.T("tell.azul.took_factory", "Name", who, "Tiles", tiles, "Factory", "F"+strconv.Itoa(int(e.Source)+1))
	case e.Marker:
		took = l.T("tell.azul.took_centre_marker", "Name", who, "Tiles", tiles)
	default:
		took = l.T("tell.azul.took_centre", "Name", who, "Tiles", tiles)
	}
	type dest struct {
		n        uint8
		part, to string
	}
	line := strconv.Itoa(int(e.Line))
	var dests []dest
	for _, d := range []dest{
		{e.ToLine, l.T("tell.azul.part_line", "N", l.Num(int(e.ToLine)), "Line", line), l.T("tell.azul.to_line", "Line", line)},
		{e.ToFloor, l.T("tell.azul.part_floor", "N", l.Num(int(e.ToFloor))), l.T("tell.azul.to_floor")},
		{e.ToLid, l.T("tell.azul.part_lid", "N", l.Num(int(e.ToLid))), l.T("tell.azul.to_lid")},
	} {
		if d.n > 0 {
			dests = append(dests, d)
		}
	}
	if len(dests) == 1 && !e.Marker {
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

func azulItem(l *i18n.Localizer, e *azul.Event) string {
	switch e.Kind {
	case azul.EvWallTiled:
		return l.T("tell.azul.wall_tiled", "Colour", colourNoun(l, e.Color.String()), "Line", strconv.Itoa(int(e.Line)), "Points", l.Signed(int(e.Points)))
	case azul.EvLineToFloor:
		return l.T("tell.azul.line_to_floor", "Line", strconv.Itoa(int(e.Line)), "Tiles", tilesOf(l, e.Color.String(), int(e.Count)), "N", l.Num(int(e.ToFloor)))
	case azul.EvFloorScored:
		item := l.T("tell.azul.floor", "Tiles", l.N("game.tiles", int(e.FloorLen)), "Points", l.Signed(-int(e.Points)))
		if e.Points < e.Penalty {
			item = l.T("tell.azul.floor_capped", "Floor", item, "Penalty", l.Signed(-int(e.Penalty)))
		}
		return item
	}
	return ""
}

func pavilionLine(l *i18n.Localizer, t Table, e *pavilion.Event) string {
	who := t.Name(l, int(e.Seat))
	switch e.Kind {
	case pavilion.EvGameStarted:
		return l.T("tell.started", "Name", who)
	case pavilion.EvRoundStarted:
		return l.T("tell.pavilion.round_began", "Round", l.Num(int(e.Round)), "Wild", colourNoun(l, e.Wild.String()), "Name", who)
	case pavilion.EvTilesTaken:
		return pavilionTaken(l, who, e)
	case pavilion.EvAcquisitionEnded:
		return l.T("tell.pavilion.placing_began", "Name", who)
	case pavilion.EvTilePlaced:
		return l.T("tell.pavilion.placed", "Name", who, "Item", pavilionItem(l, t, e))
	case pavilion.EvBonusTaken:
		return l.T("tell.pavilion.bonus", "Name", who, "Tiles", tileCounts(l, e.Tiles))
	case pavilion.EvSupplyRefilled:
		return l.T("tell.pavilion.supply_refilled")
	case pavilion.EvPassed:
		return l.T("tell.pavilion.passed_line", "Name", who, "Item", pavilionItem(l, t, e))
	case pavilion.EvResigned:
		return l.T("tell.resigned", "Name", who)
	case pavilion.EvGameEnded:
		return l.T("tell.game_ended")
	}
	return l.T("tell.unknown")
}

func pavilionTaken(l *i18n.Localizer, who string, e *pavilion.Event) string {
	tiles := []string{tilesOf(l, e.Colour.String(), int(e.Count))}
	if e.WildTaken > 0 {
		tiles = append(tiles, l.N("tell.pavilion.wilds", int(e.WildTaken)))
	}
	if e.Token {
		tiles = append(tiles, l.T("tell.pavilion.the_token"))
	}
	what := l.List(tiles)
	took := l.T("tell.pavilion.took_centre", "Name", who, "Tiles", what)
	if e.Source != pavilion.Center {
		took = l.T("tell.pavilion.took_factory", "Name", who, "Tiles", what, "Factory", "F"+strconv.Itoa(int(e.Source)+1))
	}
	if e.Lost > 0 {
		return l.T("tell.pavilion.took_lost", "Took", took, "Points", l.Signed(-int(e.Lost)))
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

func pavilionItem(l *i18n.Localizer, t Table, e *pavilion.Event) string {
	switch e.Kind {
	case pavilion.EvTilePlaced:
		what := l.T("tell.pavilion.placed_item", "Colour", colourNoun(l, e.Colour.String()), "Star", onStar(l, t, int(e.Star)), "Space", strconv.Itoa(int(e.Space)))
		var done []string
		for f := range pavilion.NumFeatures {
			if e.Features&(1<<uint(f)) != 0 {
				done = append(done, l.T("tell.pavilion.feature."+pavilion.FeatureKind(f), "Star", strconv.Itoa(pavilion.FeatureStar(f))))
			}
		}
		if len(done) > 0 {
			what = l.T("tell.pavilion.completing", "What", what, "Features", l.List(done))
		}
		return l.T("tell.item_points", "What", what, "Points", l.Signed(int(e.Points)))
	case pavilion.EvPassed:
		item := l.T("tell.pavilion.passed_none")
		if e.Tiles.Total() > 0 {
			item = l.T("tell.pavilion.passed_keeping", "Tiles", tileCounts(l, e.Tiles))
		}
		if n := e.Discarded.Total(); n > 0 {
			item = l.T("tell.pavilion.discarding", "What", item, "Tiles", l.N("game.tiles", int(n)))
		}
		if e.Lost > 0 {
			item = l.T("tell.item_points", "What", item, "Points", l.Signed(-int(e.Lost)))
		}
		return item
	case pavilion.EvTilesTaken:
		if e.Token {
			return TokenItem(l, int(e.Lost))
		}
	}
	return ""
}

// onStar is "on the red star", "on the centre star", "on star 3".
func onStar(l *i18n.Localizer, t Table, star int) string {
	if star == pavilion.CentreStar {
		return l.T("tell.pavilion.on_star.centre")
	}
	if c, ok := pavilion.StarColour(star); ok && !t.Monochrome {
		return l.T("tell.pavilion.on_star." + c.String())
	}
	return l.T("tell.pavilion.on_star.number", "Star", strconv.Itoa(star))
}

// tileCounts is "4 yellow and 1 red" in the reader's words ("none"
// for no tiles).
func tileCounts(l *i18n.Localizer, t pavilion.Tiles) string {
	var parts []string
	for c, n := range t {
		if n > 0 {
			parts = append(parts, tilesOf(l, pavilion.Colour(c).String(), int(n)))
		}
	}
	if len(parts) == 0 {
		return l.T("tell.none")
	}
	return l.List(parts)
}
