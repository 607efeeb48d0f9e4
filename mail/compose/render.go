package compose

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/i18n"
)

// textWidth is where the text part wraps prose; the board (≤ 72 columns)
// and the move columns fit it too, well under the 78 of RFC 5322.
const textWidth = 72

// doc is the content of one mail, rendered to text and to HTML from the
// same data so both parts always say the same.
type doc struct {
	// l writes the reader's language; say a move in their words.
	l        *i18n.Localizer
	say      func(canonical string) string
	greeting string
	// news is what happened since the reader's last move, told first.
	news      []NewsItem
	intro     []string
	game      GameInfo
	board     bool
	showMoves bool
	moves     []engine.Move
	final     []finalRow
	gameURL   string
	stopURL   string
	// seat is the reader's (their board is marked), stopped whether they
	// stopped the game's mails, subject the mail's.
	seat    int
	stopped bool
	subject string
	// drawn caches the drawn table: both parts show it.
	drawn []block
	// talkAfterIntro shows the table talk (game.Talk) right after the
	// intro, without a heading (the mail is about it); otherwise it
	// follows the news under its heading. outro are paragraphs after it.
	talkAfterIntro bool
	outro          []string
}

// table is the table the mail shows in the text part: drawn from the
// state in the reader's words, or (without a state) the engine's text
// with names for seats, the result left to the mail's own table.
func (d *doc) table() string {
	if !d.board {
		return ""
	}
	if d.game.View != nil {
		return blocksText(d.blocks())
	}
	if strings.TrimSpace(d.game.Board) == "" {
		return ""
	}
	// The engine's own result block speaks in seat numbers and item
	// codes: the game-over mail gives the result in words instead.
	b := withoutResult(boardText(d.l, d.game, d.seat))
	return strings.TrimRight(strings.ReplaceAll(b, "\r\n", "\n"), "\n")
}

// blocks is the drawn table: from the state when there is one.
func (d *doc) blocks() []block {
	if d.drawn == nil {
		if d.game.View != nil {
			d.drawn = drawView(d.l, d.game, d.seat)
		} else {
			d.drawn = drawBoard(d.game.Ruleset, d.table())
		}
	}
	return d.drawn
}

// Numbered is the list of moves a mail numbers: every legal move, except
// that when there are several ways to pass (Summer Pavilion's placing
// phase has one for every choice of tiles to keep, some two hundred) they
// are left out and the mail describes passing once; passes is then true.
// A number in a reply counts in this list.
func Numbered(moves []engine.Move) (numbered []engine.Move, passes bool) {
	n := 0
	for _, m := range moves {
		if isPass(m) {
			n++
		}
	}
	if n < 2 {
		return moves, false
	}
	numbered = make([]engine.Move, 0, len(moves)-n)
	for _, m := range moves {
		if !isPass(m) {
			numbered = append(numbered, m)
		}
	}
	return numbered, true
}

func isPass(m engine.Move) bool {
	return m.Notation == "pass" || strings.HasPrefix(m.Notation, "pass ")
}

// passHint describes passing once, with a pass from the legal moves as
// the example.
func (d *doc) passHint(moves []engine.Move) string {
	example := ""
	for _, m := range moves {
		if isPass(m) && strings.Count(m.Notation, " ") > strings.Count(example, " ") && strings.Count(m.Notation, " ") <= 3 {
			example = m.Notation
		}
	}
	if example == "" {
		return d.l.T("mail.moves.pass", "Pass", d.say("pass"))
	}
	return d.l.T("mail.moves.pass_keep", "Example", d.say(example), "Pass", d.say("pass"))
}

