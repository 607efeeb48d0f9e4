package compose

import (
	"html/template"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/i18n/notation"
)

// The table of a mail is drawn from the game's state (engine.View) in
// the reader's words: the engine's own Text() is English. Tiles keep the
// canonical letters of the notation (B, Y, R, K, W; P, G, O, …), which
// the legend names in the reader's language; the offer's labels (F1, C)
// are the notation's too. Both parts are drawn from the same blocks: the
// text part as monospace lines, the HTML part as coloured cells.

// familyOrder is the order colours are listed in, per family.
var familyOrder = map[notation.Family][]string{
	notation.Azul:     {"blue", "yellow", "red", "black", "white"},
	notation.Pavilion: {"purple", "green", "orange", "yellow", "blue", "red"},
}

// padCell stands before a pattern line's spaces, so that the lines end
// at the wall; sepCell stands between a pattern line and its wall row.
var (
	padCell = cell{Text: " ", Style: "width:20px;padding:0"}
	sepCell = cell{Text: "|", Style: "width:8px;padding:0"}
)

// emptyCell is a space without a tile and without a colour of its own.
func emptyCell() cell {
	return cell{Text: ".", Style: cellBase + "border:1px solid #cccccc;background:#f2f2f2"}
}

// markerCell is the start marker (token) in the centre or on a floor.
func markerCell(ruleset string) cell {
	c := tileCell(ruleset, "marker", "M", true)
	if notation.FamilyOf(ruleset) == notation.Pavilion {
		c.Letter, c.Text = "1", "1"
	}
	return c
}

// countedRow is a label and tiles counted in a map, in the family's
// colour order.
func countedRow(ruleset, label string, tiles map[string]int, marker bool) row {
	r := row{Label: label, counted: true}
	if marker {
		r.Cells = append(r.Cells, markerCell(ruleset))
	}
	for _, c := range familyOrder[notation.FamilyOf(ruleset)] {
		for range min(tiles[c], 40) {
			r.Cells = append(r.Cells, tileCell(ruleset, c, letterOf(ruleset, c), true))
		}
	}
	return r
}

// drawView draws g.View for reader in l's words.
func drawView(l *i18n.Localizer, g GameInfo, reader int) []block {
	v := g.View
	var out []block
	text := func(lines ...string) { out = append(out, block{Text: strings.Join(lines, "\n")}) }
	rows := func(rs ...row) { out = append(out, block{Rows: rs}) }
	pav := notation.FamilyOf(g.Ruleset) == notation.Pavilion
	players := l.N("game.players", len(v.Players))
	heading := ""
	if pav {
		side := "coloured"
		if v.Options.Board == "monochrome" {
			side = "monochrome"
		}
		heading = l.T("mail.board.heading_pavilion", "Title", TitleIn(l, g.Ruleset), "Players", players,
			"Side", l.T("game.board."+side), "Round", l.N("game.round_n", v.Round), "Wild", l.T("tell.colour."+v.Wild))
	} else {
		wall := "coloured"
		if v.Options.Wall == "grey" {
			wall = "grey"
		}
		heading = l.T("mail.board.heading_azul", "Title", TitleIn(l, g.Ruleset), "Players", players,
			"Wall", l.T("game.wall."+wall), "Round", l.N("game.round_n", v.Round))
	}
	head := []string{heading}
	if len(v.ToAct) > 0 && v.Final == nil {
		names := make([]string, len(v.ToAct))
		for i, s := range v.ToAct {
			names[i] = seatLabel(l, g, s, reader)
		}
		head = append(head, l.T("mail.board.to_act", "Names", l.List(names)))
	}
	text(head...)

	var offer []row
	if pav {
		offer = append(offer, countedRow(g.Ruleset, l.T("mail.board.supply"), v.Supply, false))
	}
	for i, f := range v.Factories {
		offer = append(offer, countedRow(g.Ruleset, "F"+strconv.Itoa(i+1), f, false))
	}
	offer = append(offer, countedRow(g.Ruleset, "C", v.Center.Tiles, v.Center.Marker))
	rows(offer...)
	if pav {
		text(l.T("mail.board.bag_tower", "Bag", l.N("game.tiles", v.Bag), "Tower", l.N("game.tiles", v.Discard)))
	} else {
		text(l.T("mail.board.bag_lid", "Bag", l.N("game.tiles", v.Bag), "Lid", l.N("game.tiles", v.Discard)))
	}
	if pav && v.Options.Board == "monochrome" {
		text(l.T("mail.board.costs_monochrome"))
	}

	for _, p := range v.Players {
		var notes []string
		if p.Marker {
			notes = append(notes, l.T("mail.board.holds_marker"))
		}
		if p.Passed {
			notes = append(notes, l.T("mail.board.passed"))
		}
		seat := l.T("mail.board.seat", "Name", seatLabel(l, g, p.Seat, reader), "Points", l.N("game.points", p.Score))
		if len(notes) > 0 {
			seat = l.T("mail.board.seat_notes", "Seat", seat, "Notes", strings.Join(notes, l.T("common.list_separator")))
		}
		text("", seat)
		b, ok := p.Board.(engine.Board)
		if !ok {
			continue
		}
		if pav {
			rows(countedRow(g.Ruleset, l.T("mail.board.hand"), p.Hand, false), countedRow(g.Ruleset, l.T("mail.board.kept"), p.Kept, false))
		}
		rows(boardRows(l, g.Ruleset, b.Drawing())...)
	}
	text("", legend(l, g.Ruleset, v.Options.Wall == "grey"))
	return out
}

