package compose

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/azuld/azuld/engine"
)

// textWidth is where the text part wraps prose; the board (≤ 72 columns)
// and the move columns fit it too, well under the 78 of RFC 5322.
const textWidth = 72

// doc is the content of one mail, rendered to text and to HTML from the
// same data so both parts always say the same.
type doc struct {
	greeting  string
	intro     []string
	game      GameInfo
	board     bool
	showMoves bool
	moves     []engine.Move
	final     []finalRow
	gameURL   string
	stopURL   string
}

// replyHint fits one line of the text part.
const replyHint = `Answer with the number, the notation or the JSON of one move.`

func (d *doc) text() string {
	var b strings.Builder
	b.WriteString(d.greeting + "\n\n")
	for _, p := range d.intro {
		b.WriteString(wrap(p, textWidth) + "\n\n")
	}
	if d.board && strings.TrimSpace(d.game.Board) != "" {
		b.WriteString(strings.TrimRight(strings.ReplaceAll(d.game.Board, "\r\n", "\n"), "\n") + "\n\n")
	}
	if len(d.final) > 0 {
		b.WriteString("Final result:\n")
		for _, r := range d.final {
			line := fmt.Sprintf("  %d. %s: %d points", r.Rank, r.Name, r.Score)
			if r.Resigned {
				line += " (resigned)"
			}
			b.WriteString(line + "\n")
			var items []string
			for _, it := range r.Items {
				items = append(items, fmt.Sprintf("%s %d×: %+d", it.Item, it.Count, it.Points))
			}
			if len(items) > 0 {
				b.WriteString(indent(wrap(strings.Join(items, ", "), textWidth-5), "     ") + "\n")
			}
		}
		b.WriteString("\n")
	} else if ps := d.scores(); len(ps) > 0 {
		var scores []string
		for _, p := range ps {
			scores = append(scores, fmt.Sprintf("%s %d", p.Name, p.Score))
		}
		b.WriteString(wrap("Scores: "+strings.Join(scores, ", "), textWidth) + "\n\n")
	}
	if d.showMoves {
		b.WriteString(fmt.Sprintf("Your legal moves at version %d:\n", d.game.Version))
		if len(d.moves) == 0 {
			b.WriteString("  (none)\n")
		}
		b.WriteString(moveColumns(d.moves))
		b.WriteString("\n" + wrap(replyHint, textWidth) + "\n")
		if len(d.moves) > 0 {
			b.WriteString(wrap(fmt.Sprintf(`For example: "1" or %q.`, d.moves[0].Notation), textWidth) + "\n")
		}
		b.WriteString("\n")
	}
	b.WriteString("Game page: " + d.gameURL + "\n")
	if d.stopURL != "" {
		b.WriteString("\n-- \n")
		b.WriteString(wrap(`To stop mails about this game, reply "stop" or open:`, textWidth) + "\n")
		b.WriteString(d.stopURL + "\n")
	}
	return b.String()
}

// scores are the players of the score line, names cleaned: nil unless the
// mail shows the board and no final result.
func (d *doc) scores() []PlayerScore {
	if !d.board || len(d.final) > 0 {
		return nil
	}
	var ps []PlayerScore
	for _, p := range d.game.Players {
		ps = append(ps, PlayerScore{Seat: p.Seat, Name: cleanName(p.Name, "seat "+strconv.Itoa(p.Seat)), Score: p.Score})
	}
	return ps
}

