package reply

import (
	"strings"
	"testing"
	"unicode"
)

// rematchWords are the words the catalogue gives (see notify's
// rematchWords), for the tests.
func rematchWords() map[string]string {
	words := map[string]string{}
	for answer, list := range map[string][]string{
		AnswerRematch: {"rematch", "revanche", "Revanche", "rivincita"},
		AnswerAccept:  {"accept", "yes", "accepteren", "ja", "annehmen", "accetta", "sì"},
		AnswerDecline: {"decline", "no", "weigeren", "nee", "ablehnen", "nein", "rifiuta"},
	} {
		for _, w := range list {
			RematchWord(words, w, answer)
		}
	}
	return words
}

func TestRematchAnswer(t *testing.T) {
	words := rematchWords()
	for line, want := range map[string]string{
		"rematch":             AnswerRematch,
		"Rematch!":            AnswerRematch,
		"REVANCHE":            AnswerRematch,
		"Revanche, bitte":     AnswerRematch,
		"rivincita?":          AnswerRematch,
		"yes":                 AnswerAccept,
		"Yes, please.":        AnswerAccept,
		"Sì":                  AnswerAccept,
		"si":                  AnswerAccept,
		"ja graag":            AnswerAccept,
		"no thanks":           AnswerDecline,
		"Nein.":               AnswerDecline,
		"“decline”":           AnswerDecline,
		"":                    "",
		"F1 blue 1":           "",
		"rematches":           "",
		"yesterday":           "",
		"re match":            "",
		"...":                 "",
		"\u00a0rematch":       AnswerRematch,
		"rematch\u200b now":   "",
		"{\"type\":\"take\"}": "",
	} {
		if got := RematchAnswer(line, words); got != want {
			t.Errorf("RematchAnswer(%q) = %q, want %q", line, got, want)
		}
	}
}

// FuzzRematchAnswer: any line gives one of the answers or none, never
// panics, and only a line whose first word (without the punctuation
// around it) is a known word gives an answer.
func FuzzRematchAnswer(f *testing.F) {
	for _, s := range []string{"rematch", "Rivincita!", "sì grazie", "NEIN", "F2 rood 3", "", "«revanche»", "\xff\xfe", "yes\x00"} {
		f.Add(s)
	}
	words := rematchWords()
	f.Fuzz(func(t *testing.T, line string) {
		got := RematchAnswer(line, words)
		switch got {
		case "":
			return
		case AnswerRematch, AnswerAccept, AnswerDecline:
		default:
			t.Fatalf("RematchAnswer(%q) = %q", line, got)
		}
		if !strings.ContainsFunc(line, unicode.IsLetter) {
			t.Fatalf("RematchAnswer(%q) = %q for a line without a letter", line, got)
		}
		// What follows the first word does not change the answer.
		if again := RematchAnswer(line+" x\n>quoted", words); again != got {
			t.Fatalf("RematchAnswer(%q) = %q, but %q with more after it", line, got, again)
		}
	})
}
