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
	d := doc{board: true, moves: moves, showMoves: true, news: g.News}
	what := "Your turn in %s"
	if g.Started {
		d.intro = append(d.intro, startedLine(g, r))
		what = "Your turn in a new game of %s"
	}
	if g.Started {
		d.intro = append(d.intro, fmt.Sprintf("It is your turn. Your board is the one marked “%s”.", youLabel(g, r.Seat)))
	} else {
		d.intro = append(d.intro, fmt.Sprintf("It is your turn in %s. Your board is the one marked “%s”.", gameName(g), youLabel(g, r.Seat)))
	}
	if deadline != nil {
		d.intro = append(d.intro, "Please move by "+when(*deadline, now)+".")
	}
	return build(s, r, g, KindTurn, what, d, now)
}

// Reminder tells r that their move is still awaited and when time runs out.
func Reminder(s Sender, r Recipient, g GameInfo, moves []engine.Move, deadline time.Time, now time.Time) Mail {
	d := doc{
		intro: []string{
			fmt.Sprintf("Your move in %s is still awaited. Your board is the one marked “%s”.", gameName(g), youLabel(g, r.Seat)),
			"Time runs out " + when(deadline, now) + "; after that the game's time control decides for you.",
		},
		board: true, moves: moves, showMoves: true, news: g.News,
	}
	// Several reminders may be sent at one version.
	kind := KindReminder + "-" + strconv.FormatInt(now.Unix(), 36)
	return build(s, r, g, kind, "Reminder: your turn in %s", d, now)
}

// Invitation tells r that inviter gave them a seat in a game that still
// has free seats: the game starts when they are taken.
func Invitation(s Sender, r Recipient, g GameInfo, inviter string, now time.Time) Mail {
	d := doc{intro: []string{
		fmt.Sprintf("%s has given you a seat in a game of %s.", cleanName(inviter, "Someone"), gameName(g)),
		"The game starts when its other seats are taken; you will get a mail then, and one whenever it is your turn. You play by answering them.",
	}}
	return build(s, r, g, KindInvitation, "Invitation to %s", d, now)
}

// Started tells r the game has begun, with the first table.
func Started(s Sender, r Recipient, g GameInfo, now time.Time) Mail {
	d := doc{intro: []string{
		startedLine(g, r) + fmt.Sprintf(" Your board is the one marked “%s”.", youLabel(g, r.Seat)),
		toActLine(g, r),
	}, board: true}
	return build(s, r, g, KindStarted, "New game of %s", d, now)
}

// sentence ends s with a full stop unless it ends with punctuation.
func sentence(s string) string {
	if last, _ := utf8.DecodeLastRuneInString(s); s == "" || strings.ContainsRune(".!?)…", last) {
		return s
	}
	return s + "."
}

// startedLine is the news of the start, with who gave r their seat.
func startedLine(g GameInfo, r Recipient) string {
	if r.Inviter != "" {
		return fmt.Sprintf("%s has given you a seat in a game of %s, and the game has started.", cleanName(r.Inviter, "Someone"), gameName(g))
	}
	return fmt.Sprintf("The game of %s has started.", gameName(g))
}

// GameOver gives r the final result: ranks, scores and their breakdown.
func GameOver(s Sender, r Recipient, g GameInfo, final *engine.Final, now time.Time) Mail {
	d := doc{intro: []string{fmt.Sprintf("The game of %s is over.", gameName(g))}, board: true, news: g.News}
	if final != nil {
		d.intro[0] = fmt.Sprintf("The game of %s is over%s.", gameName(g), reasonText(final.Reason))
		d.intro = append(d.intro, winnersLine(g, final))
		d.final = finalRows(g, final)
	}
	return build(s, r, g, KindGameOver, "Game over in %s", d, now)
}

