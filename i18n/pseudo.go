package i18n

import (
	"strings"

	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
)

// PseudoOpen and PseudoClose wrap every pseudo-locale message, so that a
// rendered page or mail in the pseudo-locale shows at a glance (and to a
// test) which text came through the catalogue.
const (
	PseudoOpen  = "⟦"
	PseudoClose = "⟧"
)

// accented are the pseudo-locale's letters: still readable, never
// English.
var accented = map[rune]rune{
	'a': 'á', 'b': 'ƀ', 'c': 'ç', 'd': 'đ', 'e': 'é', 'f': 'ƒ', 'g': 'ğ', 'h': 'ĥ', 'i': 'í',
	'j': 'ĵ', 'k': 'ķ', 'l': 'ĺ', 'm': 'ɱ', 'n': 'ñ', 'o': 'ö', 'p': 'þ', 'q': 'ǫ', 'r': 'ŕ',
	's': 'š', 't': 'ţ', 'u': 'ü', 'v': 'ṽ', 'w': 'ŵ', 'x': 'ẋ', 'y': 'ý', 'z': 'ž',
	'A': 'Á', 'B': 'Ɓ', 'C': 'Ç', 'D': 'Đ', 'E': 'É', 'F': 'Ƒ', 'G': 'Ğ', 'H': 'Ĥ', 'I': 'Í',
	'J': 'Ĵ', 'K': 'Ķ', 'L': 'Ĺ', 'M': 'Ṁ', 'N': 'Ñ', 'O': 'Ö', 'P': 'Þ', 'Q': 'Ǫ', 'R': 'Ŕ',
	'S': 'Š', 'T': 'Ţ', 'U': 'Ü', 'V': 'Ṽ', 'W': 'Ŵ', 'X': 'Ẋ', 'Y': 'Ý', 'Z': 'Ž',
}

// PseudoText is what the pseudo-locale makes of an English message:
// letters outside template actions ({{…}}) accented, the whole wrapped.
// Messages that are codes rather than prose (ids ending in ".code", such
// as a number format) are left as they are.
func PseudoText(s string) string {
	var b strings.Builder
	b.WriteString(PseudoOpen)
	for len(s) > 0 {
		open := strings.Index(s, "{{")
		if open < 0 {
			open = len(s)
		}
		for _, r := range s[:open] {
			if a, ok := accented[r]; ok {
				r = a
			}
			b.WriteRune(r)
		}
		s = s[open:]
		if s == "" {
			break
		}
		end := strings.Index(s, "}}")
		if end < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:end+2])
		s = s[end+2:]
	}
	b.WriteString(PseudoClose)
	return b.String()
}

func pseudoMessages(en map[string]map[string]string) []*goi18n.Message {
	out := make([]*goi18n.Message, 0, len(en))
	for id, f := range en {
		m := &goi18n.Message{ID: id}
		conv := func(s string) string {
			if s == "" || strings.HasSuffix(id, ".code") {
				return s
			}
			return PseudoText(s)
		}
		m.Zero, m.One, m.Two, m.Few, m.Many, m.Other = conv(f["zero"]), conv(f["one"]), conv(f["two"]), conv(f["few"]), conv(f["many"]), conv(f["other"])
		out = append(out, m)
	}
	return out
}

// Bypassed finds text in a rendered pseudo-locale output that did not
// come through the catalogue: every run of two or more ASCII letters
// outside ⟦ ⟧ that is not in allowed (names, ids, notation, brand words
// the caller expects). It returns them in order, each once.
func Bypassed(out string, allowed ...string) []string {
	ok := map[string]bool{}
	for _, a := range allowed {
		for _, w := range asciiWords(a) {
			ok[strings.ToLower(w)] = true
		}
	}
	var outside strings.Builder
	depth := 0
	for _, r := range out {
		switch string(r) {
		case PseudoOpen:
			depth++
			outside.WriteByte(' ')
			continue
		case PseudoClose:
			if depth > 0 {
				depth--
			}
			outside.WriteByte(' ')
			continue
		}
		if depth == 0 {
			outside.WriteRune(r)
		}
	}
	seen := map[string]bool{}
	var found []string
	for _, w := range asciiWords(outside.String()) {
		lw := strings.ToLower(w)
		if ok[lw] || seen[lw] {
			continue
		}
		seen[lw] = true
		found = append(found, w)
	}
	return found
}

// asciiWords are the runs of two or more ASCII letters in s.
func asciiWords(s string) []string {
	var words []string
	start := -1
	for i := 0; i <= len(s); i++ {
		letter := i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z')
		if letter && start < 0 {
			start = i
		}
		if !letter && start >= 0 {
			// A run glued to a non-ASCII letter (an accented word) is
			// part of that word, not English.
			if i-start >= 2 && !(i < len(s) && s[i] >= 0x80) && !(start > 0 && s[start-1] >= 0x80) {
				words = append(words, s[start:i])
			}
			start = -1
		}
	}
	return words
}
