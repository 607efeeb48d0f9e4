package compose

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/i18n"
)

// Mail kinds of table talk.
const (
	// KindTalk brings the messages other players wrote at the table since
	// the reader's last mail (at most one an hour per game: they are
	// collected).
	KindTalk = "talk"
	// KindTalkPosted answers a reply that was a message and no move while
	// its writer is to move: the message went to the table, the move is
	// still awaited.
	KindTalkPosted = "talkposted"
)

// TalkItem is one message of table talk as a mail shows it: its author's
// name (read when the mail is written; an erased author is a "former
// player"), when it was written, and its text (line breaks kept).
type TalkItem struct {
	Author string
	At     time.Time
	Text   string
}

// talkBlock is a message ready to show: who wrote it and when, in one
// line, and its lines.
type talkBlock struct {
	Head  string
	Lines []string
}

// talkBlocks are the messages in the reader's words; earlier is how many
// older messages were left out (they are on the game's page).
func talkBlocks(l *i18n.Localizer, items []TalkItem) []talkBlock {
	out := make([]talkBlock, 0, len(items))
	for _, it := range items {
		var lines []string
		for _, line := range strings.Split(it.Text, "\n") {
			lines = append(lines, oneLine(line, 500))
		}
		for len(lines) > 0 && lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		if len(lines) == 0 {
			continue
		}
		out = append(out, talkBlock{
			Head:  l.T("talkmail.mail.item", "Name", cleanName(it.Author, l.T("talkmail.mail.former_player")), "Time", l.Time(it.At)),
			Lines: lines,
		})
	}
	return out
}

// talkText is the table talk in the text part: each message under its
// author and time, indented.
func talkText(l *i18n.Localizer, heading string, blocks []talkBlock, earlier int) string {
	if len(blocks) == 0 {
		return ""
	}
	var b strings.Builder
	if heading != "" {
		b.WriteString(wrap(heading, textWidth) + "\n")
	}
	if earlier > 0 {
		b.WriteString(hanging(l.N("talkmail.mail.earlier", earlier), "  ", "  ") + "\n")
	}
	for _, blk := range blocks {
		b.WriteString(hanging(blk.Head, "  ", "  ") + "\n")
		for _, line := range blk.Lines {
			if line == "" {
				b.WriteString("\n")
				continue
			}
			b.WriteString(hanging(line, "    ", "    ") + "\n")
		}
	}
	b.WriteString("\n")
	return b.String()
}

// talkHTML is the table talk in the HTML part.
type talkHTML struct {
	Heading, Earlier string
	Blocks           []talkBlock
}

func (d *doc) talkData() *talkHTML {
	blocks := talkBlocks(d.l, d.game.Talk)
	if len(blocks) == 0 {
		return nil
	}
	t := &talkHTML{Blocks: blocks}
	if !d.talkAfterIntro {
		t.Heading = d.l.T("talkmail.mail.heading")
	}
	if d.game.TalkEarlier > 0 {
		t.Earlier = d.l.N("talkmail.mail.earlier", d.game.TalkEarlier)
	}
	return t
}

// Talk brings r the messages of g.Talk, written at the table of g by the
// other players since r's last mail. Answering it writes back to the
// table; a move on the reply's first line is played as from a turn mail.
func Talk(s Sender, r Recipient, g GameInfo, now time.Time) Mail {
	l := s.localizer(r)
	var authors []string
	for _, it := range g.Talk {
		a := cleanName(it.Author, l.T("talkmail.mail.former_player"))
		if !containsFold(authors, a) {
			authors = append(authors, a)
		}
	}
	line := l.T("talkmail.mail.wrote_many", "Game", gameName(l, g))
	if len(authors) == 1 {
		line = l.N("talkmail.mail.wrote", len(g.Talk)+g.TalkEarlier, "Name", authors[0], "Game", gameName(l, g))
	}
	d := doc{intro: []string{line}, talkAfterIntro: true,
		outro: []string{l.T("talkmail.mail.how"), l.T("talkmail.mail.mute")}}
	if slices.Contains(g.ToAct, r.Seat) {
		d.outro = append(d.outro, l.T("talkmail.mail.your_turn"))
	}
	// Retried, the mail keeps its id: the version of the newest message
	// (GameInfo.Version) and the kind name it.
	return build(s, r, g, KindTalk, "talkmail.mail.subject", d, now)
}

// TalkPosted answers r, who replied to a mail of g while it is their
// turn with a message and no move: the message went to the table, and
// their move is still awaited; the legal moves are listed again.
func TalkPosted(s Sender, r Recipient, g GameInfo, moves []engine.Move, now time.Time) Mail {
	l := s.localizer(r)
	d := doc{intro: []string{
		l.T("talkmail.mail.posted.line", "Game", gameName(l, g)),
		l.T("talkmail.mail.posted.awaited", "You", youLabel(l, g, r.Seat)),
	}, board: true, moves: moves, showMoves: true}
	// One answer per reply: several may come at one version.
	kind := KindTalkPosted + "-" + strconv.FormatInt(now.UnixNano(), 36)
	return build(s, r, g, kind, "talkmail.mail.posted.subject", d, now)
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// RefusedTalked is Refused for a reply with a message below its move:
// the answer says whether the message went to the table all the same
// (posted) or was not posted either (its writer wrote too many lately).
func RefusedTalked(s Sender, r Recipient, g GameInfo, reason string, moves []engine.Move, posted bool, now time.Time) Mail {
	l := s.localizer(r)
	if posted {
		return refused(s, r, g, reason, moves, now, l.T("talkmail.mail.refused_talked"))
	}
	return refused(s, r, g, reason, moves, now, l.T("talkmail.mail.refused_limited"))
}
