package notation

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/azuld/azuld/i18n"
)

// The pages docs/notation-<lang>.md list every word each language accepts
// in a move, with examples, written in that language. Their word tables
// come from Words.Vocabulary, so a word added to the catalogue shows up
// there; TestNotationDocs fails when a page is stale, and
//
//	go test ./i18n/notation -run TestNotationDocs -update
//
// rewrites them.

var update = flag.Bool("update", false, "rewrite docs/notation-<lang>.md")

// docText is one language's prose of its page.
type docText struct {
	title, intro                       string
	meaning, words, printed            string
	colourRow, initialNote             string
	tokenNames                         map[string]string
	examples, exampleHead              string
	otherLangs, otherLangsText         string
	ambiguity, ambiguityText, noShared string
	sharedHead                         string
	canonical, canonicalText, seeAlso  string
	azulTitle, pavilionTitle           string
}

var docTexts = map[string]docText{
	"en": {
		title: "Moves in English words",
		intro: "A move can be written in the language-neutral notation of the engine (`F2 red 3`, " +
			"`place blue s0 6 w3`) or in the words of a player's language. This page lists every English word " +
			"azuld reads in a move — in a mail reply, on the command line (`azul move`) and on the web — and the " +
			"word it prints (in bold). Letter case does not matter.",
		meaning: "meaning", words: "words accepted", printed: "printed as",
		colourRow:   "colour %s",
		initialNote: "A single letter is the initial of a colour in English only; an initial several colours share is refused.",
		tokenNames: map[string]string{
			"floor": "floor line", "C": "centre", "take": "take", "place": "place", "keep": "keep (when passing)",
			"pass": "pass", "bonus": "bonus tiles", "resign": "resign", "tile": "tile (grey wall)", "line": "pattern line",
			"to": "to (before the line)", "s": "star (before its number)", "w": "wild tiles (before their count)",
		},
		examples: "Examples", exampleHead: "| written in English | the same move in the notation |",
		otherLangs: "Words of other languages",
		otherLangsText: "A word that is not English is read in the language that knows it, when every language that " +
			"knows it means the same by it: `%s` is read as `%s`. Single letters are English initials only.",
		ambiguity: "Ambiguous words",
		ambiguityText: "A word that could mean more than one thing is refused, and the refusal lists the candidates in " +
			"English; nothing is played. Write the word out.",
		noShared:      "Every colour has an initial of its own in English, so no single letter is ambiguous.",
		sharedHead:    "These letters are shared by several colours and are refused:",
		canonical:     "The notation",
		canonicalText: "The engine's notation is always understood, whatever your language.",
		seeAlso:       "See also: [the notation of Azul Mini](notation-azul.md), [of Summer Pavilion](notation-pavilion.md); in other languages: ",
		azulTitle:     "Azul Mini", pavilionTitle: "Summer Pavilion",
	},
	"nl": {
		title: "Zetten in Nederlandse woorden",
		intro: "Een zet kun je schrijven in de taalneutrale notatie van de engine (`F2 red 3`, " +
			"`place blue s0 6 w3`) of in de woorden van je eigen taal. Deze pagina noemt elk Nederlands woord " +
			"dat azuld in een zet leest — in een antwoord per mail, op de opdrachtregel (`azul move`) en op het web — " +
			"en het woord dat hij zelf schrijft (vet). Hoofdletters maken niet uit.",
		meaning: "betekenis", words: "geaccepteerde woorden", printed: "geschreven als",
		colourRow:   "kleur %s",
		initialNote: "Eén letter is alleen de beginletter van een kleur in het Nederlands; een beginletter die meer kleuren delen, wordt geweigerd.",
		tokenNames: map[string]string{
			"floor": "vloerlijn", "C": "midden", "take": "nemen", "place": "leggen", "keep": "houden (bij passen)",
			"pass": "passen", "bonus": "bonustegels", "resign": "opgeven", "tile": "tegel (grijze muur)", "line": "patroonlijn",
			"to": "naar (voor de lijn)", "s": "ster (voor het nummer)", "w": "jokers (voor het aantal)",
		},
		examples: "Voorbeelden", exampleHead: "| in het Nederlands | dezelfde zet in de notatie |",
		otherLangs: "Woorden uit andere talen",
		otherLangsText: "Een woord dat geen Nederlands is, wordt gelezen in de taal die het kent, als alle talen die het " +
			"kennen er hetzelfde mee bedoelen: `%s` wordt gelezen als `%s`. Losse letters zijn alleen Nederlandse beginletters.",
		ambiguity: "Dubbelzinnige woorden",
		ambiguityText: "Een woord dat meer dan één ding kan betekenen, wordt geweigerd; de weigering noemt de mogelijkheden " +
			"in het Nederlands en er wordt niets gespeeld. Schrijf het woord dan voluit.",
		noShared:      "Elke kleur heeft in het Nederlands een eigen beginletter, dus geen enkele letter is dubbelzinnig.",
		sharedHead:    "Deze letters delen meer kleuren; ze worden geweigerd:",
		canonical:     "De notatie",
		canonicalText: "De notatie van de engine wordt altijd begrepen, in welke taal je ook speelt.",
		seeAlso:       "Zie ook: [de notatie van Azul Mini](notation-azul.md), [van Summer Pavilion](notation-pavilion.md) (Engels); in andere talen: ",
		azulTitle:     "Azul Mini", pavilionTitle: "Summer Pavilion",
	},
	"de": {
		title: "Züge in deutschen Wörtern",
		intro: "Einen Zug kannst du in der sprachneutralen Notation der Engine schreiben (`F2 red 3`, " +
			"`place blue s0 6 w3`) oder in den Wörtern deiner Sprache. Diese Seite nennt jedes deutsche Wort, " +
			"das azuld in einem Zug liest — in einer Antwort per Mail, auf der Kommandozeile (`azul move`) und im Web — " +
			"und das Wort, mit dem es selbst schreibt (fett). Groß- und Kleinschreibung spielt keine Rolle.",
		meaning: "Bedeutung", words: "angenommene Wörter", printed: "geschrieben als",
		colourRow:   "Farbe %s",
		initialNote: "Ein einzelner Buchstabe ist nur der Anfangsbuchstabe einer Farbe auf Deutsch; einen Anfangsbuchstaben, den mehrere Farben teilen, lehnt azuld ab.",
		tokenNames: map[string]string{
			"floor": "Bodenreihe", "C": "Tischmitte", "take": "nehmen", "place": "legen", "keep": "behalten (beim Passen)",
			"pass": "passen", "bonus": "Bonusfliesen", "resign": "aufgeben", "tile": "Fliese (graue Wand)", "line": "Musterreihe",
			"to": "nach (vor der Reihe)", "s": "Stern (vor seiner Nummer)", "w": "Joker (vor ihrer Anzahl)",
		},
		examples: "Beispiele", exampleHead: "| auf Deutsch | derselbe Zug in der Notation |",
		otherLangs: "Wörter anderer Sprachen",
		otherLangsText: "Ein Wort, das nicht deutsch ist, wird in der Sprache gelesen, die es kennt, wenn alle Sprachen, " +
			"die es kennen, dasselbe damit meinen: `%s` wird als `%s` gelesen. Einzelne Buchstaben sind nur deutsche Anfangsbuchstaben.",
		ambiguity: "Mehrdeutige Wörter",
		ambiguityText: "Ein Wort, das mehr als eines bedeuten kann, wird abgelehnt; die Ablehnung nennt die Möglichkeiten " +
			"auf Deutsch, und nichts wird gespielt. Schreib das Wort dann aus.",
		noShared:      "Jede Farbe hat auf Deutsch einen eigenen Anfangsbuchstaben, kein einzelner Buchstabe ist mehrdeutig.",
		sharedHead:    "Diese Buchstaben teilen sich mehrere Farben; sie werden abgelehnt:",
		canonical:     "Die Notation",
		canonicalText: "Die Notation der Engine wird immer verstanden, in welcher Sprache du auch spielst.",
		seeAlso:       "Siehe auch: [die Notation von Azul Mini](notation-azul.md), [von Summer Pavilion](notation-pavilion.md) (Englisch); in anderen Sprachen: ",
		azulTitle:     "Azul Mini", pavilionTitle: "Summer Pavilion",
	},
	"it": {
		title: "Mosse in parole italiane",
		intro: "Una mossa si può scrivere nella notazione neutra del motore (`F2 red 3`, " +
			"`place blue s0 6 w3`) oppure con le parole della propria lingua. Questa pagina elenca ogni parola italiana " +
			"che azuld legge in una mossa — in una risposta per email, dalla riga di comando (`azul move`) e sul web — " +
			"e la parola con cui la scrive (in grassetto). Maiuscole e minuscole non contano.",
		meaning: "significato", words: "parole accettate", printed: "scritto come",
		colourRow:   "colore %s",
		initialNote: "Una lettera sola è l'iniziale di un colore solo in italiano; un'iniziale condivisa da più colori viene rifiutata.",
		tokenNames: map[string]string{
			"floor": "riga del pavimento", "C": "centro del tavolo", "take": "prendere", "place": "collocare", "keep": "tenere (passando)",
			"pass": "passare", "bonus": "piastrelle bonus", "resign": "abbandonare", "tile": "piastrella (muro grigio)", "line": "riga modello",
			"to": "su (prima della riga)", "s": "stella (prima del suo numero)", "w": "jolly (prima del loro numero)",
		},
		examples: "Esempi", exampleHead: "| in italiano | la stessa mossa nella notazione |",
		otherLangs: "Parole di altre lingue",
		otherLangsText: "Una parola che non è italiana viene letta nella lingua che la conosce, se tutte le lingue che la " +
			"conoscono le danno lo stesso significato: `%s` viene letto come `%s`. Le lettere singole sono solo iniziali italiane.",
		ambiguity: "Parole ambigue",
		ambiguityText: "Una parola che può voler dire più cose viene rifiutata; il rifiuto elenca le possibilità in italiano " +
			"e non viene giocato nulla. In quel caso scrivi la parola per intero.",
		noShared:      "Ogni colore ha in italiano un'iniziale sua, quindi nessuna lettera è ambigua.",
		sharedHead:    "Queste lettere sono condivise da più colori e vengono rifiutate:",
		canonical:     "La notazione",
		canonicalText: "La notazione del motore è sempre capita, qualunque sia la tua lingua.",
		seeAlso:       "Vedi anche: [la notazione di Azul Mini](notation-azul.md), [di Summer Pavilion](notation-pavilion.md) (in inglese); in altre lingue: ",
		azulTitle:     "Azul Mini", pavilionTitle: "Summer Pavilion",
	},
}

