package reply

import (
	"regexp"
	"strings"
	"unicode"
)

// attribution matches the line mail programs put above a quote:
// "On Mon, 23 Nov 2026 at 10:00, Alice <a@b> wrote:" and its German,
// Dutch, Italian, French, Spanish and Portuguese forms.
var attribution = regexp.MustCompile(`(?i)^(on\s.*\swrote\s*:|am\s.*\sschrieb.*:|op\s.*\sschreef.*:|il\s.*\sha scritto\s*:|le\s.*\sa écrit\s*:|el\s.*\sescribió\s*:|em\s.*\sescreveu\s*:)$`)

// attributionStart matches the first line of an attribution that a mail
// program wrapped over two or three lines.
var attributionStart = regexp.MustCompile(`(?i)^(on|am|op|il|le|el|em)\s`)

// outlookHeader matches the first line of Outlook's block of the original
// message's headers (in English and German).
var outlookHeader = regexp.MustCompile(`(?i)^\*?(from|von|de|van|da)\s*:\*?\s`)

// outlookNext matches the lines that follow it.
var outlookNext = regexp.MustCompile(`(?i)^\*?(sent|date|to|subject|cc|gesendet|datum|an|betreff|envoyé|verzonden|inviato)\s*:`)

// FirstCommandLine returns the player's move in the text of a reply: the
// first line that is not empty, not quoted (">"), not an attribution line
// ("On … wrote:" and its translations), before the signature ("-- ") and
// before Outlook's quoted original ("-----Original Message-----", a line of
// underscores, or a "From:/Sent:/To:" header block). The line is trimmed,
// its inner spaces collapsed; it never holds a line break. "" when the
// reply has no such line.
func FirstCommandLine(text string) string {
	lines := strings.FieldsFunc(normalise(text), func(r rune) bool {
		return r == '\n' || r == '\v' || r == '\f' || r == '\u0085' || r == '\u2028' || r == '\u2029'
	})
	for i := 0; i < len(lines); i++ {
		line := clean(lines[i])
		switch {
		case line == "":
			continue
		case strings.HasPrefix(line, ">"):
			continue
		case strings.TrimRight(lines[i], " \t\r") == "--":
			return ""
		case isOriginalMarker(line):
			return ""
		case outlookHeader.MatchString(line) && i+1 < len(lines) && outlookNext.MatchString(clean(lines[i+1])):
			return ""
		case attribution.MatchString(line):
			continue
		case attributionStart.MatchString(line):
			// A wrapped attribution: join up to three lines.
			joined := line
			j := i + 1
			for ; j < len(lines) && j <= i+2; j++ {
				joined += " " + clean(lines[j])
				if attribution.MatchString(joined) {
					break
				}
			}
			if j < len(lines) && j <= i+2 {
				i = j
				continue
			}
		}
		return line
	}
	return ""
}

func isOriginalMarker(line string) bool {
	l := strings.ToLower(line)
	if strings.Contains(l, "original message") || strings.Contains(l, "ursprüngliche nachricht") ||
		strings.Contains(l, "forwarded message") {
		return strings.HasPrefix(l, "---") || strings.HasPrefix(l, "——")
	}
	// Outlook's separator above the quoted headers.
	return len(line) >= 10 && strings.Trim(line, "_") == ""
}

// clean trims a line, drops invisible and control characters, and
// collapses runs of spaces.
func clean(line string) string {
	line = strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\u00a0' || r == '\u202f' || r == '\u2007' || r == '\u3000':
			return ' '
		case r == '\ufeff' || r == '\u200b' || r == '\u200c' || r == '\u200d' || r == '\u2060':
			return -1
		case unicode.IsControl(r):
			return -1
		case unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r):
			return ' '
		}
		return r
	}, line)
	return strings.Join(strings.Fields(line), " ")
}
