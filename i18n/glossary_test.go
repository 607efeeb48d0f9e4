package i18n

import (
	"slices"
	"sort"
	"strings"
	"testing"
)

// concepts are the things every language's glossary names.
var concepts = []string{
	"bot.random", "bot.greedy", "bot.search", "seed", "factory", "centre",
	"pattern_line", "wall", "floor_line", "space", "player_board", "hand", "star",
	"centre_star", "supply", "tower", "lid", "kept", "complete_row",
	"complete_column", "wall_side.coloured", "wall_side.grey",
	"board_side.coloured", "board_side.monochrome", "bonus", "wild", "pass",
}

// TestGlossary: no catalogue value of a language uses a word its glossary
// rejects, except where an exception gives the reason.
func TestGlossary(t *testing.T) {
	for _, lang := range Languages {
		terms := Glossary(lang)
		if len(terms) == 0 {
			t.Fatalf("%s: no glossary", lang)
		}
		checker := NewChecker(terms)
		exceptions := GlossaryExceptions(lang)
		used := make([]bool, len(exceptions))
		msgs, err := Messages(LocaleFS(), lang)
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]string, 0, len(msgs))
		for id := range msgs {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			for _, form := range []string{"zero", "one", "two", "few", "many", "other"} {
				text, ok := msgs[id][form]
				if !ok {
					continue
				}
				for _, r := range checker.Rejected(id, text) {
					if i := exceptionFor(exceptions, id, r.Word); i >= 0 {
						used[i] = true
						continue
					}
					t.Errorf("%s %s: %q says %q; the term for %s is %q", lang, id, text, r.Word, r.Term.Concept, r.Term.Use)
				}
			}
		}
		for i, e := range exceptions {
			if !used[i] {
				t.Errorf("%s: the exception for %q in %s is not needed any more", lang, e.Word, e.Key)
			}
		}
	}
}

func exceptionFor(exceptions []GlossaryException, key, word string) int {
	for i, e := range exceptions {
		if Excepted([]GlossaryException{e}, key, word) {
			return i
		}
	}
	return -1
}

// TestGlossaryIsComplete: Dutch, German and Italian name every concept,
// English at least the bots and the seed; no concept twice; no term is a
// word another term rejects; every exception has its reason.
func TestGlossaryIsComplete(t *testing.T) {
	for _, lang := range Languages {
		want := concepts
		if lang == Default {
			want = []string{"bot.random", "bot.greedy", "bot.search", "seed"}
		}
		terms := Glossary(lang)
		var have []string
		for _, term := range terms {
			if slices.Contains(have, term.Concept) {
				t.Errorf("%s: %s twice", lang, term.Concept)
			}
			have = append(have, term.Concept)
			if term.Use == "" || len(term.Reject) == 0 {
				t.Errorf("%s %s: a term needs its word and the words it replaces", lang, term.Concept)
			}
			for _, other := range terms {
				for _, w := range other.Reject {
					for _, f := range append([]string{term.Use}, term.Forms...) {
						if strings.EqualFold(w, f) && len(other.Keys) == 0 {
							t.Errorf("%s: the term %q (%s) has %q, which %s rejects", lang, f, term.Concept, w, other.Concept)
						}
					}
				}
			}
		}
		for _, c := range want {
			if !slices.ContainsFunc(have, func(h string) bool { return h == c || len(h) > len(c) && h[:len(c)+1] == c+"." }) {
				t.Errorf("%s: no term for %s", lang, c)
			}
		}
		for _, e := range GlossaryExceptions(lang) {
			if e.Reason == "" || e.Word == "" || e.Key == "" {
				t.Errorf("%s: exception %+v lacks its key, word or reason", lang, e)
			}
		}
	}
}

func TestRejectedMatchesWholeWordsAnyCase(t *testing.T) {
	terms := []Term{
		{Concept: "space", Use: "vak", Reject: []string{"veld"}},
		{Concept: "bot.search", Use: "zoekbot", Reject: []string{"zoekend"}},
		{Concept: "factory", Use: "tessera vassoio", Forms: []string{"tessere vassoio"}, Reject: []string{"espositore"}},
		{Concept: "tile", Use: "piastrella", Reject: []string{"tessere"}},
		{Concept: "start_marker.pavilion", Use: "Startspieler-Stein", Reject: []string{"Startspielermarker"}, Keys: []string{"tell.pavilion.*"}},
	}
	for _, tc := range []struct {
		key, text string
		want      []string
	}{
		{"a", "leeg veld 3", []string{"veld"}},
		{"a", "het JSON-veld", []string{"veld"}},
		{"a", "Veld 2 van de ster", []string{"veld"}},
		{"a", "een speelveld", nil},
		{"a", "veldje", nil},
		{"a", "{{.Veld}} en {{ .Zoekend }}", nil},
		{"a", "bot „Zoekend”", []string{"zoekend"}},
		{"a", "due tessere vassoio", nil},
		{"a", "le maiuscole sono tessere", []string{"tessere"}},
		{"a", "l’espositore 2", []string{"espositore"}},
		{"tell.pavilion.token_taken", "nahm den Startspielermarker", []string{"Startspielermarker"}},
		{"tell.azul.took_centre_marker", "und den Startspielermarker", nil},
	} {
		var got []string
		for _, r := range NewChecker(terms).Rejected(tc.key, tc.text) {
			got = append(got, r.Word)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s %q: rejected %v, want %v", tc.key, tc.text, got, tc.want)
		}
	}
}

// TestCaseFoldKeepsEveryMatch: whenever a rejected word's expression
// matches a text, the text's caseFold contains the word's, so that the
// checker may skip the expression when it does not; also for the runes
// whose case folds through more than two forms.
func TestCaseFoldKeepsEveryMatch(t *testing.T) {
	words := []string{"veld", "Spielfeld", "casella", "ſpace", "KELVIN", "σίγμα", "ΣΊΓΜΑ", "straße", "İstanbul", "ǅemal"}
	texts := []string{
		"het VELD is vol", "Das spielfeld.", "la Casella!", "the SPACE bar", "the space bar",
		"\u212Aelvin degrees", "kelvin", "ΣΊΓΜΑ τελικό", "σίγμας", "ςίγμα", "STRASSE", "Straße", "istanbul", "İSTANBUL",
		"ǆemal", "Ǆemal", "nothing here",
	}
	for _, w := range words {
		re := wordRE(w)
		for _, text := range texts {
			if re.MatchString(text) && !strings.Contains(caseFold(text), caseFold(w)) {
				t.Errorf("%q matches %q, but caseFold(%q) = %q lacks caseFold(%q) = %q", w, text, text, caseFold(text), w, caseFold(w))
			}
		}
	}
	// And the folding does fold: upper and lower case meet.
	if caseFold("VELD") != caseFold("veld") || caseFold("\u212A") != caseFold("k") || caseFold("ſ") != caseFold("S") {
		t.Error("caseFold keeps apart what a case-insensitive expression equates")
	}
}
