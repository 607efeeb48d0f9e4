package compose

import (
	"strconv"
	"strings"

	"github.com/azuld/azuld/i18n"
)

// NewsItem is one line of what happened since the reader's last move
// (Text: "Ana took 4 red from F2 to line 4."), or, with Scoring set, how a
// round that ended meanwhile was scored.
type NewsItem struct {
	Text    string
	Scoring *RoundScoring
}

// RoundScoring is how a round was scored, seat by seat.
type RoundScoring struct {
	Round int
	Seats []SeatScoring
}

// SeatScoring is one seat's part of a round's scoring: what scored or
// cost points, in words ("red from line 4 to the wall: +3"), what the
// round changed the score by, and the score after it.
type SeatScoring struct {
	Seat          int
	Items         []string
	Gained, Score int
}

// newsBlock is a paragraph of the news: a heading and its lines, or a
// round's scoring.
type newsBlock struct {
	Heading string
	Lines   []string
	Seats   []scoredSeat
}

// scoredSeat is a seat's scoring with its name and the score in words.
type scoredSeat struct {
	Name, Total string
	Items       []string
}

// newsBlocks groups the news for reading: runs of lines under "Since
// your last move:" (later runs under "Then:"), each round's scoring a
// block of its own.
func newsBlocks(l *i18n.Localizer, g GameInfo, reader int, news []NewsItem) []newsBlock {
	var out []newsBlock
	for i, it := range news {
		if sc := it.Scoring; sc != nil {
			heading := l.T("mail.news.scored", "Round", strconv.Itoa(sc.Round))
			if i == 0 {
				heading = l.T("mail.news.scored_first", "Round", strconv.Itoa(sc.Round))
			}
			b := newsBlock{Heading: heading}
			for _, s := range sc.Seats {
				name := nameOf(l, g, s.Seat)
				if s.Seat == reader {
					name = youLabel(l, g, s.Seat)
				}
				total := l.T("mail.news.total", "Points", l.N("game.points", s.Score), "Gained", gained(l, s.Gained))
				var items []string
				for _, item := range s.Items {
					items = append(items, oneLine(item, 200))
				}
				if len(items) == 0 {
					items = []string{l.T("mail.news.nothing_scored")}
				}
				b.Seats = append(b.Seats, scoredSeat{Name: name, Total: total, Items: items})
			}
			out = append(out, b)
			continue
		}
		text := oneLine(it.Text, 300)
		if text == "" {
			continue
		}
		if len(out) == 0 || out[len(out)-1].Seats != nil {
			heading := l.T("mail.news.since")
			if len(out) > 0 {
				heading = l.T("mail.news.then")
			}
			out = append(out, newsBlock{Heading: heading})
		}
		last := &out[len(out)-1]
		last.Lines = append(last.Lines, text)
	}
	return out
}

// gained is "+5", "−2", "±0".
func gained(l *i18n.Localizer, n int) string {
	if n == 0 {
		return "±0"
	}
	return l.Signed(n)
}

// newsText is the news in the text part: lines indented under their
// heading, a round's scoring as one paragraph per seat.
func newsText(blocks []newsBlock) string {
	var b strings.Builder
	for _, blk := range blocks {
		b.WriteString(wrap(blk.Heading, textWidth) + "\n")
		for _, l := range blk.Lines {
			b.WriteString(hanging(l, "  ", "    ") + "\n")
		}
		for _, s := range blk.Seats {
			b.WriteString(hanging(s.Name+": "+s.Total, "  ", "    ") + "\n")
			for _, it := range s.Items {
				b.WriteString(hanging(it, "      ", "        ") + "\n")
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// hanging wraps s with first before its first line and rest before the
// others.
func hanging(s, first, rest string) string {
	lines := strings.Split(wrap(s, textWidth-len(rest)), "\n")
	return first + strings.Join(lines, "\n"+rest)
}