// Accepted confirms that the move r sent by email (notation) was played;
// g is the game after it.
func Accepted(s Sender, r Recipient, g GameInfo, notation string, now time.Time) Mail {
	d := doc{intro: []string{
		fmt.Sprintf("Your move %q was played in %s.", oneLine(notation, 60), gameName(g)),
		toActLine(g, r),
	}, board: true}
	return build(s, r, g, KindAccepted, "Move played in %s", d, now)
}

// TimedOut tells r that their time ran out and what the game's time
// control played for them (notation; "resign" when it forfeits); g is the
// game after it.
func TimedOut(s Sender, r Recipient, g GameInfo, notation string, now time.Time) Mail {
	played := fmt.Sprintf("the game's time control played %q for you.", oneLine(notation, 60))
	if strings.EqualFold(notation, "resign") {
		played = "the game's time control resigned for you."
	}
	d := doc{intro: []string{
		fmt.Sprintf("Your time ran out in %s: %s", gameName(g), played),
		toActLine(g, r),
	}, board: true}
	return build(s, r, g, KindTimedOut, "Time ran out in %s", d, now)
}

// Refused tells r why the move they sent was not played (reason names the
// broken rule) and, when r may move, lists the legal moves at g.Version.
func Refused(s Sender, r Recipient, g GameInfo, reason string, moves []engine.Move, now time.Time) Mail {
	d := doc{intro: []string{
		fmt.Sprintf("Your move in %s was not played: %s", gameName(g), sentence(oneLine(reason, 400))),
	}, board: true}
	switch {
	case len(moves) > 0:
		d.intro = append(d.intro, "Nothing changed in the game. Please answer again with one of the moves below.")
		d.moves, d.showMoves = moves, true
	case len(g.ToAct) == 0:
		d.intro = append(d.intro, "Nothing changed in the game, and no move can be made in it any more.")
	default:
		d.intro = append(d.intro, "Nothing changed in the game. "+toActLine(g, r))
	}
	// Several refusals may be sent at one version.
	kind := KindRefused + "-" + strconv.FormatInt(now.UnixNano(), 36)
	return build(s, r, g, kind, "Move refused in %s", d, now)
}

// TakebackRequested asks r to consent to a take-back: requester wants to
// take back their last moves (moves of them), which undoes the events
// after version to (other seats' moves included). g is the game with the
// request pending.
func TakebackRequested(s Sender, r Recipient, g GameInfo, requester string, moves int, to int64, now time.Time) Mail {
	what := "their last move"
	if moves > 1 {
		what = fmt.Sprintf("their last %d moves", moves)
	}
	d := doc{intro: []string{
		fmt.Sprintf("%s asks to take back %s in %s: the game would go back to version %d.", cleanName(requester, "A player"), what, gameName(g), to),
		"Answer accept or decline on the first line of your reply, or answer on the game page. A move by anyone lets the request lapse.",
	}, board: true}
	return build(s, r, g, KindTakeback, "Take-back asked in %s", d, now)
}

