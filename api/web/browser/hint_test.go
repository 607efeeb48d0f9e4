package browser

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestHintButton: on Ann's turn in an unrated game the table offers a
// Hint button; it shows the strongest bot's move with its reasons and a
// button that plays it. A rated game's table offers no Hint button, on
// Ann's turn too.
func TestHintButton(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	ann := e.newPlayer("Ann")
	ann.watchConsole()
	var g gameState
	// A public seed makes the game unrated.
	e.rest(ann.token, http.MethodPost, "/v1/games", map[string]any{"ruleset": "azul-mini", "seed": seedA, "visibility": "public",
		"seats": []map[string]string{{"player": "me"}, {"bot": "level1"}}}, http.StatusCreated, &g)
	ann.open("/games/" + g.ID)
	ann.waitJS(`document.getElementById('hint')`, "the Hint button")
	if err := chromedp.Do(ann.ctx, chromedp.Click(chromedp.CSS("#hint"))); err != nil {
		t.Fatal(err)
	}
	ann.waitJS(`document.getElementById('hint-play')`, "the hinted move")
	result := eval[string](ann, `document.getElementById('hint-result').textContent`)
	if !strings.HasPrefix(result, "Hint: ") || !strings.Contains(result, "It ") {
		t.Fatalf("the hint reads %q", result)
	}
	ann.shot("hint")
	v := e.game(g.ID).Version
	if err := chromedp.Do(ann.ctx, chromedp.Click(chromedp.CSS("#hint-play"))); err != nil {
		t.Fatal(err)
	}
	ann.waitJS(fmt.Sprintf(`Number(document.getElementById('app').dataset.version) > %d`, v), "the hinted move played")
	ann.noConsoleErrors("around the hint")

	var rated gameState
	e.rest(ann.token, http.MethodPost, "/v1/games", map[string]any{"ruleset": "azul-mini", "visibility": "public",
		"seats": []map[string]string{{"player": "me"}, {"bot": "level1"}}}, http.StatusCreated, &rated)
	ann.open("/games/" + rated.ID)
	ann.waitJS(`document.getElementById('app').dataset.myTurn == 'yes' && document.getElementById('resign')`, "Ann's turn in the rated game")
	if eval[bool](ann, `!!document.getElementById('hint')`) {
		t.Fatal("a rated game's table offers a hint")
	}
}
