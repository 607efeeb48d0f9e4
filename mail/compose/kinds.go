package compose

import (
	"fmt"
	"net/mail"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/i18n"
)

// Mail kinds, used in Message-IDs.
const (
	KindTurn       = "turn"
	KindReminder   = "reminder"
	KindInvitation = "invitation"
	KindStarted    = "started"
	KindGameOver   = "over"
	KindAccepted   = "accepted"
	KindRefused    = "refused"
	KindTakeback   = "takeback"
	KindTimedOut   = "timedout"
)

// Turn tells r it is their turn: the table, the legal moves at g.Version,
// and the deadline when the game has a time control (nil: none). At the
// version the game began (g.Started) it is also the news of the start, so
// that no "your turn" ever comes before "the game has started".
func Turn(s Sender, r Recipient, g GameInfo, moves []engine.Move, deadline *time.Time, now time.Time) Mail {
	l := s.localizer(r)
	d := doc{board: true, moves: moves, showMoves: true, news: g.News}
	subject := "mail.turn.subject"
	if g.Started {
		d.intro = append(d.intro, startedLine(l, g, r))
		subject = "mail.turn.subject_new"
		d.intro = append(d.intro, l.T("mail.turn.yours_new", "You", youLabel(l, g, r.Seat)))
	} else {
		d.intro = append(d.intro, l.T("mail.turn.yours", "Game", gameName(l, g), "You", youLabel(l, g, r.Seat)))
	}
	if deadline != nil {
		d.intro = append(d.intro, l.T("mail.turn.deadline", "When", when(l, *deadline, now)))
	}
	return build(s, r, g, KindTurn, subject, d, now)
}

// Reminder tells r that their move is still awaited and when time runs out.
func Reminder(s Sender, r Recipient, g GameInfo, moves []engine.Move, deadline time.Time, now time.Time) Mail {
	l := s.localizer(r)
	d := doc{
		intro: []string{
			l.T("mail.reminder.awaited", "Game", gameName(l, g), "You", youLabel(l, g, r.Seat)),
			l.T("mail.reminder.runs_out", "When", when(l, deadline, now)),
		},
		board: true, moves: moves, showMoves: true, news: g.News,
	}
	// Several reminders may be sent at one version.
	kind := KindReminder + "-" + strconv.FormatInt(now.Unix(), 36)
	return build(s, r, g, kind, "mail.reminder.subject", d, now)
}

// Invitation tells r that inviter gave them a seat in a game that still
// has free seats: the game starts when they are taken.
func Invitation(s Sender, r Recipient, g GameInfo, inviter string, now time.Time) Mail {
	l := s.localizer(r)
	d := doc{intro: []string{
		l.T("mail.invitation.given", "Inviter", cleanName(inviter, l.T("mail.someone")), "Game", gameName(l, g)),
		l.T("mail.invitation.how"),
	}}
	return build(s, r, g, KindInvitation, "mail.invitation.subject", d, now)
}

// Started tells r the game has begun, with the first table.
func Started(s Sender, r Recipient, g GameInfo, now time.Time) Mail {
	l := s.localizer(r)
	d := doc{intro: []string{
		startedLine(l, g, r) + " " + l.T("mail.your_board", "You", youLabel(l, g, r.Seat)),
		toActLine(l, g, r),
	}, board: true}
	return build(s, r, g, KindStarted, "mail.started.subject", d, now)
}

// sentence ends s with a full stop unless it ends with punctuation.
func sentence(s string) string {
	if last, _ := utf8.DecodeLastRuneInString(s); s == "" || strings.ContainsRune(".!?)…", last) {
		return s
	}
	return s + "."
}

// startedLine is the news of the start, with who gave r their seat.
func startedLine(l *i18n.Localizer, g GameInfo, r Recipient) string {
	if r.Inviter != "" {
		return l.T("mail.started.given", "Inviter", cleanName(r.Inviter, l.T("mail.someone")), "Game", gameName(l, g))
	}
	return l.T("mail.started.line", "Game", gameName(l, g))
}

