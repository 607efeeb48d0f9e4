package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/i18n/notation"
	"github.com/azuld/azuld/internal/apiclient"
)

// The table is drawn here from the state JSON, in the reader's words
// (the rulebooks' terms: Musterreihe, patroonlijn, …), rather than taken
// from the server's text, which is the engine's English. The layout is
// the engine's: offer, then each board, then a legend of the letters.

// ANSI colours of the tiles of both games.
var tileColours = map[string]string{
	"blue": "34", "yellow": "33", "red": "31", "black": "90", "white": "97",
	"purple": "35", "green": "32", "orange": "38;5;208",
}

// familyColours are each family's colours in the engine's order.
var familyColours = map[notation.Family][]string{
	notation.Azul:     {"blue", "yellow", "red", "black", "white"},
	notation.Pavilion: {"purple", "green", "orange", "yellow", "blue", "red"},
}

// boardDrawer draws one state for one reader.
type boardDrawer struct {
	a      *app
	s      *apiclient.GameResponse
	fam    notation.Family
	colour bool
	// letters are each colour's letter on the boards, in the reader's
	// language (the initial of its word, or the next free letter of it).
	letters map[string]rune
	names   map[int]string
}

// colourLetters gives each colour of a family a capital letter of its
// word in the reader's language, no two the same.
func (a *app) colourLetters(fam notation.Family) map[string]rune {
	out := map[string]rune{}
	used := map[rune]bool{}
	// The language's own initials first (those its notation reads), then
	// for the colours that share one, another letter of their word.
	for _, c := range familyColours[fam] {
		id := "notation.initial_" + string(fam) + "." + c
		if init := []rune(a.l.T(id)); len(init) == 1 && unicode.IsLetter(init[0]) {
			r := unicode.ToUpper(init[0])
			if !used[r] && r != 'M' {
				used[r] = true
				out[c] = r
			}
		}
	}
	for _, c := range familyColours[fam] {
		if _, ok := out[c]; ok {
			continue
		}
		var pick rune
		for _, r := range a.l.T("game.colour." + c) {
			r = unicode.ToUpper(r)
			if unicode.IsLetter(r) && !used[r] && r != 'M' {
				pick = r
				break
			}
		}
		if pick == 0 {
			pick = unicode.ToUpper([]rune(c)[0])
		}
		used[pick] = true
		out[c] = pick
	}
	return out
}

// drawBoardColour is the table of a state as text, coloured when colour
// is on.
func (a *app) drawBoardColour(s *apiclient.GameResponse, colour bool) string {
	fam := notation.FamilyOf(string(s.Ruleset))
	d := &boardDrawer{a: a, s: s, fam: fam, colour: colour, letters: a.colourLetters(fam), names: a.seatNamesOf(s.Seats)}
	var b strings.Builder
	if ph := deref(s.Phase); ph == "" || ph == "none" || ph == "setup" || len(deref(s.Players)) == 0 {
		var free []string
		for _, seat := range s.Seats {
			if seat.Bot == nil && deref(seat.PlayerId) == "" {
				free = append(free, fmt.Sprint(seat.Seat))
			}
		}
		if len(free) == 0 {
			b.WriteString(a.l.T("cli.board.not_started_full") + "\n")
		} else {
			b.WriteString(a.l.N("cli.board.not_started_free", len(free), "Seats", strings.Join(free, ", ")) + "\n")
		}
		return b.String()
	}
	d.header(&b)
	d.toAct(&b)
	d.offer(&b)
	for _, p := range deref(s.Players) {
		b.WriteString("\n")
		if fam == notation.Pavilion {
			d.pavilionBoard(&b, p)
		} else {
			d.azulBoard(&b, p)
		}
	}
	d.final(&b)
	d.legend(&b)
	return b.String()
}

// paint colours text when colour is on; dim for an empty wall space.
func (d *boardDrawer) paint(text, colour string, dim bool) string {
	code, ok := tileColours[colour]
	if !d.colour || !ok {
		return text
	}
	if dim {
		return "\x1b[2;" + code + "m" + text + "\x1b[0m"
	}
	return "\x1b[1;" + code + "m" + text + "\x1b[0m"
}

// colourWord is a colour's word, coloured.
func (d *boardDrawer) colourWord(c string) string {
	w := d.a.l.T("game.colour." + c)
	if code, ok := tileColours[c]; ok && d.colour {
		return "\x1b[" + code + "m" + w + "\x1b[0m"
	}
	return w
}

