package reply

import (
	"errors"
	"strings"

	"github.com/azuld/azuld/i18n/notation"
)

// ErrNoWords is returned by Move without move words.
var ErrNoWords = errors.New("reply: no move words")

// Move reads the move line of a reply written in the sender's words
// ("F2 rood 3", "F2 rot Boden", "colloca blu stella 0 6 j3"), the
// canonical notation, or words of another language where they are not
// ambiguous, and returns it in the canonical notation for the engine's
// parser. A number or a JSON move is returned as it is (a number counts
// in the list the mail showed; JSON is language-neutral). A word that
// means different things is a *notation.AmbiguousError, whose Message()
// lists the candidates in lang; words it does not know are left for the
// engine to judge.
func Move(w *notation.Words, lang, ruleset, line string) (string, error) {
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "{") || isNumber(strings.TrimSuffix(strings.TrimPrefix(line, "#"), ".")) {
		return line, nil
	}
	if w == nil {
		return "", ErrNoWords
	}
	return w.Read(lang, ruleset, line)
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