// GameOver gives r the final result: ranks, scores and their breakdown.
func GameOver(s Sender, r Recipient, g GameInfo, final *engine.Final, now time.Time) Mail {
	l := s.localizer(r)
	d := doc{intro: []string{l.T("mail.over.line", "Game", gameName(l, g))}, board: true, news: g.News}
	if final != nil {
		d.intro[0] = overLine(l, g, final.Reason)
		d.intro = append(d.intro, winnersLine(l, g, final))
		d.final = finalRows(l, g, final)
	}
	d.intro = append(d.intro, rematchHint(l))
	return build(s, r, g, KindGameOver, "mail.over.subject", d, now)
}

// Accepted confirms that the move r sent by email (notation) was played;
// g is the game after it.
func Accepted(s Sender, r Recipient, g GameInfo, notation string, now time.Time) Mail {
	l := s.localizer(r)
	d := doc{intro: []string{
		l.T("mail.accepted.line", "Move", oneLine(s.say(l, g.Ruleset, notation), 60), "Game", gameName(l, g)),
		toActLine(l, g, r),
	}, board: true}
	return build(s, r, g, KindAccepted, "mail.accepted.subject", d, now)
}

// TimedOut tells r that their time ran out and what the game's time
// control played for them (notation; "resign" when it forfeits); g is the
// game after it.
func TimedOut(s Sender, r Recipient, g GameInfo, notation string, now time.Time) Mail {
	l := s.localizer(r)
	line := l.T("mail.timedout.played", "Game", gameName(l, g), "Move", oneLine(s.say(l, g.Ruleset, notation), 60))
	if strings.EqualFold(notation, "resign") {
		line = l.T("mail.timedout.resigned", "Game", gameName(l, g))
	}
	d := doc{intro: []string{line, toActLine(l, g, r)}, board: true}
	return build(s, r, g, KindTimedOut, "mail.timedout.subject", d, now)
}

// Refused tells r why the move they sent was not played (reason, in r's
// language, names the broken rule) and, when r may move, lists the legal
// moves at g.Version.
func Refused(s Sender, r Recipient, g GameInfo, reason string, moves []engine.Move, now time.Time) Mail {
	return refused(s, r, g, reason, moves, now)
}

// refused is Refused with more to say after the reason (extra).
func refused(s Sender, r Recipient, g GameInfo, reason string, moves []engine.Move, now time.Time, extra ...string) Mail {
	l := s.localizer(r)
	d := doc{intro: append([]string{
		l.T("mail.refused.line", "Game", gameName(l, g), "Reason", sentence(oneLine(reason, 400))),
	}, extra...), board: true}
	switch {
	case len(moves) > 0:
		d.intro = append(d.intro, l.T("mail.refused.again"))
		d.moves, d.showMoves = moves, true
	case len(g.ToAct) == 0:
		d.intro = append(d.intro, l.T("mail.refused.no_more"))
	default:
		d.intro = append(d.intro, l.T("mail.refused.unchanged", "Next", toActLine(l, g, r)))
	}
	// Several refusals may be sent at one version.
	kind := KindRefused + "-" + strconv.FormatInt(now.UnixNano(), 36)
	return build(s, r, g, kind, "mail.refused.subject", d, now)
}

// TakebackRequested asks r to consent to a take-back: requester wants to
// take back their last moves (moves of them), which undoes the events
// after version to (other seats' moves included). g is the game with the
// request pending.
func TakebackRequested(s Sender, r Recipient, g GameInfo, requester string, moves int, to int64, now time.Time) Mail {
	l := s.localizer(r)
	d := doc{intro: []string{
		l.N("mail.takeback.asks", max(moves, 1), "Name", cleanName(requester, l.T("mail.a_player")), "Game", gameName(l, g), "Version", strconv.FormatInt(to, 10)),
		l.T("mail.takeback.how", "Accept", firstWord(l.T("mail.command.accept")), "Decline", firstWord(l.T("mail.command.decline"))),
	}, board: true}
	return build(s, r, g, KindTakeback, "mail.takeback.subject", d, now)
}

// firstWord is the first of a comma-separated list of words.
func firstWord(list string) string {
	w, _, _ := strings.Cut(list, ",")
	return strings.TrimSpace(w)
}

