package reply

import (
	"strings"
	"unicode"
)

// Answers a reply may give about a rematch (see RematchAnswer).
const (
	// AnswerRematch asks for the rematch of a finished game.
	AnswerRematch = "rematch"
	// AnswerAccept and AnswerDecline answer an invitation to one.
	AnswerAccept  = "accept"
	AnswerDecline = "decline"
)

// RematchAnswer reads the command line of a reply (FirstCommandLine) as
// an answer about a rematch: its first word, in any case, without the
// punctuation around it ("Rematch!", "yes, please", "Sì."), looked up in
// words (a word of any language → AnswerRematch, AnswerAccept or
// AnswerDecline). A word with and without its accents is the same word
// ("si" for "sì"). "" when the line says none of them.
func RematchAnswer(line string, words map[string]string) string {
	fields := strings.FieldsFunc(line, unicode.IsSpace)
	if len(fields) == 0 {
		return ""
	}
	first := strings.TrimFunc(fields[0], func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) })
	if first == "" {
		return ""
	}
	first = strings.ToLower(first)
	if a, ok := words[first]; ok {
		return a
	}
	return words[plain(first)]
}

// RematchWord adds a word of a language's list ("rematch, again") to
// words as answer, in lower case and also without its accents.
func RematchWord(words map[string]string, word, answer string) {
	w := strings.ToLower(strings.TrimSpace(word))
	if w == "" || strings.ContainsRune(w, ' ') {
		return
	}
	words[w] = answer
	words[plain(w)] = answer
}

// plain is a word without the accents of the four languages' letters.
func plain(w string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case 'à', 'á', 'â', 'ä':
			return 'a'
		case 'è', 'é', 'ê', 'ë':
			return 'e'
		case 'ì', 'í', 'î', 'ï':
			return 'i'
		case 'ò', 'ó', 'ô', 'ö':
			return 'o'
		case 'ù', 'ú', 'û', 'ü':
			return 'u'
		}
		return r
	}, w)
}
