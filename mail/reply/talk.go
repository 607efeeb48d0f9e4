package reply

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// MaxMessageRunes is the longest message to the table a reply carries;
// longer own text is cut there, ending with "…" (the table is for short
// talk, and a reply is never refused for its length: the move in it
// must not be lost over a long letter).
const MaxMessageRunes = 500

// Own is the player's own text in a reply, split for the caller, who
// decides what the first line is: a move or command (then Rest is the
// message to the table) or not (then All is).
type Own struct {
	// First is the move line: FirstCommandLine of the same text.
	First string
	// Rest is the own text after the first line; All is the whole own
	// text, the first line included. Both are trimmed of blank lines,
	// keep their inner line breaks (at most one blank line in a row) and
	// are at most MaxMessageRunes long.
	Rest, All string
}

// OwnText reads a reply's decoded text (Message.Text) as FirstCommandLine
// does, and also keeps the rest of the player's own words: the lines that
// are not quoted (">"), not an attribution ("On … wrote:" and its
// translations), up to the signature ("-- "), Outlook's quoted original
// ("-----Original Message-----", a line of underscores, a "From:/Sent:"
// block) or a forwarded message. A mobile program's line at the end
// ("Sent from my iPhone", "Verstuurd vanaf mijn iPhone", "Von meinem
// iPhone gesendet", "Inviato da iPhone", …) and a closing at the end
// ("Kind regards,\nAnna", "Mit freundlichen Grüßen", "Groeten", "Cordiali
// saluti", …) are not part of it either: a player who signs every mail
// must not post their name to the table with every move.
func OwnText(text string) Own {
	lines := ownLines(text)
	first := -1
	for i, l := range lines {
		if l != "" {
			first = i
			break
		}
	}
	o := Own{First: FirstCommandLine(text)}
	if first < 0 {
		return o
	}
	lines = dropTrailer(lines)
	if first < len(lines) {
		o.All = message(lines[first:])
		o.Rest = message(lines[first+1:])
	}
	return o
}

// ownLines are the lines of the player's own text, cleaned (as
// FirstCommandLine cleans them); "" for a blank line, and a blank line
// where a quote was left out.
func ownLines(text string) []string {
	raw := strings.Split(normalise(text), "\n")
	// FirstCommandLine breaks lines at these too.
	var lines []string
	for _, l := range raw {
		parts := strings.FieldsFunc(l, func(r rune) bool {
			return r == '\v' || r == '\f' || r == '\u0085' || r == '\u2028' || r == '\u2029'
		})
		if len(parts) == 0 {
			parts = []string{""}
		}
		lines = append(lines, parts...)
	}
	var out []string
	for i := 0; i < len(lines); i++ {
		line := withoutBidi(clean(lines[i]))
		switch {
		case line == "":
			out = append(out, "")
			continue
		case strings.HasPrefix(line, ">"):
			out = append(out, "")
			continue
		case strings.TrimRight(lines[i], " \t\r") == "--":
			return out
		case isOriginalMarker(line):
			return out
		case outlookHeader.MatchString(line) && i+1 < len(lines) && outlookNext.MatchString(clean(lines[i+1])):
			return out
		case attribution.MatchString(line):
			out = append(out, "")
			continue
		case attributionStart.MatchString(line):
			// A wrapped attribution: up to three lines, empty ones
			// not counted (as FirstCommandLine reads them).
			joined, k, found := line, 0, false
			j := i + 1
			for ; j < len(lines) && k < 2; j++ {
				if lines[j] == "" {
					continue
				}
				k++
				joined += " " + clean(lines[j])
				if attribution.MatchString(joined) {
					found = true
					break
				}
			}
			if found {
				i = j
				out = append(out, "")
				continue
			}
		}
		out = append(out, line)
	}
	return out
}

// mobileLine matches the line a mail program of a telephone or tablet
// adds below what its user wrote, in the languages of our players and a
// few more.
var mobileLine = regexp.MustCompile(`(?i)^(sent (from|with|via) .{1,60}|get outlook for .{1,40}|verstuurd (vanaf|met|via) .{1,60}|verzonden (vanaf|met|via) .{1,60}|(von|mit) meinem .{1,50} (gesendet|verschickt)|gesendet (von|mit|vom) .{1,60}|inviato (da|dal|dalla|con) .{1,60}|envoyé (de|depuis|avec) .{1,60}|enviado (desde|de) .{1,60})$`)

// closingLine matches a closing that starts a signature written by hand.
var closingLine = regexp.MustCompile(`(?i)^(((kind|best|warm|warmest)\s+)?regards|best( wishes)?|cheers|thanks|thank you|many thanks|all the best|yours|sincerely|` +
	`(met )?(vriendelijke|hartelijke) groet(en)?|groet(en|jes)?|mvg|gr\.?|` +
	`mit freundlichen grüßen|mit freundlichen gruessen|mfg|(viele|liebe|beste|herzliche) grüße|(viele|liebe|beste|herzliche) gruesse|grüße|gruß|lg|vg|` +
	`(cordiali|distinti|tanti) saluti|saluti|un saluto|ciao)[,.!]*$`)

// dropTrailer removes, from the end of the own lines, blank lines, the
// mobile program's line, and a closing followed by at most two short
// lines (a name).
func dropTrailer(lines []string) []string {
	trim := func() {
		for len(lines) > 0 && lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
	}
	for {
		trim()
		n := len(lines)
		if n > 0 && mobileLine.MatchString(lines[n-1]) {
			lines = lines[:n-1]
			continue
		}
		// A closing as one of the last three lines, the ones after it
		// short (a name, a nickname).
		cut := -1
		for i := n - 1; i >= 0 && i >= n-3; i-- {
			if closingLine.MatchString(lines[i]) {
				cut = i
				break
			}
			if !nameLike(lines[i]) {
				break
			}
		}
		if cut < 0 {
			return lines
		}
		lines = lines[:cut]
	}
}

// nameLike tells a line that may be the name under a closing: short,
// a few words, not a sentence.
func nameLike(line string) bool {
	if line == "" || utf8.RuneCountInString(line) > 40 || len(strings.Fields(line)) > 4 {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(line)
	return !strings.ContainsRune(".!?:;", last)
}

// message joins own lines into a message: blank lines around it trimmed,
// runs of blank lines made one, at most MaxMessageRunes runes.
func message(lines []string) string {
	var b strings.Builder
	blank := false
	for _, l := range lines {
		if l == "" {
			blank = b.Len() > 0
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
			if blank {
				b.WriteByte('\n')
			}
		}
		blank = false
		b.WriteString(l)
	}
	return capRunes(b.String(), MaxMessageRunes)
}

// capRunes cuts s to at most max runes, the last of them "…" when cut.
func capRunes(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)[:max-1]
	return strings.TrimRight(string(r), " \n") + "…"
}

// withoutBidi drops the marks that reorder the text around them: they
// could make a message show something else than it says (the table
// refuses them; a reply's text goes without them).
func withoutBidi(s string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069) || r == 0x200E || r == 0x200F || r == 0x061C {
			return -1
		}
		return r
	}, s))
}