// onlyPass is what a mail says instead of a list of moves when every
// legal move is a pass (Summer Pavilion, when no tile of the hand can be
// placed): an empty list under "Your legal moves" reads as a fault.
func (d *doc) onlyPass(moves []engine.Move, version int64) (heading, how string) {
	heading = d.l.T("mail.moves.only_pass", "Version", strconv.FormatInt(version, 10))
	how = d.l.T("mail.moves.only_pass_how", "Pass", d.say("pass"))
	example := ""
	for _, m := range moves {
		if strings.HasPrefix(m.Notation, "pass keep ") && strings.Count(m.Notation, " ") <= 3 && len(m.Notation) > len(example) {
			example = m.Notation
		}
	}
	if example != "" {
		how = d.l.T("mail.moves.only_pass_keep", "Pass", d.say("pass"), "Example", d.say(example))
	}
	return heading, how
}

func (d *doc) text() string {
	l := d.l
	var b strings.Builder
	b.WriteString(d.greeting + "\n\n")
	b.WriteString(newsText(newsBlocks(l, d.game, d.seat, d.news)))
	talk := talkBlocks(l, d.game.Talk)
	if !d.talkAfterIntro {
		b.WriteString(talkText(l, l.T("talkmail.mail.heading"), talk, d.game.TalkEarlier))
	}
	for _, p := range d.intro {
		b.WriteString(wrap(p, textWidth) + "\n\n")
	}
	if d.talkAfterIntro {
		b.WriteString(talkText(l, "", talk, d.game.TalkEarlier))
	}
	for _, p := range d.outro {
		b.WriteString(wrap(p, textWidth) + "\n\n")
	}
	if board := d.table(); board != "" {
		b.WriteString(board + "\n\n")
	}
	if len(d.final) > 0 {
		b.WriteString(l.T("mail.final.heading") + "\n")
		for _, r := range d.final {
			line := l.T("mail.final.row", "Rank", strconv.Itoa(r.Rank), "Name", r.Name, "Points", r.Points)
			if r.Resigned != "" {
				line += " " + r.Resigned
			}
			b.WriteString("  " + line + "\n")
			for _, it := range r.Items {
				b.WriteString(indent(wrap(it, textWidth-7), "       ") + "\n")
			}
		}
		b.WriteString("\n")
	} else if s := d.scoreLine(); s != "" {
		b.WriteString(wrap(s, textWidth) + "\n\n")
	}
	if numbered, passes := Numbered(d.moves); d.showMoves && passes && len(numbered) == 0 {
		heading, how := d.onlyPass(d.moves, d.game.Version)
		b.WriteString(wrap(heading, textWidth) + "\n" + wrap(how, textWidth) + "\n\n")
	} else if d.showMoves {
		b.WriteString(l.T("mail.moves.heading", "Version", strconv.FormatInt(d.game.Version, 10)) + "\n")
		b.WriteString(moveColumns(numbered, d.say))
		if passes {
			b.WriteString(wrap(d.passHint(d.moves), textWidth) + "\n")
		}
		b.WriteString("\n" + wrap(l.T("mail.moves.hint"), textWidth) + "\n")
		if len(numbered) > 0 {
			b.WriteString(wrap(l.T("mail.moves.example", "Move", d.say(numbered[0].Notation)), textWidth) + "\n")
		}
		b.WriteString("\n")
	}
	b.WriteString(l.T("mail.game_page", "URL", d.gameURL) + "\n")
	if d.stopURL != "" && !d.stopped {
		b.WriteString("\n-- \n")
		b.WriteString(wrap(l.T("mail.stop_text", "Stop", firstWord(l.T("mail.command.stop"))), textWidth) + "\n")
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
		ps = append(ps, PlayerScore{Seat: p.Seat, Name: cleanName(p.Name, d.l.T("tell.seat", "N", strconv.Itoa(p.Seat))), Score: p.Score})
	}
	return ps
}

// scoreLine is "Scores: Ann 7, Bob 0" ("" without scores).
func (d *doc) scoreLine() string {
	ps := d.scores()
	if len(ps) == 0 {
		return ""
	}
	var scores []string
	for _, p := range ps {
		scores = append(scores, p.Name+" "+d.l.Num(p.Score))
	}
	return d.l.T("mail.scores", "Scores", strings.Join(scores, d.l.T("common.list_separator")))
}