// docExamples are whole moves of each family, in the notation.
var docExamples = map[Family][]string{
	Azul:     {"F2 red 3", "C blue floor", "F1 black 5", "tile 2 4", "resign"},
	Pavilion: {"F1 orange", "C purple", "place blue 6 w3", "place green s0 4", "place red 2 bonus yellow", "bonus blue purple", "pass keep green green"},
}

// otherLanguageExample is, for each reader, a move in another language's
// words that they may write too.
var otherLanguageExample = map[string]string{"en": "nl", "nl": "de", "de": "it", "it": "nl"}

// notationDoc writes the page of one language.
func notationDoc(t *testing.T, w *Words, lang string) string {
	t.Helper()
	d := docTexts[lang]
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", d.title)
	b.WriteString("<!-- Generated by go test ./i18n/notation -run TestNotationDocs -update from i18n/locales/notation." + lang + ".toml: do not edit. -->\n\n")
	b.WriteString(d.intro + "\n")
	for _, fam := range []Family{Azul, Pavilion} {
		ruleset, title := "azul-mini", d.azulTitle
		if fam == Pavilion {
			ruleset, title = "summer-pavilion", d.pavilionTitle
		}
		fmt.Fprintf(&b, "\n## %s\n\n", title)
		fmt.Fprintf(&b, "| %s | %s | %s |\n|---|---|---|\n", d.meaning, d.printed, d.words)
		vocab := w.Vocabulary(lang, fam)
		v := w.vocab(lang, fam)
		row := func(meaning, token, printed string) {
			words := slices.Clone(vocab[token])
			for i, word := range words {
				words[i] = "`" + word + "`"
			}
			list := strings.Join(words, ", ")
			if list == "" {
				list = "—"
			}
			fmt.Fprintf(&b, "| %s | **%s** | %s |\n", meaning, printed, list)
		}
		for _, c := range familyColours[fam] {
			row(fmt.Sprintf(d.colourRow, "`"+c+"`"), c, v.say[c])
		}
		tokens := []string{"C", "take", "bonus", "resign"}
		if fam == Azul {
			tokens = []string{"C", "floor", "line", "to", "take", "tile", "resign"}
		} else {
			tokens = append(tokens, "place", "s", "w", "pass", "keep")
		}
		for _, tok := range tokens {
			printed := v.say[tok]
			switch tok {
			case "s":
				printed = glue(v.star, "3")
			case "w":
				printed = glue(v.wild, "2")
			}
			row(d.tokenNames[tok]+" (`"+canonicalOf(tok)+"`)", tok, printed)
		}
		b.WriteString("\n" + d.initialNote + "\n")
		fmt.Fprintf(&b, "\n### %s\n\n%s\n|---|---|\n", d.examples, d.exampleHead)
		for _, canon := range docExamples[fam] {
			said := w.Say(lang, ruleset, canon)
			back, err := w.Read(lang, ruleset, said)
			if err != nil || back != canon {
				t.Errorf("%s: %q is read back as %q (%v), want %q", lang, said, back, err, canon)
			}
			fmt.Fprintf(&b, "| `%s` | `%s` |\n", said, canon)
		}
		fmt.Fprintf(&b, "\n### %s\n\n", d.ambiguity)
		b.WriteString(d.ambiguityText + "\n\n")
		letters := make([]string, 0, len(v.shared))
		for l := range v.shared {
			letters = append(letters, l)
		}
		slices.Sort(letters)
		if len(letters) == 0 {
			b.WriteString(d.noShared + "\n")
		} else {
			b.WriteString(d.sharedHead + "\n\n")
			for _, l := range letters {
				_, err := w.Read(lang, ruleset, "F1 "+l)
				var amb *AmbiguousError
				if !errors.As(err, &amb) {
					t.Errorf("%s: %q is not refused as ambiguous: %v", lang, l, err)
					continue
				}
				fmt.Fprintf(&b, "- `F1 %s` → %s\n", l, amb.Message())
			}
		}
	}
	other := otherLanguageExample[lang]
	foreign := w.Say(other, "azul-mini", "F2 red 3")
	if back, err := w.Read(lang, "azul-mini", foreign); err != nil || back != "F2 red 3" {
		t.Errorf("%s: %q is read as %q (%v)", lang, foreign, back, err)
	}
	fmt.Fprintf(&b, "\n## %s\n\n", d.otherLangs)
	fmt.Fprintf(&b, d.otherLangsText+"\n", foreign, "F2 red 3")
	fmt.Fprintf(&b, "\n## %s\n\n%s\n\n", d.canonical, d.canonicalText)
	var links []string
	for _, l := range i18n.Languages {
		if l != lang {
			links = append(links, fmt.Sprintf("[%s](notation-%s.md)", l, l))
		}
	}
	b.WriteString(d.seeAlso + strings.Join(links, ", ") + ".\n")
	return b.String()
}

