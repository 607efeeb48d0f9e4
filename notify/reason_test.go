package notify

import (
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/i18n/notation"
)

// Every reason a reply is refused for is written in the reader's
// language: in the pseudo-locale no English word is left and no message
// is missing; in Dutch an ambiguous word lists its candidates.
func TestRefusalReasonsInTheReadersLanguage(t *testing.T) {
	t.Parallel()
	cat, err := i18n.New(i18n.Options{Pseudo: true})
	if err != nil {
		t.Fatal(err)
	}
	words, err := notation.New(i18n.Options{Pseudo: true})
	if err != nil {
		t.Fatal(err)
	}
	n := &Notifier{cfg: Config{Catalogue: cat, Words: words}}
	reasons := []MailArgs{
		{ReasonID: "rule", ReasonArgs: map[string]string{"rule": "azul.line-holds-other-colour"}},
		{ReasonID: "rule", ReasonArgs: map[string]string{"rule": "azul.no-such-rule"}},
		{ReasonID: "ambiguous", ReasonArgs: map[string]string{"command": "F1 g"}},
		{ReasonID: "unreadable", ReasonArgs: map[string]string{"move": "F9 mauve 7"}},
		{ReasonID: "moved_on", ReasonArgs: map[string]string{"answered": "3", "now": "5", "number": "12"}},
		{ReasonID: "no_such_number", ReasonArgs: map[string]string{"number": "120", "max": "97"}},
		{ReasonID: "undo_count", ReasonArgs: map[string]string{"max": "3"}},
	}
	for _, id := range []string{"conflict", "not_your_turn", "game_over", "not_running", "empty", "no_takeback", "takeback_conflict", "nothing_to_take_back", "refused"} {
		reasons = append(reasons, MailArgs{ReasonID: id})
	}
	l := cat.Localizer(i18n.Pseudo, time.UTC)
	for _, a := range reasons {
		got := n.reasonText(l, "summer-pavilion", a)
		if found := i18n.Bypassed(got, "F1", "F9", "mauve", "azul.no-such-rule"); len(found) > 0 || got == "" {
			t.Errorf("%s: %q outside the catalogue in %q", a.ReasonID, found, got)
		}
	}
	if missing := cat.Missing(); len(missing) > 0 {
		t.Errorf("missing messages: %q", missing)
	}
	nl := cat.Localizer("nl", time.UTC)
	if got := n.reasonText(nl, "summer-pavilion", reasons[2]); !strings.Contains(got, "geel") || !strings.Contains(got, "groen") {
		t.Errorf("the Dutch ambiguity: %q", got)
	}
	// A job queued by an older server keeps its English reason.
	if got := n.reasonText(nl, "azul-mini", MailArgs{Reason: "it is not your turn"}); got != "it is not your turn" {
		t.Errorf("an old job's reason: %q", got)
	}
}