// moveColumns lists moves as "  n. move" (in the reader's words) in as
// many columns as fit.
func moveColumns(moves []engine.Move, say func(string) string) string {
	cells := make([]string, len(moves))
	for i, m := range moves {
		cells[i] = fmt.Sprintf("%4d. %s", i+1, oneLine(say(m.Notation), 60))
	}
	return Columns(cells, textWidth)
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
	l := d.l
	data := map[string]any{
		"Lang":      l.Lang(),
		"Greeting":  d.greeting,
		"News":      newsBlocks(l, d.game, d.seat, d.news),
		"Intro":     d.intro,
		"Outro":     d.outro,
		"Talk":      d.talkData(),
		"TalkFirst": !d.talkAfterIntro,
		"Final":     d.final,
		"FinalHead": l.T("mail.final.heading_html"),
		"GameURL":   d.gameURL,
		"OpenGame":  l.T("mail.open_game"),
		"Hint":      l.T("mail.moves.hint"),
		"Title":     d.subject,
	}
	if !d.stopped && d.stopURL != "" {
		data["Stop"] = htmlWithLink(l.T("mail.stop_html", "Stop", firstWord(l.T("mail.command.stop")), "Link", "\x00"), d.stopURL, l.T("mail.click_here"))
	}
	if d.board {
		if blocks := d.blocks(); len(blocks) > 0 {
			var b strings.Builder
			if err := boardTemplate.Execute(&b, blocks); err == nil {
				data["Board"] = template.HTML(b.String())
			}
		}
	}
	if s := d.scoreLine(); s != "" {
		data["Scores"] = s
	}
	if numbered, passes := Numbered(d.moves); d.showMoves && passes && len(numbered) == 0 {
		data["OnlyPass"], data["PassHow"] = d.onlyPass(d.moves, d.game.Version)
	} else if d.showMoves {
		ms := make([]htmlMove, len(numbered))
		width := 0
		for i, m := range numbered {
			ms[i] = htmlMove{N: i + 1, Notation: d.say(m.Notation), JSON: string(m.JSON)}
			width = max(width, utf8.RuneCountInString(ms[i].Notation))
		}
		data["ShowMoves"] = true
		data["MovesHead"] = l.T("mail.moves.heading", "Version", strconv.FormatInt(d.game.Version, 10))
		data["Moves"] = ms
		// Columns as wide as the longest move and its number, so that
		// none runs into the next column.
		data["ColumnWidth"] = template.CSS(strconv.Itoa(width+6) + "ch")
		if passes {
			data["Pass"] = d.passHint(d.moves)
		}
	}
	var b strings.Builder
	if err := page.Execute(&b, data); err != nil {
		// The template and its data are ours; an error here is a bug, and
		// the text part still says everything.
		return "<!DOCTYPE html><p>" + template.HTMLEscapeString(err.Error()) + "</p>"
	}
	return b.String()
}

// htmlWithLink escapes a message and puts a link where it holds a NUL
// (the placeholder the caller rendered the message with).
func htmlWithLink(msg, href, text string) template.HTML {
	before, after, _ := strings.Cut(msg, "\x00")
	return template.HTML(template.HTMLEscapeString(before) + `<a href="` + template.HTMLEscapeString(href) + `">` +
		template.HTMLEscapeString(text) + `</a>` + template.HTMLEscapeString(after))
}