// letter is a tile on a board.
func (d *boardDrawer) letter(c string) string {
	r, ok := d.letters[c]
	if !ok {
		return "?"
	}
	return d.paint(string(r), c, false)
}

func (d *boardDrawer) header(b *strings.Builder) {
	l := d.a.l
	s := d.s
	parts := []string{d.a.ruleset(string(s.Ruleset)), l.N("game.players", len(deref(s.Players)))}
	if o := s.Options; o != nil {
		if o.Wall != nil && d.fam == notation.Azul {
			parts = append(parts, l.T("game.wall."+string(*o.Wall)))
		}
		if o.Board != nil && d.fam == notation.Pavilion {
			parts = append(parts, l.T("game.board."+string(*o.Board)))
		}
	}
	round := deref(s.Round)
	if round > 0 {
		if d.fam == notation.Pavilion {
			parts = append(parts, l.T("cli.board.round_of", "Round", round, "Rounds", 6))
		} else {
			parts = append(parts, l.N("game.round_n", round))
		}
	}
	if ph := deref(s.Phase); ph != "" {
		parts = append(parts, d.a.phase(ph))
	}
	b.WriteString(strings.Join(parts, ", ") + "\n")
	if w := deref(s.Wild); w != "" && d.fam == notation.Pavilion {
		b.WriteString(l.T("cli.board.wild", "Colour", d.colourWord(w)) + "\n")
	}
}

// toAct says who does what now: "Ana (you) to take tiles."
func (d *boardDrawer) toAct(b *strings.Builder) {
	s := d.s
	if s.Status != "active" || len(s.ToAct) == 0 {
		return
	}
	var who []string
	for _, seat := range s.ToAct {
		name := d.a.seatName(d.names, seat)
		if slices.Contains(s.YourSeats, seat) {
			name = d.a.l.T("cli.seat.you_after", "Name", name)
		}
		who = append(who, name)
	}
	id := "cli.board.to_act." + deref(s.Phase)
	if !d.a.cat.Has(id) {
		id = "cli.board.to_act.default"
	}
	b.WriteString(d.a.l.T(id, "Names", d.a.l.List(who)) + "\n")
}

// phase is a phase of a round in words.
func (a *app) phase(p string) string {
	if id := "cli.phase." + p; a.cat.Has(id) {
		return a.l.T(id)
	}
	return p
}