// seatLabel is a seat's name, the reader's marked "(you)".
func seatLabel(l *i18n.Localizer, g GameInfo, seat, reader int) string {
	if seat == reader {
		return youLabel(l, g, seat)
	}
	return nameOf(l, g, seat)
}

// boardRows are a seat's board: the columns' numbers, then each row
// with its label. An Azul row's lead is its pattern line (filled from the
// right, ending at the wall) beside the wall's row; a Summer Pavilion
// row is a star (S0 the centre star) with its spaces. The floor line, if
// the board has one, comes last.
func boardRows(l *i18n.Localizer, ruleset string, d engine.Drawing) []row {
	numbers := row{}
	if d.Lead > 0 {
		for range d.Lead + 1 {
			numbers.Cells = append(numbers.Cells, padCell)
		}
	}
	for c := range d.Columns {
		n := strconv.Itoa(c + 1)
		numbers.Cells = append(numbers.Cells, cell{Letter: n, Text: n, Style: cellBase + "color:#777777;font-weight:normal"})
	}
	out := []row{numbers}
	for _, dr := range d.Rows {
		label := dr.Label
		empty := emptyCell()
		switch {
		case dr.Centre:
			label += " " + l.T("mail.board.centre_star")
		case dr.Colour != "":
			label += " " + l.T("tell.colour."+dr.Colour)
			if p, ok := colours[dr.Colour]; ok {
				empty.Style = cellBase + template.CSS("border:1px solid "+p.line+";background:#fafafa")
			}
		}
		rw := row{Label: label}
		if d.Lead > 0 {
			for range d.Lead - len(dr.Lead) {
				rw.Cells = append(rw.Cells, padCell)
			}
			for _, sp := range dr.Lead {
				rw.Cells = append(rw.Cells, spaceCell(ruleset, sp, empty))
			}
			rw.Cells = append(rw.Cells, sepCell)
		}
		for _, sp := range dr.Spaces {
			rw.Cells = append(rw.Cells, spaceCell(ruleset, sp, empty))
		}
		out = append(out, rw)
	}
	if f := d.Floor; f != nil {
		floor := row{Label: l.T("mail.board.floor")}
		for i := range f.Size {
			switch {
			case i >= len(f.Items):
				floor.Cells = append(floor.Cells, emptyCell())
			case f.Items[i] == "marker":
				floor.Cells = append(floor.Cells, markerCell(ruleset))
			default:
				floor.Cells = append(floor.Cells, tileCell(ruleset, f.Items[i], letterOf(ruleset, f.Items[i]), true))
			}
		}
		if len(f.Items) > 0 {
			floor.Label += " (" + l.Signed(f.Penalty) + ")"
		}
		out = append(out, floor)
	}
	return out
}

// spaceCell is a board's space: its tile, else its printed colour, else
// empty.
func spaceCell(ruleset string, sp engine.Space, empty cell) cell {
	switch {
	case sp.Tile != "":
		return tileCell(ruleset, sp.Tile, letterOf(ruleset, sp.Tile), true)
	case sp.Printed != "":
		return tileCell(ruleset, sp.Printed, letterOf(ruleset, sp.Printed), false)
	}
	return empty
}

// legend names the letters in the reader's words.
func legend(l *i18n.Localizer, ruleset string, grey bool) string {
	var items []string
	for _, c := range familyOrder[notation.FamilyOf(ruleset)] {
		items = append(items, letterOf(ruleset, c)+" "+l.T("game.colour."+c))
	}
	if notation.FamilyOf(ruleset) == notation.Pavilion {
		items = append(items, "1 "+l.T("game.term.start_marker"))
		return l.T("mail.board.legend", "Items", strings.Join(items, l.T("common.list_separator"))) + "\n" + l.T("mail.board.stars_hint")
	}
	items = append(items, "M "+l.T("game.term.start_marker"))
	hint := l.T("mail.board.wall_hint")
	if grey {
		hint = l.T("mail.board.wall_hint_grey")
	}
	return l.T("mail.board.legend", "Items", strings.Join(items, l.T("common.list_separator"))) + "\n" + l.T("mail.board.lines_hint") + " " + hint
}

// blocksText writes drawn blocks as the text part's monospace lines:
// labels in a column as wide as the block's widest, cells one character
// and a space each.
func blocksText(blocks []block) string {
	var b strings.Builder
	for _, blk := range blocks {
		if blk.Rows == nil {
			for _, line := range strings.Split(blk.Text, "\n") {
				b.WriteString(wrap(line, textWidth) + "\n")
			}
			continue
		}
		width := 0
		for _, r := range blk.Rows {
			width = max(width, utf8.RuneCountInString(r.Label))
		}
		for _, r := range blk.Rows {
			var line strings.Builder
			line.WriteString("  " + r.Label + strings.Repeat(" ", width-utf8.RuneCountInString(r.Label)))
			for _, c := range r.Cells {
				line.WriteString(" " + c.Text)
			}
			if r.counted && len(r.Cells) == 0 {
				line.WriteString(" –")
			}
			b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
		}
	}
	return strings.Trim(b.String(), "\n")
}

// TableText is a game's table in l's words for a monospace reader that
// is not a mail (the API's text/plain state): the same drawing as a turn
// mail's text part, the reader's seat marked when reader ≥ 0.
func TableText(l *i18n.Localizer, g GameInfo, reader int) string {
	if g.View == nil {
		return ""
	}
	return blocksText(drawView(l, g, reader))
}