// build fills the parts every mail shares; subject is the id of the
// message that says what the mail wants, with {{.Game}} (see Subject).
func build(s Sender, r Recipient, g GameInfo, kind, subject string, d doc, now time.Time) Mail {
	l := s.localizer(r)
	token := cleanToken(r.SeatToken)
	domain := strings.ToLower(s.Domain)
	base := strings.TrimRight(s.BaseURL, "/")
	d.l = l
	d.say = func(n string) string { return s.say(l, g.Ruleset, n) }
	d.greeting = l.T("mail.greeting", "Name", cleanName(r.Name, l.T("mail.player")))
	d.game = g
	d.seat = r.Seat
	d.stopped = r.Stopped
	d.gameURL = base + "/games/" + urlPathSegment(g.ID)
	m := Mail{
		From:      s.From,
		To:        mail.Address{Name: cleanName(r.Name, ""), Address: r.Address},
		Subject:   Subject(l, subject, g, r.Seat),
		MessageID: MessageID(s, g.ID, g.Version, r.Seat, kind),
		Date:      now,
	}
	d.subject = m.Subject
	if root := strings.TrimSpace(r.Thread); root != "" && !strings.ContainsAny(root, "\r\n") && root != m.MessageID {
		m.InReplyTo = root
		m.References = []string{root}
	}
	if token != "" {
		reply := "play+" + token + "@" + domain
		d.stopURL = base + "/v1/mail/stop?token=" + token
		m.ReplyTo = reply
		m.ListUnsubscribe = "<" + d.stopURL + ">, <mailto:" + reply + "?subject=stop>"
		m.ListUnsubscribePost = "List-Unsubscribe=One-Click"
	}
	m.Text = d.text()
	m.HTML = d.html()
	return m
}

// Subject says what a mail wants of its reader and in which game: id is
// a message with {{.Game}}, which becomes the game with the other
// players' names and its short id ("Your turn in Azul Mini with Ana
// (game 01935f3c)"). Each kind of mail
// has its own, so that an inbox tells a turn from news; the threading
// headers (In-Reply-To, References), not the subject, keep the mails of
// a game one conversation.
func Subject(l *i18n.Localizer, id string, g GameInfo, reader int) string {
	game := TitleIn(l, g.Ruleset)
	var others []string
	for _, p := range g.Players {
		if p.Seat != reader && strings.TrimSpace(p.Name) != "" {
			others = append(others, cleanName(p.Name, ""))
		}
	}
	with := l.List(others)
	// Long names would push what the mail wants out of sight.
	if utf8.RuneCountInString(with) > 40 && len(others) > 1 {
		with = l.N("mail.subject.others", len(others)-1, "First", others[0])
	}
	if with != "" {
		game = l.T("mail.subject.with", "Game", game, "Names", with)
	}
	// Two games with the same players read alike without their short
	// ids, which the text and the game page show too.
	game = l.T("mail.game_name", "Title", game, "ID", ShortID(g.ID))
	return l.T(id, "Game", game)
}

// Title is a rule set's name for people in English ("Azul: Summer
// Pavilion"); TitleIn says it in a reader's language.
func Title(ruleset string) string {
	switch ruleset {
	case "azul-mini":
		return "Azul Mini"
	case "summer-pavilion":
		return "Azul: Summer Pavilion"
	case "summer-pavilion-mini":
		return "Azul: Summer Pavilion Mini"
	}
	return "Azul (" + oneLine(ruleset, 30) + ")"
}

// TitleIn is a rule set's name for people in the reader's language
// ("Azul: Summer Pavilion", "Azul: Zomerpaviljoen").
func TitleIn(l *i18n.Localizer, ruleset string) string {
	switch ruleset {
	case "azul-mini":
		return l.T("game.ruleset.azul-mini")
	case "summer-pavilion", "summer-pavilion-mini":
		return l.T("mail.title.family", "Name", l.T("game.ruleset."+ruleset))
	}
	return l.T("mail.title.unknown", "Ruleset", oneLine(ruleset, 30))
}

// gameName names a game in a sentence: "Azul Mini (game 3c4d5e6f)".
func gameName(l *i18n.Localizer, g GameInfo) string {
	return l.T("mail.game_name", "Title", TitleIn(l, g.Ruleset), "ID", ShortID(g.ID))
}