// counts is "2 blue, 1 red" in the reader's words, "-" when empty.
func (d *boardDrawer) counts(m map[string]int) string {
	var parts []string
	for _, c := range familyColours[d.fam] {
		if n := m[c]; n > 0 {
			// "2 bianchi": the colour agrees with its count.
			text := d.a.l.N("game.tiles_of."+c, n)
			if code, ok := tileColours[c]; ok && d.colour {
				text = "\x1b[" + code + "m" + text + "\x1b[0m"
			}
			parts = append(parts, text)
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

func (d *boardDrawer) offer(b *strings.Builder) {
	l := d.a.l
	s := d.s
	b.WriteString("\n")
	if d.fam == notation.Pavilion && s.Supply != nil {
		b.WriteString(l.T("cli.board.supply", "Tiles", d.counts(*s.Supply)) + "\n")
	}
	for i, f := range deref(s.Factories) {
		fmt.Fprintf(b, "F%-2d %s\n", i+1, d.counts(f))
	}
	centre := "-"
	marker := false
	if c := s.Center; c != nil {
		centre = d.counts(deref(c.Tiles))
		marker = deref(c.Marker)
	}
	if marker {
		m := l.T("cli.board.marker_" + string(d.fam))
		if centre == "-" {
			centre = m
		} else {
			centre = m + ", " + centre
		}
	}
	fmt.Fprintf(b, "C   %s\n", centre)
	bagID := "cli.board.bag_azul"
	if d.fam == notation.Pavilion {
		bagID = "cli.board.bag_pavilion"
	}
	b.WriteString(l.T(bagID, "Bag", l.N("game.tiles", deref(s.Bag)), "Discard", l.N("game.tiles", deref(s.Discard))) + "\n")
}

// playerLine is a board's first line: whose it is, the score, what they
// hold.
func (d *boardDrawer) playerLine(p apiclient.PlayerView, extra ...string) string {
	l := d.a.l
	seat := deref(p.Seat)
	name := d.a.seatName(d.names, seat)
	if slices.Contains(d.s.YourSeats, seat) {
		name = l.T("cli.seat.you_after", "Name", name)
	}
	parts := []string{l.N("game.points", deref(p.Score))}
	if deref(p.Marker) {
		parts = append(parts, l.T("cli.board.holds_marker_"+string(d.fam)))
	}
	if deref(p.Passed) {
		parts = append(parts, l.T("cli.board.passed"))
	}
	parts = append(parts, extra...)
	return name + ": " + strings.Join(parts, ", ") + "\n"
}

// azulBoardView is an Azul board as the state JSON has it.
type azulBoardView struct {
	Lines []struct {
		Color *string `json:"color"`
		Count int     `json:"count"`
	} `json:"lines"`
	Wall        [5][5]*string `json:"wall"`
	Floor       []string      `json:"floor"`
	PendingLine int           `json:"pending_line"`
}

func (d *boardDrawer) azulBoard(b *strings.Builder, p apiclient.PlayerView) {
	l := d.a.l
	var bv azulBoardView
	if err := remarshal(p.Board, &bv); err != nil {
		b.WriteString(l.T("cli.board.unreadable") + "\n")
		return
	}
	var extra []string
	if bv.PendingLine > 0 {
		extra = append(extra, l.T("cli.board.pending_line", "Line", bv.PendingLine))
	}
	b.WriteString(d.playerLine(p, extra...))
	grey := d.s.Options != nil && d.s.Options.Wall != nil && *d.s.Options.Wall == "grey"
	var opts engine.Options
	if grey {
		opts.Wall = "grey"
	}
	// The printed colours of the wall's spaces are the engine's.
	drawing := d.drawing(p.Board, opts)
	// The wall's column numbers stand over its spaces (they are the
	// columns of "tile 2 4").
	fmt.Fprintf(b, "%s%s\n%s 1 2 3 4 5\n", pad("  "+l.T("game.term.pattern_lines"), 17), l.T("game.term.wall"), strings.Repeat(" ", 16))
	for r := range 5 {
		cells := make([]string, 5)
		for k := range 5 {
			cells[k] = " "
		}
		// Line r+1 has r+1 spaces ending at the right; tiles fill from the right.
		for k := range r + 1 {
			cells[4-k] = "."
			if r < len(bv.Lines) && k < bv.Lines[r].Count && bv.Lines[r].Color != nil {
				cells[4-k] = d.letter(*bv.Lines[r].Color)
			}
		}
		fmt.Fprintf(b, "  %d  %s |", r+1, strings.Join(cells, " "))
		for col := range 5 {
			cell := "."
			switch c := bv.Wall[r][col]; {
			case c != nil:
				cell = d.letter(*c)
			case printed(drawing, r, col) != "":
				space := printed(drawing, r, col)
				cell = d.paint(strings.ToLower(string(d.letters[space])), space, true)
			}
			b.WriteString(" " + cell)
		}
		b.WriteString("\n")
	}
	b.WriteString("  " + l.T("game.term.floor_line") + ":")
	for i := range 7 {
		switch {
		case i < len(bv.Floor) && bv.Floor[i] == "marker":
			b.WriteString(" " + d.paint("M", "", false))
		case i < len(bv.Floor):
			b.WriteString(" " + d.letter(bv.Floor[i]))
		default:
			b.WriteString(" .")
		}
	}
	if n := len(bv.Floor); n > 0 {
		fmt.Fprintf(b, "  (%s)", l.Num(-floorPenalty(n)))
	}
	b.WriteString("\n")
}

// floorPenalty is what n tiles on the floor line cost (the rules'
// -1 -1 -2 -2 -2 -3 -3).
func floorPenalty(n int) int {
	steps := []int{0, 1, 2, 4, 6, 8, 11, 14}
	return steps[min(n, 7)]
}

// pavilionBoardView is a Summer Pavilion board as the state JSON has it.
type pavilionBoardView struct {
	Stars       [7][6]*string `json:"stars"`
	StarColours [7]*string    `json:"star_colours"`
}

func (d *boardDrawer) pavilionBoard(b *strings.Builder, p apiclient.PlayerView) {
	l := d.a.l
	var bv pavilionBoardView
	if err := remarshal(p.Board, &bv); err != nil {
		b.WriteString(l.T("cli.board.unreadable") + "\n")
		return
	}
	b.WriteString(d.playerLine(p))
	b.WriteString("  " + l.T("cli.board.hand", "Tiles", d.counts(deref(p.Hand))) + "\n")
	b.WriteString("  " + l.T("cli.board.kept", "Tiles", d.counts(deref(p.Kept))) + "\n")
	labels := make([]string, 7)
	width := 0
	for star := range 7 {
		switch {
		case star == 0:
			labels[star] = l.T("game.term.centre_star")
		case bv.StarColours[star] != nil:
			labels[star] = l.T("game.colour." + *bv.StarColours[star])
		}
		width = max(width, utf8.RuneCountInString(labels[star]))
	}
	// The space numbers stand over the spaces: "  S0  " and the widest
	// label before them.
	fmt.Fprintf(b, "%s 1 2 3 4 5 6\n", strings.Repeat(" ", 6+width))
	for star := range 7 {
		fmt.Fprintf(b, "  S%d  %s", star, padExact(labels[star], width))
		for _, c := range bv.Stars[star] {
			if c == nil {
				b.WriteString(" .")
			} else {
				b.WriteString(" " + d.letter(*c))
			}
		}
		b.WriteString("\n")
	}
}

func (d *boardDrawer) final(b *strings.Builder) {
	f := d.s.Final
	if f == nil || f.Players == nil {
		return
	}
	l := d.a.l
	b.WriteString("\n" + l.T("cli.board.final") + "\n")
	players := slices.Clone(*f.Players)
	sort.SliceStable(players, func(i, j int) bool { return deref(players[i].Rank) < deref(players[j].Rank) })
	for _, p := range players {
		line := fmt.Sprintf("  %d. %s: %s", deref(p.Rank), d.a.seatName(d.names, deref(p.Seat)), l.N("game.points", deref(p.Score)))
		for _, item := range deref(p.Breakdown) {
			if deref(item.Item) == "play" {
				continue
			}
			line += fmt.Sprintf(", %s %d (%s)", d.a.scoreItem(deref(item.Item)), deref(item.Count), l.Signed(deref(item.Points)))
		}
		if deref(p.Resigned) {
			line += ", " + l.T("cli.board.resigned")
		}
		b.WriteString(line + "\n")
	}
}

// scoreItem names a line of the final scoring.
func (a *app) scoreItem(item string) string {
	if id := "cli.board.item." + item; a.cat.Has(id) {
		return a.l.T(id)
	}
	for _, prefix := range []string{"star_", "all_"} {
		if rest, ok := strings.CutPrefix(item, prefix); ok {
			return a.l.T("cli.board.item."+strings.TrimSuffix(prefix, "_"), "What", rest)
		}
	}
	return item
}

func (d *boardDrawer) legend(b *strings.Builder) {
	l := d.a.l
	var parts []string
	for _, c := range familyColours[d.fam] {
		parts = append(parts, fmt.Sprintf("%s %s", d.letter(c), d.colourWord(c)))
	}
	if d.fam == notation.Azul {
		parts = append(parts, "M "+l.T("game.term.start_marker"))
	}
	b.WriteString("\n" + l.T("cli.board.legend", "Letters", strings.Join(parts, ", ")) + "\n")
	if d.fam == notation.Azul {
		grey := d.s.Options != nil && d.s.Options.Wall != nil && *d.s.Options.Wall == "grey"
		if grey {
			b.WriteString(l.T("cli.board.legend_grey") + "\n")
		} else {
			b.WriteString(l.T("cli.board.legend_coloured") + "\n")
		}
	}
}

// padExact pads s with spaces to n characters (runes, not bytes).
func padExact(s string, n int) string {
	if k := utf8.RuneCountInString(s); k < n {
		return s + strings.Repeat(" ", n-k)
	}
	return s
}

// pad pads s with spaces to n characters (runes, not bytes), and leaves
// at least one space after a longer s.
func pad(s string, n int) string {
	if k := utf8.RuneCountInString(s); k < n {
		return s + strings.Repeat(" ", n-k)
	}
	return s + " "
}

// remarshal reads a JSON object decoded into a map into its type.
// drawing is a board of the state JSON as the engine draws it, without
// knowing its family (an empty drawing for a board it cannot read).
func (d *boardDrawer) drawing(board any, opts engine.Options) engine.Drawing {
	rules, err := rulesets.All().Get(string(d.s.Ruleset))
	if err != nil {
		return engine.Drawing{}
	}
	data, err := json.Marshal(board)
	if err != nil {
		return engine.Drawing{}
	}
	b, err := rules.DecodeBoard(data, opts)
	if err != nil {
		return engine.Drawing{}
	}
	return b.Drawing()
}

// printed is the colour printed on a board's space, "" for none.
func printed(d engine.Drawing, row, col int) string {
	if row < len(d.Rows) && col < len(d.Rows[row].Spaces) {
		return d.Rows[row].Spaces[col].Printed
	}
	return ""
}

func remarshal(from any, to any) error {
	body, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(body, to)
}