// build fills the parts every mail shares; subject says what the mail
// wants, with a %s for the game (see Subject).
func build(s Sender, r Recipient, g GameInfo, kind, subject string, d doc, now time.Time) Mail {
	token := cleanToken(r.SeatToken)
	domain := strings.ToLower(s.Domain)
	base := strings.TrimRight(s.BaseURL, "/")
	d.greeting = "Hello " + cleanName(r.Name, "player") + ","
	d.game = g
	d.seat = r.Seat
	d.stopped = r.Stopped
	d.gameURL = base + "/games/" + urlPathSegment(g.ID)
	m := Mail{
		From:      s.From,
		To:        mail.Address{Name: cleanName(r.Name, ""), Address: r.Address},
		Subject:   Subject(subject, g, r.Seat),
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

// Subject says what a mail wants of its reader and in which game:
// format has one %s, which becomes the game with the other players'
// names ("Your turn in %s": "Your turn in Azul Mini with Ana"). Each kind
// of mail has its own, so that an inbox tells a turn from news; the
// threading headers (In-Reply-To, References), not the subject, keep the
// mails of a game one conversation.
func Subject(format string, g GameInfo, reader int) string {
	game := Title(g.Ruleset)
	var others []string
	for _, p := range g.Players {
		if p.Seat != reader && strings.TrimSpace(p.Name) != "" {
			others = append(others, cleanName(p.Name, ""))
		}
	}
	with := andList(others)
	// Long names would push what the mail wants out of sight.
	if utf8.RuneCountInString(with) > 40 && len(others) > 1 {
		with = fmt.Sprintf("%s and %d others", others[0], len(others)-1)
	}
	if with != "" {
		game += " with " + with
	}
	return fmt.Sprintf(format, game)
}

// andList is "Ana", "Ana and Ben", "Ana, Ben and Cy".
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// Title is a rule set's name for people ("Azul: Summer Pavilion").
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

// gameName names a game in a sentence: "Azul Mini (game 3c4d5e6f)".
func gameName(g GameInfo) string {
	return Title(g.Ruleset) + " (game " + shortID(g.ID) + ")"
}

// shortID is the first 8 letters or digits of a game id, the head the
// game page and the terminal client show (and accept for the game).
func shortID(id string) string {
	var keep []rune
	for _, r := range id {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			keep = append(keep, r)
		}
	}
	if len(keep) > 8 {
		keep = keep[:8]
	}
	if len(keep) == 0 {
		return "?"
	}
	return strings.ToLower(string(keep))
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

// when is the deadline for people: the UTC time and how far away it is.
func when(deadline, now time.Time) string {
	at := deadline.UTC().Format("Mon 2 Jan 2006 15:04 MST")
	left := deadline.Sub(now)
	if left <= 0 {
		return at + " (now)"
	}
	return at + " (in " + span(left) + ")"
}

func span(d time.Duration) string {
	days := int(d / (24 * time.Hour))
	hours := int(d % (24 * time.Hour) / time.Hour)
	mins := int(d % time.Hour / time.Minute)
	plural := func(n int, unit string) string {
		if n == 1 {
			return "1 " + unit
		}
		return strconv.Itoa(n) + " " + unit + "s"
	}
	switch {
	case days > 0 && hours > 0:
		return plural(days, "day") + " " + plural(hours, "hour")
	case days > 0:
		return plural(days, "day")
	case hours > 0:
		return plural(hours, "hour")
	case mins > 0:
		return plural(mins, "minute")
	}
	return "less than a minute"
}

func nameOf(g GameInfo, seat int) string {
	for _, p := range g.Players {
		if p.Seat == seat {
			return cleanName(p.Name, "seat "+strconv.Itoa(seat))
		}
	}
	return "seat " + strconv.Itoa(seat)
}

// youLabel is how the reader's board is marked: "Ana (you)".
func youLabel(g GameInfo, seat int) string {
	return nameOf(g, seat) + " (you)"
}

// seatWord finds the seats the engine's table names ("Seat 0", "seat 1").
var seatWord = regexp.MustCompile(`\b[Ss]eat (\d+)\b`)

// boardText is the engine's table with the players' names in place of
// seat numbers, the reader's marked "(you)".
func boardText(g GameInfo, reader int) string {
	return seatWord.ReplaceAllStringFunc(g.Board, func(m string) string {
		n, err := strconv.Atoi(m[len("seat "):])
		if err != nil || !slices.ContainsFunc(g.Players, func(p PlayerScore) bool { return p.Seat == n }) {
			return m
		}
		if n == reader {
			return youLabel(g, n)
		}
		return nameOf(g, n)
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
func toActLine(g GameInfo, r Recipient) string {
	if len(g.ToAct) == 0 {
		return "Nobody is to move now."
	}
	if slices.Contains(g.ToAct, r.Seat) {
		if r.Stopped {
			return "It is your turn. You stopped the mails of this game, so none will list your moves: play on the game page, or answer this mail with a move in notation."
		}
		return "It is your turn: you will get a mail with your legal moves."
	}
	names := make([]string, len(g.ToAct))
	for i, s := range g.ToAct {
		names[i] = nameOf(g, s)
	}
	next := "Next to move: " + strings.Join(names, ", ") + "."
	if r.Stopped {
		return next + " You stopped the mails of this game, so none will tell you when it is your turn: follow it on the game page."
	}
	return next + " You will get a mail when it is your turn."
}

func winnersLine(g GameInfo, f *engine.Final) string {
	names := make([]string, len(f.Winners))
	for i, s := range f.Winners {
		names[i] = nameOf(g, s)
	}
	switch len(names) {
	case 0:
		return "There is no winner."
	case 1:
		return names[0] + " wins."
	}
	return "Shared victory: " + strings.Join(names, ", ") + "."
}

// reasonText says why a game ended, for "The game … is over<reason>.".
func reasonText(reason string) string {
	switch reason {
	case "rounds_played", "round_limit":
		return " after its last round"
	case "row_completed":
		return ": a row of a wall was completed"
	case "no_tiles":
		return ": the tiles ran out"
	case "resigned":
		return ": a player resigned"
	case "":
		return ""
	}
	return " (" + strings.ReplaceAll(oneLine(reason, 40), "_", " ") + ")"
}

// finalRow is one seat's line of the result table.
type finalRow struct {
	Rank, Seat, Score int
	Name              string
	Resigned          bool
	// Items are the breakdown in words: "2 complete rows: +4 points".
	Items []string
}

func finalRows(g GameInfo, f *engine.Final) []finalRow {
	rows := make([]finalRow, 0, len(f.Players))
	for _, p := range f.Players {
		row := finalRow{Rank: p.Rank, Seat: p.Seat, Score: p.Score, Name: nameOf(g, p.Seat), Resigned: p.Resigned}
		for _, it := range p.Breakdown {
			if it.Count == 0 && it.Points == 0 {
				continue // "0 complete columns: +0 points" says nothing
			}
			row.Items = append(row.Items, itemText(it))
		}
		rows = append(rows, row)
	}
	slices.SortStableFunc(rows, func(a, b finalRow) int { return a.Rank - b.Rank })
	return rows
}

// points is "1 point", "-2 points", "+4 points" (signed when sign is set).
func points(n int, sign bool) string {
	s := strconv.Itoa(n)
	if sign && n >= 0 {
		s = "+" + s
	}
	if n == 1 || n == -1 {
		return s + " point"
	}
	return s + " points"
}

// countOf is "1 complete row", "3 complete rows".
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

var (
	starItem = regexp.MustCompile(`^star_(\d+)_([a-z]+)$`)
	allItem  = regexp.MustCompile(`^all_(\d)s$`)
)

// itemText puts one item of the final breakdown into words.
func itemText(it engine.ScoreItem) string {
	pts := ": " + points(it.Points, true)
	switch it.Item {
	case "play":
		return "scored during the rounds (" + countOf(it.Count, "tile", "tiles") + " on the wall)" + pts
	case "rows":
		return countOf(it.Count, "complete row", "complete rows") + pts
	case "columns":
		return countOf(it.Count, "complete column", "complete columns") + pts
	case "colours", "colors":
		return countOf(it.Count, "colour placed five times", "colours placed five times") + pts
	case "kept_tiles":
		return countOf(it.Count, "tile left over", "tiles left over") + pts
	}
	if m := starItem.FindStringSubmatch(it.Item); m != nil {
		if m[1] == "0" || m[2] == "multicoloured" {
			return "centre star complete" + pts
		}
		return m[2] + " star complete" + pts
	}
	if m := allItem.FindStringSubmatch(it.Item); m != nil {
		return "every space " + m[1] + " covered on all stars" + pts
	}
	return strings.ReplaceAll(oneLine(it.Item, 40), "_", " ") + " " + strconv.Itoa(it.Count) + "×" + pts
}
