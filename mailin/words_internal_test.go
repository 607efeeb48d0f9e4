package mailin

import (
	"testing"

	"github.com/azuld/azuld/i18n"
)

// The command words of every language name their commands, and no word
// names two.
func TestCommandWords(t *testing.T) {
	t.Parallel()
	cat, err := i18n.New(i18n.Options{})
	if err != nil {
		t.Fatal(err)
	}
	words := commandWords(cat)
	for w, want := range map[string]string{"stop": "stop", "afmelden": "stop", "abbestellen": "stop", "disiscrivi": "stop", "unsubscribe": "stop",
		"accept": "accept", "akkoord": "accept", "annehmen": "accept", "accetta": "accept",
		"decline": "decline", "weiger": "decline", "ablehnen": "decline", "rifiuta": "decline",
		"undo": "undo", "terug": "undo", "zurück": "undo", "annulla": "undo"} {
		if words[w] != want {
			t.Errorf("%q names %q, want %q", w, words[w], want)
		}
	}
}
