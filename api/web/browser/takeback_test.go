package browser

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// pendingTakeback is the id of the game's pending take-back request.
func (e *env) pendingTakeback(id string) int64 {
	e.t.Helper()
	var g struct {
		Pending *struct {
			ID int64 `json:"id"`
		} `json:"pending_takeback"`
	}
	e.rest("", http.MethodGet, "/v1/games/"+id, nil, http.StatusOK, &g)
	if g.Pending == nil {
		e.t.Fatalf("game %s has no pending take-back", id)
	}
	return g.Pending.ID
}

// TestTakebackNoticeFollowsAnswer: the notice that a take-back was asked
// for gives way, live, to the answer: accepted (the board is back at the
// requester's turn) or declined.
func TestTakebackNoticeFollowsAnswer(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	players := []*player{ann, bob}
	id := e.newGame("azul-mini", nil, seedA, ann, bob)
	ann.watchConsole()
	notice := `(document.getElementById('notice').hidden ? '' : document.getElementById('notice').textContent)`
	for _, answer := range []string{"accept", "decline"} {
		shot := map[string]string{"accept": "takeback-accepted", "decline": "takeback-declined"}[answer]
		e.moveREST(id, players) // Ann's move
		v := e.game(id).Version
		ann.open("/games/" + id)
		ann.waitJS(fmt.Sprintf(`document.getElementById('app').dataset.version == '%d' && document.getElementById('takeback-request')`, v), "the take-back button")
		if err := chromedp.Do(ann.ctx, chromedp.Click(chromedp.CSS("#takeback-request"))); err != nil {
			t.Fatal(err)
		}
		ann.waitJS(notice+`.includes('the other players are asked')`, "the notice that the take-back was asked for")
		e.rest(bob.token, http.MethodPost, fmt.Sprintf("/v1/games/%s/takebacks/%d/%s", id, e.pendingTakeback(id), answer), map[string]any{}, http.StatusOK, nil)
		want := "Take-back accepted: your last move was taken back."
		if answer == "decline" {
			want = "Take-back declined by Bob: your move stands."
		}
		ann.waitJS(fmt.Sprintf(`%s == %q`, notice, want), "the answer in the notice")
		turn := eval[string](ann, `document.getElementById('app').dataset.myTurn`)
		if (answer == "accept") != (turn == "yes") {
			t.Fatalf("after the answer %s, Ann's page says my-turn %s", answer, turn)
		}
		if strings.Contains(eval[string](ann, notice), "asked") {
			t.Fatal("the notice still says the other players are asked")
		}
		ann.shot(shot)
		ann.noConsoleErrors("around the take-back")
		if answer == "accept" {
			e.moveREST(id, players) // Ann moves again, Bob's turn
			e.moveREST(id, players) // Bob's move, Ann's turn
		}
	}
}