// moveColumns lists moves as "  n. notation" in as many columns as fit.
func moveColumns(moves []engine.Move) string {
	cells := make([]string, len(moves))
	width := 0
	for i, m := range moves {
		cells[i] = fmt.Sprintf("%4d. %s", i+1, oneLine(m.Notation, 60))
		width = max(width, utf8.RuneCountInString(cells[i]))
	}
	cols := max(1, (textWidth+2)/(width+2))
	rows := (len(cells) + cols - 1) / cols
	var b strings.Builder
	for r := 0; r < rows; r++ {
		var line strings.Builder
		for c := 0; c < cols; c++ {
			i := c*rows + r // down the columns, like ls
			if i >= len(cells) {
				break
			}
			if c > 0 {
				line.WriteString("  ")
			}
			line.WriteString(cells[i])
			line.WriteString(strings.Repeat(" ", width-utf8.RuneCountInString(cells[i])))
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	return b.String()
}

// wrap breaks s at spaces into lines of at most width runes (a longer
// word, such as a link, stays whole on its own line).
func wrap(s string, width int) string {
	var b strings.Builder
	n := 0
	for _, w := range strings.Fields(s) {
		l := utf8.RuneCountInString(w)
		if n > 0 && n+1+l > width {
			b.WriteByte('\n')
			n = 0
		}
		if n > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += l
	}
	return b.String()
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// htmlMove is one numbered move of the HTML part.
type htmlMove struct {
	N              int
	Notation, JSON string
}

func (d *doc) html() string {
	data := map[string]any{
		"Greeting": d.greeting,
		"Intro":    d.intro,
		"Final":    d.final,
		"GameURL":  d.gameURL,
		"StopURL":  d.stopURL,
		"Version":  d.game.Version,
		"Hint":     replyHint,
		"Title":    Title(d.game.Ruleset),
	}
	if d.board && strings.TrimSpace(d.game.Board) != "" {
		data["Board"] = strings.TrimRight(d.game.Board, "\n")
	}
	if ps := d.scores(); len(ps) > 0 {
		data["Players"] = ps
	}
	if d.showMoves {
		ms := make([]htmlMove, len(d.moves))
		for i, m := range d.moves {
			ms[i] = htmlMove{N: i + 1, Notation: m.Notation, JSON: string(m.JSON)}
		}
		data["ShowMoves"] = true
		data["Moves"] = ms
	}
	var b strings.Builder
	if err := page.Execute(&b, data); err != nil {
		// The template and its data are ours; an error here is a bug, and
		// the text part still says everything.
		return "<!DOCTYPE html><p>" + template.HTMLEscapeString(err.Error()) + "</p>"
	}
	return b.String()
}

var page = template.Must(template.New("mail").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{{.Title}}</title></head>
<body style="font-family:sans-serif;line-height:1.4">
<p>{{.Greeting}}</p>
{{range .Intro}}<p>{{.}}</p>
{{end}}{{with .Board}}<pre style="font-family:monospace;font-size:13px;line-height:1.2">{{.}}</pre>
{{end}}{{with .Players}}<p>Scores: {{range $i, $p := .}}{{if $i}}, {{end}}{{$p.Name}} {{$p.Score}}{{end}}</p>
{{end}}{{with .Final}}<table cellpadding="4" style="border-collapse:collapse">
<tr><th>rank</th><th>player</th><th>points</th><th>breakdown</th></tr>
{{range .}}<tr><td>{{.Rank}}</td><td>{{.Name}}{{if .Resigned}} (resigned){{end}}</td><td>{{.Score}}</td><td>{{range $i, $it := .Items}}{{if $i}}, {{end}}{{$it.Item}} {{$it.Count}}×: {{printf "%+d" $it.Points}}{{end}}</td></tr>
{{end}}</table>
{{end}}{{if .ShowMoves}}<p>Your legal moves at version {{.Version}}:</p>
<ol style="font-family:monospace">
{{range .Moves}}<li title="{{.JSON}}">{{.Notation}}</li>
{{else}}<li>(none)</li>
{{end}}</ol>
<p>{{.Hint}}</p>
{{end}}<p><a href="{{.GameURL}}">Open the game page</a></p>
{{with .StopURL}}<hr>
<p style="font-size:small">To stop mails about this game, reply “stop” or <a href="{{.}}">click here</a>.</p>
{{end}}</body></html>
`))
