package browser

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestInvitationByClicks: a game that names another player keeps their
// seat; on its page the invited player reads that they are invited and
// clicks Accept, and the game starts on both players' pages. A second
// invitation, declined by a click, frees its seat.
func TestInvitationByClicks(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	invite := func() string {
		t.Helper()
		var g gameState
		e.rest(ann.token, http.MethodPost, "/v1/games", map[string]any{"ruleset": "azul-mini", "seed": seedA, "visibility": "public",
			"seats": []map[string]string{{"player": "me"}, {"player": bob.id}}}, http.StatusCreated, &g)
		if g.Status != "open" {
			t.Fatalf("a game naming Bob is %q before he accepted", g.Status)
		}
		return g.ID
	}
	ann.watchConsole()
	bob.watchConsole()
	id := invite()
	ann.open("/games/" + id)
	ann.waitJS(`document.querySelector('section.rematch .awaiting')`, "whom Ann's game waits for")
	bob.open("/games/" + id)
	bob.waitJS(`document.getElementById('rematch-accept') && document.getElementById('rematch-decline')`, "Accept and Decline")
	if got := eval[string](bob, `document.querySelector('section.rematch .invited').textContent`); !strings.Contains(got, "You are invited to this game") {
		t.Fatalf("Bob's page says %q", got)
	}
	bob.shot("invitation")
	if err := chromedp.Do(bob.ctx, chromedp.Click(chromedp.CSS("#rematch-accept"))); err != nil {
		t.Fatal(err)
	}
	bob.waitJS(`document.querySelectorAll('#boards article.player').length == 2`, "the started game on Bob's page")
	ann.waitJS(`document.querySelectorAll('#boards article.player').length == 2`, "the started game on Ann's page")
	var g gameState
	e.rest("", http.MethodGet, "/v1/games/"+id, nil, http.StatusOK, &g)
	if g.Status != "active" {
		t.Fatalf("after Bob accepted the game is %q", g.Status)
	}

	other := invite()
	bob.open("/games/" + other)
	bob.waitJS(`document.getElementById('rematch-decline')`, "Decline")
	if err := chromedp.Do(bob.ctx, chromedp.Click(chromedp.CSS("#rematch-decline"))); err != nil {
		t.Fatal(err)
	}
	bob.waitJS(`!document.getElementById('rematch-decline')`, "the declined invitation's page")
	var declined struct {
		Status string `json:"status"`
		Seats  []struct {
			Reserved string `json:"reserved"`
		} `json:"seats"`
	}
	e.rest("", http.MethodGet, "/v1/games/"+other, nil, http.StatusOK, &declined)
	if declined.Status != "open" || declined.Seats[1].Reserved != "" {
		t.Fatalf("after Bob declined: %+v", declined)
	}
	ann.noConsoleErrors("around the invitation")
	bob.noConsoleErrors("around the invitation")
}
