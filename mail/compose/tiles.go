package compose

import (
	"html/template"
	"regexp"
	"strconv"
	"strings"
)

// The HTML part draws the table with coloured cells: each tile is a table
// cell in its colour holding its letter (so the table reads without
// colour too), empty spaces are pale, and lines that are not tiles stay
// text. No images and no scripts: mail programs block both, and plain
// tables with inline styles are what they all render.

// palette is a colour's cell: background and letter colour, and the
// colour that outlines an empty space of that colour (visible on white).
type palette struct{ bg, fg, line string }

var colours = map[string]palette{
	"blue":   {"#1f6fd1", "#ffffff", "#1f6fd1"},
	"yellow": {"#f3c614", "#222222", "#b38f00"},
	"red":    {"#d1322b", "#ffffff", "#d1322b"},
	"black":  {"#262626", "#ffffff", "#262626"},
	"white":  {"#f6f3ea", "#222222", "#8a8a8a"},
	"orange": {"#f08a24", "#222222", "#c4650a"},
	"purple": {"#7a3fa3", "#ffffff", "#7a3fa3"},
	"green":  {"#2e9a4b", "#ffffff", "#2e9a4b"},
	"marker": {"#cfcfcf", "#222222", "#8a8a8a"},
}

// letters maps a family's tile letters to colours: Azul writes black K,
// Summer Pavilion has no black and writes each colour's initial.
func letters(ruleset string) map[byte]string {
	if strings.HasPrefix(ruleset, "summer-pavilion") {
		return map[byte]string{'P': "purple", 'O': "orange", 'R': "red", 'B': "blue", 'Y': "yellow", 'G': "green"}
	}
	return map[byte]string{'B': "blue", 'Y': "yellow", 'R': "red", 'K': "black", 'W': "white", 'M': "marker"}
}

// letterOf is the letter a colour name is drawn with.
func letterOf(ruleset, colour string) string {
	for l, c := range letters(ruleset) {
		if c == colour {
			return string(l)
		}
	}
	if colour == "" {
		return "?"
	}
	return strings.ToUpper(colour[:1])
}

var (
	// gridLine is a label and at least three one-character cells: a
	// pattern line and its wall row, a star, a floor line.
	gridLine = regexp.MustCompile(`^\s*(.*?)\s+((?:[.A-Za-z|] ){2,}[.A-Za-z|])\s*(\([^()]*\))?\s*$`)
	// numberLine is the column numbers above a wall or the stars.
	numberLine = regexp.MustCompile(`^[A-Za-z ]*?((?:\d ){2,}\d)\s*$`)
	// starLabel names a Summer Pavilion star and its colour.
	starLabel = regexp.MustCompile(`^S\d ([a-z]+)$`)
	// countLine is a label and a list of "2 blue" or "blue 2" items (an
	// offer, the supply, a hand).
	countLine = regexp.MustCompile(`^\s*(F\d+:?|C:?|Supply:|hand:|kept:)\s+(.+)$`)
	countItem = regexp.MustCompile(`^(?:(\d+) ([a-z]+(?: marker)?)|([a-z]+) (\d+))$`)
)

func allColours(words []string) bool {
	for _, w := range words {
		if _, ok := colours[w]; !ok || w == "marker" {
			return false
		}
	}
	return true
}

// cell is one drawn space.
type cell struct {
	// Letter is drawn in the HTML cell, Text in the text part.
	Letter, Text string
	// Style is one of the fixed styles above, never player input.
	Style template.CSS
}

// row is a drawn line of the table: a label and its cells.
type row struct {
	Label string
	Cells []cell
	// right aligns the cells on the right (pattern lines on the wall).
	right bool
	// counted marks a row of counted tiles (an offer, a hand): those and
	// the board's rows go in tables of their own, whose columns differ.
	counted bool
}

// block is a run of lines: drawn rows, or text.
type block struct {
	Rows []row
	Text string
}

const cellBase template.CSS = "width:20px;height:20px;padding:0;text-align:center;vertical-align:middle;font:bold 12px/20px monospace;"

func tileCell(ruleset, colour, letter string, tile bool) cell {
	p, ok := colours[colour]
	switch {
	case !ok:
		return cell{letter, letter, cellBase + "border:1px solid #bbbbbb;color:#555555"}
	case tile:
		return cell{letter, letter, cellBase + template.CSS("border:1px solid #555555;background:"+p.bg+";color:"+p.fg)}
	}
	// An empty wall space that takes this colour: pale, letter small.
	small := strings.ToLower(letter)
	return cell{small, small, cellBase + template.CSS("border:1px dashed "+p.line+";background:#fafafa;color:"+p.line+";font-weight:normal")}
}

