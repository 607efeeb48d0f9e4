package compose

import (
	"fmt"
	"net/mail"
	"slices"
	"strconv"
	"strings"
	"time"

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
)

// Turn tells r it is their turn: the table, the legal moves at g.Version,
// and the deadline when the game has a time control (nil: none).
func Turn(s Sender, r Recipient, g GameInfo, moves []engine.Move, deadline *time.Time, now time.Time) Mail {
	d := doc{
		intro: []string{fmt.Sprintf("It is your turn in %s.", gameName(g))},
		board: true, moves: moves, showMoves: true,
	}
	if deadline != nil {
		d.intro = append(d.intro, "Please move by "+when(*deadline, now)+".")
	}
	return build(s, r, g, KindTurn, "your turn", d, now)
}

// Reminder tells r that their move is still awaited and when time runs out.
func Reminder(s Sender, r Recipient, g GameInfo, moves []engine.Move, deadline time.Time, now time.Time) Mail {
	d := doc{
		intro: []string{
			fmt.Sprintf("Your move in %s is still awaited.", gameName(g)),
			"Time runs out " + when(deadline, now) + "; after that the game's time control decides for you.",
		},
		board: true, moves: moves, showMoves: true,
	}
	// Several reminders may be sent at one version.
	kind := KindReminder + "-" + strconv.FormatInt(now.Unix(), 36)
	return build(s, r, g, kind, "reminder: your turn", d, now)
}

// Invitation asks r to take a seat that inviter reserved for them.
func Invitation(s Sender, r Recipient, g GameInfo, inviter string, now time.Time) Mail {
	d := doc{intro: []string{
		fmt.Sprintf("%s invites you to a game of %s.", cleanName(inviter, "Someone"), gameName(g)),
		"Open the game page to take your seat. The game starts when every seat is taken; you will get a mail whenever it is your turn, and you can play by answering it.",
	}}
	return build(s, r, g, KindInvitation, "invitation", d, now)
}

// Started tells r the game has begun, with the first table.
func Started(s Sender, r Recipient, g GameInfo, now time.Time) Mail {
	d := doc{intro: []string{
		fmt.Sprintf("The game of %s has started. You play seat %d.", gameName(g), r.Seat),
		toActLine(g, r.Seat),
	}, board: true}
	return build(s, r, g, KindStarted, "the game has started", d, now)
}

// GameOver gives r the final result: ranks, scores and their breakdown.
func GameOver(s Sender, r Recipient, g GameInfo, final *engine.Final, now time.Time) Mail {
	d := doc{intro: []string{fmt.Sprintf("The game of %s is over.", gameName(g))}, board: true}
	if final != nil {
		d.intro = append(d.intro, winnersLine(g, final))
		d.final = finalRows(g, final)
	}
	return build(s, r, g, KindGameOver, "game over", d, now)
}

// Accepted confirms that the move r sent by email (notation) was played;
// g is the game after it.
func Accepted(s Sender, r Recipient, g GameInfo, notation string, now time.Time) Mail {
	d := doc{intro: []string{
		fmt.Sprintf("Your move %q was played in game %s.", oneLine(notation, 60), shortID(g.ID)),
		toActLine(g, r.Seat),
	}, board: true}
	return build(s, r, g, KindAccepted, "move played", d, now)
}

// Refused tells r why the move they sent was not played (reason names the
// broken rule) and lists the legal moves at g.Version.
func Refused(s Sender, r Recipient, g GameInfo, reason string, moves []engine.Move, now time.Time) Mail {
	d := doc{intro: []string{
		fmt.Sprintf("Your move in game %s was not played: %s", shortID(g.ID), oneLine(reason, 400)),
		"Nothing changed in the game. Please answer again with one of the moves below.",
	}, board: true, moves: moves, showMoves: true}
	// Several refusals may be sent at one version.
	kind := KindRefused + "-" + strconv.FormatInt(now.UnixNano(), 36)
	return build(s, r, g, kind, "move refused", d, now)
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
		fmt.Sprintf("%s asks to take back %s in game %s: the game would go back to version %d.", cleanName(requester, "A player"), what, shortID(g.ID), to),
		"Answer accept or decline on the first line of your reply, or answer on the game page. A move by anyone lets the request lapse.",
	}, board: true}
	return build(s, r, g, KindTakeback, "take-back requested", d, now)
}

// build fills the parts every mail shares.
func build(s Sender, r Recipient, g GameInfo, kind, what string, d doc, now time.Time) Mail {
	token := cleanToken(r.SeatToken)
	domain := strings.ToLower(s.Domain)
	base := strings.TrimRight(s.BaseURL, "/")
	d.greeting = "Hello " + cleanName(r.Name, "player") + ","
	d.game = g
	d.gameURL = base + "/games/" + urlPathSegment(g.ID)
	m := Mail{
		From:      s.From,
		To:        mail.Address{Name: cleanName(r.Name, ""), Address: r.Address},
		Subject:   fmt.Sprintf("%s — %s (game %s)", Title(g.Ruleset), what, shortID(g.ID)),
		MessageID: MessageID(s, g.ID, g.Version, r.Seat, kind),
		Date:      now,
	}
	root := ThreadRoot(s, g.ID)
	m.InReplyTo = root
	m.References = []string{root}
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

// shortID is the last 8 letters or digits of a game id: the random end of
// a UUIDv7 (its start is a timestamp shared by games made the same minute).
func shortID(id string) string {
	var keep []rune
	for _, r := range id {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			keep = append(keep, r)
		}
	}
	if len(keep) > 8 {
		keep = keep[len(keep)-8:]
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

// toActLine says who moves next from the reader's point of view.
func toActLine(g GameInfo, seat int) string {
	if len(g.ToAct) == 0 {
		return "Nobody is to move now."
	}
	if slices.Contains(g.ToAct, seat) {
		return "It is your turn: you will get a mail with your legal moves."
	}
	names := make([]string, len(g.ToAct))
	for i, s := range g.ToAct {
		names[i] = nameOf(g, s)
	}
	return "Next to move: " + strings.Join(names, ", ") + ". You will get a mail when it is your turn."
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

// finalRow is one seat's line of the result table.
type finalRow struct {
	Rank, Seat, Score int
	Name              string
	Resigned          bool
	Items             []engine.ScoreItem
}

func finalRows(g GameInfo, f *engine.Final) []finalRow {
	rows := make([]finalRow, 0, len(f.Players))
	for _, p := range f.Players {
		rows = append(rows, finalRow{Rank: p.Rank, Seat: p.Seat, Score: p.Score, Name: nameOf(g, p.Seat), Resigned: p.Resigned, Items: p.Breakdown})
	}
	slices.SortStableFunc(rows, func(a, b finalRow) int { return a.Rank - b.Rank })
	return rows
}
