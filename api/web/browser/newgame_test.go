package browser

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// TestNewGameSeatFields: a seat shows the fields its choice needs: the
// bot list for a bot, the search budget for the search bot only, and the
// seats past the chosen number are hidden.
func TestNewGameSeatFields(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	ann := e.newPlayer("Ann")
	ann.open("/games/new")
	visible := func(sel string) bool {
		return eval[bool](ann, `(() => { const e = document.querySelector('`+sel+`'); return !!e && e.getClientRects().length > 0; })()`)
	}
	if visible("#seat1_budget") || !visible("#seat1_bot") || visible("#seat0_bot") || visible("#seat2_bot") {
		t.Fatal("the form shows fields its seats do not need")
	}
	if got := eval[string](ann, `document.querySelector('fieldset.seat legend').textContent`); got != "Seat 1 (moves first)" {
		t.Fatalf("the first seat is called %q", got)
	}
	if err := chromedp.Do(ann.ctx, chromedp.SetValue(chromedp.CSS("#seat1_bot"), "search")); err != nil {
		t.Fatal(err)
	}
	if !visible("#seat1_budget") {
		t.Fatal("the search bot's budget is not offered")
	}
	if err := chromedp.Do(ann.ctx, chromedp.SetValue(chromedp.CSS("#seats"), "3"), chromedp.SetValue(chromedp.CSS("select[name=seat2]"), "player")); err != nil {
		t.Fatal(err)
	}
	if !visible("#seat2_player") || visible("#seat3_player") || visible("select[name=seat3]") {
		t.Fatal("the third seat's player field or the fourth seat is wrong")
	}
	ann.shot("new-game-search-budget")
}