// drawLine returns the drawn row of a line of the table, ok false for a
// line that stays text.
func drawLine(ruleset, line string) (row, bool) {
	if m := countLine.FindStringSubmatch(line); m != nil {
		r := row{Label: strings.TrimSuffix(m[1], ":"), counted: true}
		for _, it := range strings.Split(m[2], ", ") {
			it = strings.TrimSpace(it)
			switch it {
			case "-":
				continue
			case "start marker", "token":
				it = "1 start marker"
			}
			if words := strings.Fields(it); len(words) >= 1 && allColours(words) {
				// Summer Pavilion's factories: one word a tile.
				for _, w := range words {
					r.Cells = append(r.Cells, tileCell(ruleset, w, letterOf(ruleset, w), true))
				}
				continue
			}
			c := countItem.FindStringSubmatch(it)
			if c == nil {
				return row{}, false
			}
			n, colour := c[1], c[2]
			if n == "" {
				n, colour = c[4], c[3]
			}
			count, _ := strconv.Atoi(n)
			if colour == "start marker" {
				r.Cells = append(r.Cells, cell{"1", "1", cellBase + "border:1px solid #555555;background:#cfcfcf;color:#222222"})
				continue
			}
			if _, ok := colours[colour]; !ok || count > 30 {
				return row{}, false
			}
			for range count {
				r.Cells = append(r.Cells, tileCell(ruleset, colour, letterOf(ruleset, colour), true))
			}
		}
		return r, true
	}
	if m := numberLine.FindStringSubmatch(line); m != nil {
		r := row{right: true}
		for _, n := range strings.Fields(m[1]) {
			r.Cells = append(r.Cells, cell{n, n, cellBase + "color:#777777;font-weight:normal"})
		}
		return r, true
	}
	m := gridLine.FindStringSubmatch(line)
	if m == nil {
		return row{}, false
	}
	lt := letters(ruleset)
	// The empty spaces of a coloured star take its colour.
	empty := cell{"", ".", cellBase + "border:1px solid #cccccc;background:#f2f2f2"}
	if sl := starLabel.FindStringSubmatch(m[1]); sl != nil {
		if p, ok := colours[sl[1]]; ok {
			empty.Style = cellBase + template.CSS("border:1px solid "+p.line+";background:#fafafa")
		}
	}
	// Pattern lines end at the wall, on the right; a floor line starts
	// on the left.
	r := row{Label: m[1], right: m[1] != "floor"}
	for _, tok := range strings.Fields(m[2]) {
		c := tok[0]
		switch {
		case c == '.':
			r.Cells = append(r.Cells, empty)
		case c == '|':
			r.Cells = append(r.Cells, cell{"", "|", "width:8px;padding:0"})
		case c >= 'A' && c <= 'Z':
			r.Cells = append(r.Cells, tileCell(ruleset, lt[c], string(c), true))
		default:
			r.Cells = append(r.Cells, tileCell(ruleset, lt[c-'a'+'A'], string(c-'a'+'A'), false))
		}
	}
	if m[3] != "" {
		// A note after the cells, such as the floor's penalty, goes with
		// the label: a cell of its own would widen a column of the wall.
		r.Label += " " + m[3]
	}
	return r, true
}

// drawBoard splits the table into drawn rows and text. Rows of one run
// are right-aligned, as the text aligns pattern lines on the wall.
func drawBoard(ruleset, board string) []block {
	var out []block
	var text []string
	var rows []row
	flushText := func() {
		if len(text) > 0 {
			out = append(out, block{Text: strings.Join(text, "\n")})
			text = nil
		}
	}
	flushRows := func() {
		if len(rows) == 0 {
			return
		}
		width := 0
		for _, r := range rows {
			width = max(width, len(r.Cells))
		}
		for i := range rows {
			if pad := width - len(rows[i].Cells); pad > 0 && rows[i].right {
				rows[i].Cells = append(make([]cell, pad), rows[i].Cells...)
			}
		}
		out = append(out, block{Rows: rows})
		rows = nil
	}
	for _, line := range strings.Split(strings.TrimRight(board, "\n"), "\n") {
		if r, ok := drawLine(ruleset, line); ok {
			flushText()
			if len(rows) > 0 && rows[0].counted != r.counted {
				flushRows()
			}
			rows = append(rows, r)
			continue
		}
		flushRows()
		text = append(text, line)
	}
	flushText()
	flushRows()
	return out
}

var boardTemplate = template.Must(template.New("board").Parse(`{{range .}}{{if .Rows}}<table cellspacing="2" cellpadding="0" style="border-collapse:separate;margin:2px 0">
{{range .Rows}}<tr><td style="padding:0 6px 0 0;font:12px monospace;white-space:nowrap">{{.Label}}</td>{{range .Cells}}<td style="{{.Style}}">{{.Letter}}</td>{{end}}</tr>
{{end}}</table>
{{else}}<pre style="font-family:monospace;font-size:12px;line-height:1.3;margin:6px 0;white-space:pre-wrap">{{.Text}}</pre>
{{end}}{{end}}`))