// ShortID is how a game is named in a sentence, a subject and on its
// page: the head of its id. A game id is a time-ordered UUID (v7), whose
// first 8 digits change only once a minute, so two games created in the
// same minute against the same opponent would read alike; the first 12
// digits are the creation's millisecond. Other ids (a rematch's, an
// imported game's) give their first 12 letters or digits too.
func ShortID(id string) string {
	var keep []rune
	for _, r := range id {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			keep = append(keep, r)
		}
	}
	if len(keep) > 12 {
		keep = keep[:12]
	}
	if len(keep) == 0 {
		return "?"
	}
	head := strings.ToLower(string(keep))
	if len(head) > 8 && len(id) == 36 && id[8] == '-' {
		// As the id is written: 01935f3c-9a1b.
		head = head[:8] + "-" + head[8:]
	}
	return head
}

// cleanToken keeps the token's alphabet only, so a bad token cannot inject
// anything into headers or links.
func cleanToken(t string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(t) {
		if r >= 'a' && r <= 'z' || r >= '2' && r <= '7' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// cleanName drops control characters and caps the length of a player's
// name; fallback stands in for an empty one.
func cleanName(name, fallback string) string {
	n := oneLine(name, 40)
	if n == "" {
		return fallback
	}
	return n
}

// oneLine turns s into one line (control characters and line separators
// become spaces, runs of spaces one) of at most max runes.
func oneLine(s string, max int) string {
	var b strings.Builder
	space := false
	n := 0
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029 || r == ' ' || r == 0xa0 {
			space = true
			continue
		}
		if r == 0xfeff || r == 0x200b || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			continue // invisible or direction overrides
		}
		if n >= max {
			b.WriteString("…")
			break
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
			n++
		}
		space = false
		b.WriteRune(r)
		n++
	}
	return b.String()
}

func urlPathSegment(id string) string {
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		if safeIDChar(id[i]) {
			b.WriteByte(id[i])
		} else {
			fmt.Fprintf(&b, "%%%02X", id[i])
		}
	}
	return b.String()
}

// when is the deadline for the reader: the time in their zone, the zone
// named, and how far away it is.
func when(l *i18n.Localizer, deadline, now time.Time) string {
	left := deadline.Sub(now)
	if left <= 0 {
		return l.T("mail.when_now", "Time", l.Time(deadline))
	}
	return l.T("mail.when", "Time", l.Time(deadline), "In", l.In(left))
}

func nameOf(l *i18n.Localizer, g GameInfo, seat int) string {
	for _, p := range g.Players {
		if p.Seat == seat {
			return cleanName(p.Name, l.T("tell.seat", "N", strconv.Itoa(seat)))
		}
	}
	return l.T("tell.seat", "N", strconv.Itoa(seat))
}

// youLabel is how the reader's board is marked: "Ana (you)".
func youLabel(l *i18n.Localizer, g GameInfo, seat int) string {
	return l.T("mail.you", "Name", nameOf(l, g, seat))
}

// seatWord finds the seats the engine's table names ("Seat 0", "seat 1").
var seatWord = regexp.MustCompile(`\b[Ss]eat (\d+)\b`)

// boardText is the engine's table with the players' names in place of
// seat numbers, the reader's marked "(you)": the table of a game whose
// state the caller did not give (GameInfo.View nil), in the engine's
// English.
func boardText(l *i18n.Localizer, g GameInfo, reader int) string {
	return seatWord.ReplaceAllStringFunc(g.Board, func(m string) string {
		n, err := strconv.Atoi(m[len("seat "):])
		if err != nil || !slices.ContainsFunc(g.Players, func(p PlayerScore) bool { return p.Seat == n }) {
			return m
		}
		if n == reader {
			return youLabel(l, g, n)
		}
		return nameOf(l, g, n)
	})
}

// withoutResult drops the engine's own result block from a finished
// table ("Final result:" up to the blank line, or "Game over (…)" to the
// end), for a mail that shows the result once, in words.
func withoutResult(board string) string {
	lines := strings.Split(board, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "Final result:"):
			for i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" {
				i++
			}
			continue
		case strings.HasPrefix(l, "Game over (") && strings.Contains(l, "Winner"):
			i = len(lines)
			continue
		}
		out = append(out, l)
	}
	return strings.TrimRight(strings.Join(out, "\n"), "\n") + "\n"
}