// The page is one column at most 600 pixels wide, the width mail
// programs give a message; the move list flows in columns where there is
// room.
var page = template.Must(template.New("mail").Parse(`<!DOCTYPE html>
<html lang="{{.Lang}}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>{{.Title}}</title></head>
<body style="margin:0;padding:0">
<div style="max-width:600px;margin:0 auto;padding:12px;font-family:Helvetica,Arial,sans-serif;font-size:15px;line-height:1.45;color:#222222">
<p>{{.Greeting}}</p>
{{range .News}}<p style="margin-bottom:4px">{{.Heading}}</p>
{{with .Lines}}<ul style="margin-top:0">
{{range .}}<li>{{.}}</li>
{{end}}</ul>
{{end}}{{with .Seats}}<table cellpadding="4" style="border-collapse:collapse;margin-bottom:12px">
{{range .}}<tr style="vertical-align:top;border-top:1px solid #dddddd"><td><b>{{.Name}}</b></td><td style="white-space:nowrap">{{.Total}}</td><td style="font-size:13px">{{range $i, $it := .Items}}{{if $i}}<br>{{end}}{{$it}}{{end}}</td></tr>
{{end}}</table>
{{end}}{{end}}{{if .TalkFirst}}{{with .Talk}}{{with .Heading}}<p style="margin-bottom:4px">{{.}}</p>
{{end}}{{with .Earlier}}<p style="margin:0 0 8px 12px;font-size:13px;color:#666666">{{.}}</p>
{{end}}{{range .Blocks}}<div style="margin:0 0 10px 12px;padding-left:8px;border-left:3px solid #dddddd"><div style="font-size:13px;color:#666666">{{.Head}}</div>
<div>{{range $i, $l := .Lines}}{{if $i}}<br>{{end}}{{$l}}{{end}}</div></div>
{{end}}{{end}}{{end}}{{range .Intro}}<p>{{.}}</p>
{{end}}{{if not .TalkFirst}}{{with .Talk}}{{with .Heading}}<p style="margin-bottom:4px">{{.}}</p>
{{end}}{{with .Earlier}}<p style="margin:0 0 8px 12px;font-size:13px;color:#666666">{{.}}</p>
{{end}}{{range .Blocks}}<div style="margin:0 0 10px 12px;padding-left:8px;border-left:3px solid #dddddd"><div style="font-size:13px;color:#666666">{{.Head}}</div>
<div>{{range $i, $l := .Lines}}{{if $i}}<br>{{end}}{{$l}}{{end}}</div></div>
{{end}}{{end}}{{end}}{{range .Outro}}<p>{{.}}</p>
{{end}}{{with .Board}}<div style="margin:12px 0;overflow-x:auto">
{{.}}</div>
{{end}}{{with .Scores}}<p>{{.}}</p>
{{end}}{{with .Final}}<p style="margin-bottom:4px"><b>{{$.FinalHead}}</b></p>
<table cellpadding="4" style="border-collapse:collapse">
{{range .}}<tr style="vertical-align:top;border-top:1px solid #dddddd"><td>{{.Rank}}.</td><td><b>{{.Name}}</b>{{with .Resigned}} {{.}}{{end}}</td><td style="white-space:nowrap">{{.Points}}</td><td style="font-size:13px">{{range $i, $it := .Items}}{{if $i}}<br>{{end}}{{$it}}{{end}}</td></tr>
{{end}}</table>
{{end}}{{if .ShowMoves}}<p>{{.MovesHead}}</p>
<ol style="font-family:monospace;font-size:13px;column-width:{{.ColumnWidth}};column-gap:1em;padding-left:3.5em;margin:0">
{{range .Moves}}<li title="{{.JSON}}">{{.Notation}}</li>
{{end}}</ol>
{{with .Pass}}<p style="font-family:monospace;font-size:13px">{{.}}</p>
{{end}}<p>{{.Hint}}</p>
{{end}}{{with .OnlyPass}}<p>{{.}}<br>{{$.PassHow}}</p>
{{end}}<p><a href="{{.GameURL}}">{{.OpenGame}}</a></p>
{{with .Stop}}<hr style="border:0;border-top:1px solid #dddddd">
<p style="font-size:12px;color:#666666">{{.}}</p>
{{end}}</div>
</body></html>
`))
