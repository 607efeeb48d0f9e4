package browser

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestTableTalk: Ann writes to the table from the game's page; the
// message appears on her page without a reload, on Bob's page (which
// follows the game) with a mark, and in the replay at its place: shown
// from its version on, not before. Then Bob's page in German.
func TestTableTalk(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	id := e.newGame("azul-mini", nil, seedA, ann, bob)
	ann.watchConsole()
	bob.watchConsole()

	bob.open("/games/" + id)
	bob.waitJS(`document.querySelector('#extra section#talk form.talk-form')`, "Bob's table talk")
	ann.open("/games/" + id)
	ann.waitJS(`document.querySelector('#extra section#talk form.talk-form textarea')`, "Ann's table talk")
	if err := chromedp.Do(ann.ctx,
		chromedp.SendKeys(chromedp.CSS("#talk-text"), "Good luck, Bob!"),
		chromedp.Click(chromedp.CSS("form.talk-form button[type=submit]")),
	); err != nil {
		t.Fatal(err)
	}
	mine := `[...document.querySelectorAll('#talk li.talk-message .talk-text')].some((e) => e.textContent === 'Good luck, Bob!')`
	ann.waitJS(mine, "Ann's message on her page")
	if got := eval[string](ann, `document.getElementById('talk-text').value`); got != "" {
		t.Fatalf("the form keeps %q", got)
	}
	ann.shot("talk-table-en")
	bob.waitJS(mine+` && !document.querySelector('#talk .talk-new').hidden`, "Ann's message on Bob's page, marked new")
	if got := eval[string](bob, `document.querySelector('#talk li.talk-message .talk-author').textContent`); got != "Ann" {
		t.Fatalf("Bob's page names the author %q", got)
	}
	bob.shot("talk-table-bob")

	var page struct {
		Messages []struct {
			Version int64 `json:"version"`
		} `json:"messages"`
	}
	e.rest(bob.token, http.MethodGet, "/v1/games/"+id+"/messages", nil, http.StatusOK, &page)
	if len(page.Messages) != 1 {
		t.Fatalf("messages %+v", page)
	}
	v := page.Messages[0].Version
	bob.open(fmt.Sprintf("/games/%s/replay?version=%d", id, v))
	bob.waitJS(`document.getElementById('app').dataset.shownVersion == '`+fmt.Sprint(v)+`' && document.querySelector('#talk li.talk-message.current')`, "the message in the replay at its version")
	if got := eval[string](bob, `document.querySelector('#step .desc').textContent`); got != "Ann: Good luck, Bob!" {
		t.Fatalf("the replay's step says %q", got)
	}
	bob.shot("talk-replay-en")
	bob.open(fmt.Sprintf("/games/%s/replay?version=%d", id, v-1))
	bob.waitJS(`document.getElementById('app').dataset.shownVersion == '`+fmt.Sprint(v-1)+`' && document.querySelector('#talk h3') && !document.querySelector('#talk li.talk-message')`, "no message before its version")

	bob.speak("de", "Europe/Berlin")
	bob.open("/games/" + id)
	bob.waitJS(`document.querySelector('#talk h2') && document.querySelector('#talk h2').textContent.startsWith('Tischgespräch')`, "the German panel")
	bob.shot("talk-table-de")
	bob.open(fmt.Sprintf("/games/%s/replay?version=%d", id, v))
	bob.waitJS(`document.querySelector('#talk li.talk-message.current')`, "the German replay")
	bob.shot("talk-replay-de")
	ann.noConsoleErrors("around the table talk")
	bob.noConsoleErrors("around the table talk")
}