// toActLine says who moves next from the reader's point of view; a
// reader who stopped the game's mails is not promised a turn mail.
func toActLine(l *i18n.Localizer, g GameInfo, r Recipient) string {
	if len(g.ToAct) == 0 {
		return l.T("mail.to_act.nobody")
	}
	if slices.Contains(g.ToAct, r.Seat) {
		if r.Stopped {
			return l.T("mail.to_act.you_stopped")
		}
		return l.T("mail.to_act.you")
	}
	names := make([]string, len(g.ToAct))
	for i, s := range g.ToAct {
		names[i] = nameOf(l, g, s)
	}
	if r.Stopped {
		return l.T("mail.to_act.next_stopped", "Names", l.List(names))
	}
	return l.T("mail.to_act.next", "Names", l.List(names))
}

func winnersLine(l *i18n.Localizer, g GameInfo, f *engine.Final) string {
	names := make([]string, len(f.Winners))
	for i, s := range f.Winners {
		names[i] = nameOf(l, g, s)
	}
	switch len(names) {
	case 0:
		return l.T("mail.over.no_winner")
	case 1:
		return l.T("mail.over.wins", "Name", names[0])
	}
	return l.T("mail.over.shared", "Names", l.List(names))
}

// overLine says that the game is over and why.
func overLine(l *i18n.Localizer, g GameInfo, reason string) string {
	game := gameName(l, g)
	switch reason {
	case "rounds_played", "round_limit":
		return l.T("mail.over.rounds_played", "Game", game)
	case "row_completed", "no_tiles", "resigned":
		return l.T("mail.over."+reason, "Game", game)
	case "":
		return l.T("mail.over.line", "Game", game)
	}
	return l.T("mail.over.reason", "Game", game, "Reason", strings.ReplaceAll(oneLine(reason, 40), "_", " "))
}

// finalRow is one seat's line of the result table.
type finalRow struct {
	Rank, Seat, Score int
	Name              string
	// Points is the score in words ("57 points"), Resigned "(resigned)"
	// or "".
	Points, Resigned string
	// Items are the breakdown in words: "2 complete rows: +4 points".
	Items []string
}

func finalRows(l *i18n.Localizer, g GameInfo, f *engine.Final) []finalRow {
	rows := make([]finalRow, 0, len(f.Players))
	for _, p := range f.Players {
		row := finalRow{Rank: p.Rank, Seat: p.Seat, Score: p.Score, Name: nameOf(l, g, p.Seat), Points: l.N("game.points", p.Score)}
		if p.Resigned {
			row.Resigned = l.T("mail.final.resigned")
		}
		for _, it := range p.Breakdown {
			if it.Count == 0 && it.Points == 0 {
				continue // "0 complete columns: +0 points" says nothing
			}
			row.Items = append(row.Items, itemText(l, it))
		}
		rows = append(rows, row)
	}
	slices.SortStableFunc(rows, func(a, b finalRow) int { return a.Rank - b.Rank })
	return rows
}

// signedPoints is "+4 points", "−1 point".
func signedPoints(l *i18n.Localizer, n int) string {
	return l.N("game.points", n, "Count", l.Signed(n))
}

var (
	starItem = regexp.MustCompile(`^star_(\d+)_([a-z]+)$`)
	allItem  = regexp.MustCompile(`^all_(\d)s$`)
)

// itemText puts one item of the final breakdown into words.
func itemText(l *i18n.Localizer, it engine.ScoreItem) string {
	what := ""
	switch it.Item {
	case "play":
		what = l.N("mail.final.play", it.Count)
	case "rows", "columns", "kept_tiles":
		what = l.N("mail.final."+it.Item, it.Count)
	case "colours", "colors":
		what = l.N("mail.final.colours", it.Count)
	}
	if m := starItem.FindStringSubmatch(it.Item); what == "" && m != nil {
		what = l.T("mail.final.star_centre")
		if m[1] != "0" && m[2] != "multicoloured" {
			what = l.T("mail.final.star", "Colour", l.T("tell.colour."+m[2]))
		}
	}
	if m := allItem.FindStringSubmatch(it.Item); what == "" && m != nil {
		what = l.T("mail.final.all", "N", m[1])
	}
	if what == "" {
		what = l.T("mail.final.item", "Item", strings.ReplaceAll(oneLine(it.Item, 40), "_", " "), "Count", strconv.Itoa(it.Count))
	}
	return l.T("tell.item_points", "What", what, "Points", signedPoints(l, it.Points))
}
