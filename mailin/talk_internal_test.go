package mailin

import (
	"testing"

	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/i18n/notation"
)

// TestLooksLikeMove: which first lines that read as no move are still
// taken for a mistyped move (refused with the legal moves) rather than a
// message to the table, when their writer is to move.
func TestLooksLikeMove(t *testing.T) {
	t.Parallel()
	words, err := notation.New(i18n.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := &Receiver{moveWords: moveWordsOf(words)}
	for _, tt := range []struct {
		ruleset, line string
		move          bool
	}{
		{"azul-mini", "F2 rde 3", true},
		{"azul-mini", "C blu floor", true},
		{"azul-mini", "gg", true},
		{"azul-mini", "place the moon on the sun", true},
		{"summer-pavilion", "plaats de maan op de zon", true},
		{"summer-pavilion", "Wat een mooie zet was dat!", false},
		{"azul-mini", "I took factory 2, right?", true},
		{"azul-mini", "Good game, well played!", false},
		{"azul-mini", "Sorry for the wait, I was away all weekend", false},
		{"azul-mini", "Hi Bob,", false},
		{"azul-mini", "Hallo zusammen, viel Glück!", false},
		{"azul-mini", "Ciao a tutti, buona partita", false},
	} {
		if got := r.looksLikeMove(tt.ruleset, tt.line); got != tt.move {
			t.Errorf("looksLikeMove(%q) = %v, want %v", tt.line, got, tt.move)
		}
	}
}
