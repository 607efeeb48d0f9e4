package reply

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/i18n/notation"
)

var words = func() *notation.Words {
	w, err := notation.New(i18n.Options{})
	if err != nil {
		panic(err)
	}
	return w
}()

func TestMoveInTheSendersWords(t *testing.T) {
	for _, c := range []struct{ lang, ruleset, line, want string }{
		{"nl", "azul-mini", "F2 rood 3", "F2 red 3"},
		{"nl", "azul-mini", "F2 rode vloer", "F2 red floor"},
		{"de", "azul-mini", "F2 rot Boden", "F2 red floor"},
		{"it", "summer-pavilion", "colloca blu stella 0 6 j3", "place blue s0 6 w3"},
		{"en", "azul-mini", "F1 blue 1", "F1 blue 1"},
		{"nl", "azul-mini", "F1 blue 1", "F1 blue 1"}, // the canonical notation
		{"nl", "azul-mini", "12", "12"},               // a number of the mail's list
		{"nl", "azul-mini", "#3.", "#3."},
		{"de", "azul-mini", `{"take":{"factory":1}}`, `{"take":{"factory":1}}`},
		{"nl", "azul-mini", "", ""},
	} {
		got, err := Move(words, c.lang, c.ruleset, c.line)
		if err != nil || got != c.want {
			t.Errorf("Move(%s, %q) = %q, %v; want %q", c.lang, c.line, got, err, c.want)
		}
	}
	// "g" is geel and groen in Dutch Summer Pavilion: refused, with both.
	_, err := Move(words, "nl", "summer-pavilion", "F1 g")
	var amb *notation.AmbiguousError
	if !errors.As(err, &amb) || !strings.Contains(amb.Message(), "geel") || !strings.Contains(amb.Message(), "groen") {
		t.Fatalf("F1 g: %v", err)
	}
	if _, err := Move(nil, "nl", "azul-mini", "F1 rood 1"); !errors.Is(err, ErrNoWords) {
		t.Fatalf("without words: %v", err)
	}
}

// FuzzMove: whatever a reply's line holds, reading it never panics, an
// error is an ambiguity with a message, and what it returns the engine's
// parser may judge (one line, valid UTF-8 when the line was).
func FuzzMove(f *testing.F) {
	for _, s := range []string{"F2 rood 3", "F2 rot Boden", "colloca blu stella 0 6 j3", "F1 g", "12", "{}", "pas houd rood rood", "ster", "j", "s0 j3 stella 1 ,.;"} {
		f.Add("nl", "summer-pavilion", s)
		f.Add("it", "azul-mini", s)
	}
	rules := rulesets.All()
	f.Fuzz(func(t *testing.T, lang, ruleset, line string) {
		got, err := Move(words, lang, ruleset, line)
		if err != nil {
			var amb *notation.AmbiguousError
			if !errors.As(err, &amb) || amb.Message() == "" {
				t.Fatalf("Move(%q) = %v", line, err)
			}
			return
		}
		if strings.ContainsAny(got, "\r\n") && !strings.ContainsAny(line, "\r\n") {
			t.Fatalf("Move(%q) = %q breaks the line", line, got)
		}
		if utf8.ValidString(line) && !utf8.ValidString(got) {
			t.Fatalf("Move(%q) = %q is not UTF-8", line, got)
		}
		if r, err := rules.Get(ruleset); err == nil {
			_, _ = r.ParseNotation(got) // must not panic
		}
	})
}
