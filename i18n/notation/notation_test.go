package notation

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/i18n"
)

func words(t testing.TB) *Words {
	t.Helper()
	w, err := New(i18n.Options{Pseudo: true})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// everyMove plays a game of each rule set with random legal moves and
// collects every legal move offered on the way.
func everyMove(t *testing.T) map[string][]string {
	t.Helper()
	reg := rulesets.All()
	out := map[string][]string{}
	for _, ruleset := range []string{"azul-mini", "summer-pavilion", "summer-pavilion-mini"} {
		rules, _ := reg.Get(ruleset)
		var seed engine.Seed
		seed[0] = 7
		cfg := engine.Config{Ruleset: ruleset, Players: 2}
		evs, err := rules.Start(cfg, seed)
		if err != nil {
			t.Fatal(err)
		}
		s, err := engine.Fold(rules, nil, evs)
		if err != nil {
			t.Fatal(err)
		}
		rnd := rand.New(rand.NewPCG(1, 2))
		seen := map[string]bool{}
		for steps := 0; !s.Over() && steps < 400; steps++ {
			seat := s.ToAct()[0]
			moves := s.LegalMoves(seat)
			for _, m := range moves {
				if !seen[m.Notation] {
					seen[m.Notation] = true
					out[ruleset] = append(out[ruleset], m.Notation)
				}
			}
			var pick engine.Move
			for {
				pick = moves[rnd.IntN(len(moves))]
				if pick.Notation != "resign" {
					break
				}
			}
			evs, err := rules.Decide(s, seat, pick.Command, seed)
			if err != nil {
				t.Fatal(err)
			}
			if s, err = engine.Fold(rules, s, evs); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out
}

// TestSayThenReadIsTheMove: every legal move met in a game, said in each
// language, reads back as the canonical move, and the engine parses the
// words the same way as the canonical form.
func TestSayThenReadIsTheMove(t *testing.T) {
	w := words(t)
	reg := rulesets.All()
	for ruleset, moves := range everyMove(t) {
		rules, _ := reg.Get(ruleset)
		for _, lang := range append(slices.Clone(i18n.Languages), i18n.Pseudo) {
			for _, m := range moves {
				said := w.Say(lang, ruleset, m)
				back, err := w.Read(lang, ruleset, said)
				if err != nil {
					t.Fatalf("%s %s: Read(%q): %v", ruleset, lang, said, err)
				}
				want, _ := rules.ParseNotation(m)
				got, err := rules.ParseNotation(back)
				if err != nil || got.Notation() != want.Notation() {
					t.Fatalf("%s %s: %q said %q read %q: %v", ruleset, lang, m, said, back, err)
				}
			}
		}
		if len(moves) < 50 {
			t.Errorf("%s: only %d moves met", ruleset, len(moves))
		}
	}
}

func TestReadsPlayersWords(t *testing.T) {
	w := words(t)
	for _, tc := range []struct{ lang, ruleset, in, want string }{
		{"nl", "azul-mini", "F2 rood 3", "F2 red 3"},
		{"nl", "azul-mini", "F2 rode vloer", "F2 red floor"},
		{"nl", "azul-mini", "midden zwart lijn 4", "C black line 4"},
		{"de", "azul-mini", "F2 rot Boden", "F2 red floor"},
		{"de", "azul-mini", "f2 s 3", "f2 black 3"},
		{"de", "azul-mini", "Tischmitte weiß 5.", "C white 5."},
		{"it", "azul-mini", "F1 nero pavimento", "F1 black floor"},
		{"it", "summer-pavilion", "C viola", "C purple"},
		{"it", "summer-pavilion", "colloca blu stella 0 6 j3", "place blue s0 6 w3"},
		{"it", "summer-pavilion", "passo tieni verde verde", "pass keep green green"},
		{"nl", "summer-pavilion", "leg groen ster 2 4 joker 1 bonus paars", "place green s2 4 w1 bonus purple"},
		{"de", "summer-pavilion", "passe behalte grün", "pass keep green"},
		// Another language's words where they are unambiguous.
		{"nl", "azul-mini", "F2 rot 3", "F2 red 3"},
		{"en", "azul-mini", "F2 rood 3", "F2 red 3"},
		{"it", "summer-pavilion", "F3 oranje", "F3 orange"},
		// The canonical notation in every language.
		{"de", "summer-pavilion", "place blue s0 6 w3", "place blue s0 6 w3"},
		{"it", "azul-mini", "F2 red 3", "F2 red 3"},
		{"nl", "azul-mini", "tile 2 4", "tile 2 4"},
		{"nl", "azul-mini", "tegel 2 4", "tile 2 4"},
	} {
		got, err := w.Read(tc.lang, tc.ruleset, tc.in)
		if err != nil || got != tc.want {
			t.Errorf("%s %s Read(%q) = %q, %v; want %q", tc.lang, tc.ruleset, tc.in, got, err, tc.want)
		}
	}
}

func TestAmbiguousWordsAreRefusedWithCandidates(t *testing.T) {
	w := words(t)
	for _, tc := range []struct{ lang, ruleset, in, msg string }{
		// g is groen and geel in Dutch Summer Pavilion.
		{"nl", "summer-pavilion", "F1 g", "“g” kan groen of geel betekenen"},
		{"de", "summer-pavilion", "F1 g", "„g“ kann grün oder gelb bedeuten"},
		{"it", "summer-pavilion", "F1 v", "«v» può voler dire viola o verde"},
		{"it", "azul-mini", "F1 b 2", "«b» può voler dire blu o bianco"},
	} {
		_, err := w.Read(tc.lang, tc.ruleset, tc.in)
		var amb *AmbiguousError
		if !errors.As(err, &amb) {
			t.Errorf("%s Read(%q): %v, want ambiguous", tc.lang, tc.in, err)
			continue
		}
		if !strings.Contains(amb.Message(), tc.msg) {
			t.Errorf("%s Read(%q): %q, want %q", tc.lang, tc.in, amb.Message(), tc.msg)
		}
	}
}

// TestEachWordMeansOneThing: within a language, no word (or initial)
// means two things, and the words of different languages that collide
// are only those the reader's own language decides.
func TestEachWordMeansOneThing(t *testing.T) {
	w := words(t)
	for _, lang := range i18n.Languages {
		for _, fam := range []Family{Azul, Pavilion} {
			seen := map[string]string{}
			for tok, list := range w.Vocabulary(lang, fam) {
				for _, word := range list {
					if prev, ok := seen[word]; ok && prev != tok {
						t.Errorf("%s %s: %q is %s and %s", lang, fam, word, prev, tok)
					}
					seen[word] = tok
				}
			}
		}
	}
}

func FuzzRead(f *testing.F) {
	w := words(f)
	for _, s := range []string{"F2 rood 3", "colloca blu stella 0 6 j3", "ster", "j", "jolly 99999999999999999999", "s-1", ",,,", "F1 g"} {
		f.Add("nl", s)
		f.Add("it", s)
	}
	f.Fuzz(func(t *testing.T, lang, text string) {
		for _, ruleset := range []string{"azul-mini", "summer-pavilion"} {
			a, errA := w.Read(lang, ruleset, text)
			b, errB := w.Read(lang, ruleset, text)
			if a != b || (errA == nil) != (errB == nil) {
				t.Fatalf("not deterministic: %q", text)
			}
			if errA == nil && len(strings.Fields(a)) > len(strings.Fields(text)) {
				t.Fatalf("Read(%q) = %q grew", text, a)
			}
		}
	})
}

// TestFromCatalogueIsNew: the words taken from a loaded catalogue are
// the words read from the files.
func TestFromCatalogueIsNew(t *testing.T) {
	for _, pseudo := range []bool{false, true} {
		cat, err := i18n.New(i18n.Options{Pseudo: pseudo})
		if err != nil {
			t.Fatal(err)
		}
		a, err := FromCatalogue(cat)
		if err != nil {
			t.Fatal(err)
		}
		b, err := New(i18n.Options{Pseudo: pseudo})
		if err != nil {
			t.Fatal(err)
		}
		langs := slices.Clone(i18n.Languages)
		if pseudo {
			langs = append(langs, i18n.Pseudo)
		}
		for _, lang := range langs {
			for _, fam := range []Family{Azul, Pavilion} {
				if !reflect.DeepEqual(a.Vocabulary(lang, fam), b.Vocabulary(lang, fam)) {
					t.Errorf("%s %s (pseudo %v): the words differ", lang, fam, pseudo)
				}
			}
			if got, want := a.Say(lang, "summer-pavilion", "place blue s0 6 w3"), b.Say(lang, "summer-pavilion", "place blue s0 6 w3"); got != want {
				t.Errorf("%s: %q, want %q", lang, got, want)
			}
		}
	}
}
