package browser

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestRematchByClicks: on a finished game's page a player clicks
// "Rematch" and lands on the new game, which waits for the other player;
// the other, in a browser session of their own, finds the invitation in
// the lobby, accepts it on the new game's page, and the game starts, on
// both pages. The finished game then offers "Go to the rematch".
func TestRematchByClicks(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	players := []*player{ann, bob}
	id := e.newGame("azul-mini", nil, seedA, ann, bob)
	g := e.game(id)
	e.rest(players[g.ToAct[0]].token, http.MethodPost, "/v1/games/"+id+"/moves", map[string]string{"notation": "resign"}, http.StatusCreated, nil)
	ann.watchConsole()
	bob.watchConsole()

	ann.open("/games/" + id)
	ann.waitJS(`document.getElementById('rematch')`, "the Rematch button")
	ann.shot("rematch-offer")
	if err := chromedp.Do(ann.ctx, chromedp.Click(chromedp.CSS("#rematch"))); err != nil {
		t.Fatal(err)
	}
	ann.waitJS(fmt.Sprintf(`document.getElementById('app') && document.getElementById('app').dataset.game != %q && document.querySelector('#extra section.rematch .awaiting')`, id), "the rematch's page")
	newID := eval[string](ann, `document.getElementById('app').dataset.game`)
	if got := eval[string](ann, `document.querySelector('section.rematch .awaiting').textContent`); got != "Waiting for Bob to accept." {
		t.Fatalf("Ann's rematch page says %q", got)
	}
	if eval[bool](ann, `!!document.getElementById('rematch-accept')`) {
		t.Fatal("Ann is offered to accept her own rematch")
	}
	ann.shot("rematch-waiting")
	var rg struct {
		Status    string `json:"status"`
		RematchOf string `json:"rematch_of"`
	}
	e.rest("", http.MethodGet, "/v1/games/"+newID, nil, http.StatusOK, &rg)
	if rg.Status != "open" || rg.RematchOf != id {
		t.Fatalf("the rematch %s: %+v", newID, rg)
	}

	// Bob's lobby lists the invitation.
	bob.open("/")
	bob.waitJS(`document.querySelector('.lobby-invitations form.join button')`, "the invitation in Bob's lobby")
	if got := eval[string](bob, `document.querySelector('.lobby-invitations .players').textContent`); got != "you · Ann" {
		t.Fatalf("the invitation lists the seats as %q", got)
	}
	if eval[bool](bob, fmt.Sprintf(`!!document.querySelector('.lobby-open a[href="/games/%s"]')`, newID)) {
		t.Fatal("the rematch is also listed among the open games")
	}
	bob.shot("rematch-lobby-invitation")

	bob.open("/games/" + newID)
	bob.waitJS(`document.getElementById('rematch-accept') && document.getElementById('rematch-decline')`, "Accept and Decline")
	bob.shot("rematch-invited")
	if err := chromedp.Do(bob.ctx, chromedp.Click(chromedp.CSS("#rematch-accept"))); err != nil {
		t.Fatal(err)
	}
	bob.waitJS(`document.querySelectorAll('#boards article.player').length == 2`, "the started rematch on Bob's page")
	// Ann's page follows the game: it starts there too, without a reload.
	ann.waitJS(`document.querySelectorAll('#boards article.player').length == 2`, "the started rematch on Ann's page")
	e.rest("", http.MethodGet, "/v1/games/"+newID, nil, http.StatusOK, &rg)
	if rg.Status != "active" {
		t.Fatalf("after Bob accepted the rematch is %q", rg.Status)
	}
	bob.shot("rematch-started")

	// The finished game leads to its rematch.
	bob.open("/games/" + id)
	bob.waitJS(`document.getElementById('rematch-go')`, "Go to the rematch")
	if href := eval[string](bob, `document.getElementById('rematch-go').getAttribute('href')`); href != "/games/"+newID {
		t.Fatalf("Go to the rematch leads to %q", href)
	}
	// In German, for Ann.
	ann.speak("de", "Europe/Berlin")
	ann.open("/games/" + id)
	ann.waitJS(`document.getElementById('rematch-go')`, "Zur Revanche")
	if got := eval[string](ann, `document.getElementById('rematch-go').textContent`); got != "Zur Revanche" {
		t.Fatalf("Ann's German page says %q", got)
	}
	ann.shot("rematch-go-de")
	ann.noConsoleErrors("around the rematch")
	bob.noConsoleErrors("around the rematch")
}