// canonicalOf is how the notation writes a token.
func canonicalOf(tok string) string {
	switch tok {
	case "s":
		return "s3"
	case "w":
		return "w2"
	}
	return tok
}

// TestNotationDocs: docs/notation-<lang>.md are what the catalogue's
// words make of them.
func TestNotationDocs(t *testing.T) {
	w, err := New(i18n.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range i18n.Languages {
		got := notationDoc(t, w, lang)
		path := filepath.Join("..", "..", "docs", "notation-"+lang+".md")
		if *update {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./i18n/notation -run TestNotationDocs -update writes it)", err)
		}
		if string(want) != got {
			t.Errorf("%s is stale: go test ./i18n/notation -run TestNotationDocs -update rewrites it", path)
		}
	}
}

// TestNotationDocsUseTheGlossary: each page's own prose says the game's
// things in its language's glossary terms. The words in backquotes are
// the words a move may be written with, which stay accepted.
func TestNotationDocsUseTheGlossary(t *testing.T) {
	w, err := New(i18n.Options{})
	if err != nil {
		t.Fatal(err)
	}
	quoted := regexp.MustCompile("`[^`]*`")
	for _, lang := range i18n.Languages {
		checker := i18n.NewChecker(i18n.Glossary(lang))
		for n, line := range strings.Split(notationDoc(t, w, lang), "\n") {
			for _, r := range checker.Rejected("docs.notation", quoted.ReplaceAllString(line, " ")) {
				t.Errorf("docs/notation-%s.md line %d says %q; the term for %s is %q", lang, n+1, r.Word, r.Term.Concept, r.Term.Use)
			}
		}
	}
}
