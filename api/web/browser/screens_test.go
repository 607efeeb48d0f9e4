package browser

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// pageBudget bounds what a game page loads before compression: the HTML,
// the modules, the style sheet and the first API answers, all of which
// the browser parses. (What crosses the wire, compressed, has its own
// budget of 100 KB: TestTablePageWeight.)
const pageBudget = 160 << 10

// blockStream cuts (or restores) a page's server-sent events.
func (p *player) blockStream(block bool) {
	p.e.t.Helper()
	var patterns []*network.BlockPattern
	if block {
		patterns = []*network.BlockPattern{{URLPattern: "*://*:*/v1/games/*/stream*", Block: true}}
	}
	err := chromedp.Do(p.ctx, chromedp.Action[chromedp.Void](func(ctx context.Context, _ *chromedp.Target) (chromedp.Void, error) {
		if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
			return chromedp.Void{}, err
		}
		_, err := chromedp.Call(ctx, network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: patterns})
		return chromedp.Void{}, err
	}))
	if err != nil {
		p.e.t.Fatal(err)
	}
}

func TestOfflinePageCatchesUp(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	players := []*player{ann, bob}
	id := e.newGame("summer-pavilion", nil, seedA, ann, bob)
	bob.blockStream(true)
	bob.open("/games/" + id)
	bob.waitJS(`document.getElementById('app').dataset.live == 'off'`, "the stream to fail")
	e.moveREST(id, players)
	e.moveREST(id, players)
	v := e.game(id).Version
	bob.blockStream(false)
	bob.waitJS(fmt.Sprintf(`document.getElementById('app').dataset.version == '%d' && document.getElementById('app').dataset.live == 'on'`, v), "the page to reconnect and catch up")
	bob.waitJS(`Number(document.getElementById('app').dataset.changed) > 0 && document.querySelector('#app .changed')`, "the tiles that changed while offline to be marked")
}

func TestPageWeightAndScreens(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	players := []*player{ann, bob}
	// A finished game, a Pavilion game under way, an Azul game where it
	// is Ann's turn and an open seat for the lobby.
	done := e.newGame("azul-mini", nil, seedA, ann, bob)
	for e.game(done).Status != "finished" {
		e.moveREST(done, players)
	}
	pav := e.newGame("summer-pavilion", nil, seedA, ann, bob)
	for e.game(pav).Phase != "play" || e.game(pav).ToAct[0] != 0 {
		e.moveREST(pav, players)
	}
	azul := e.newGame("azul-mini", map[string]any{"wall": "grey"}, seedA, ann, bob)
	for i := 0; i < 4; i++ {
		e.moveREST(azul, players)
	}
	var open gameState
	e.rest(bob.token, http.MethodPost, "/v1/games", map[string]any{"ruleset": "summer-pavilion-mini",
		"seats": []map[string]string{{"player": bob.id}, {}}}, http.StatusCreated, &open)

	ann.open("/")
	ann.waitJS(`document.body.classList.contains('page-lobby')`, "the lobby")
	ann.shot("lobby")
	ann.open("/games/new")
	ann.shot("new-game")
	anon := e.visitor("a visitor")
	anon.open("/signin")
	anon.shot("signin")

	ann.open("/games/" + pav)
	ann.waitJS(`document.querySelector('#app svg .pick')`, "Ann's choices")
	// Everything the page loaded, by the browser's own count (the stream
	// stays open and is left out).
	size := eval[float64](ann, `performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))
		.filter(e => !e.name.includes('/stream')).reduce((n, e) => n + (e.decodedBodySize || 0), 0)`)
	t.Logf("the Pavilion table page loads %.0f bytes", size)
	if size > pageBudget || size < 10<<10 {
		t.Errorf("the table page loads %.0f bytes, want some and at most %d", size, pageBudget)
	}
	ann.shot("pavilion-desktop")
	ann.clickFirstPick()
	ann.waitJS(`document.querySelector('#app .chooser') || document.getElementById('app').dataset.version != '`+fmt.Sprint(e.game(pav).Version)+`'`, "a choice")
	ann.shot("pavilion-move-in-progress")

	ann.open("/games/" + azul)
	ann.waitJS(`document.querySelector('#app svg .pick')`, "Ann's choices")
	ann.clickFirstPick()
	ann.waitJS(`document.querySelector('#app svg .sel')`, "a chosen source")
	ann.shot("azul-move-in-progress")

	ann.viewport(390, 844)
	ann.open("/games/" + azul)
	ann.shot("azul-phone")
	ann.open("/games/" + pav)
	ann.shot("pavilion-phone")
	ann.open("/")
	ann.shot("lobby-phone")
}

func TestJoinFreeSeatFromTable(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	var g gameState
	e.rest(bob.token, http.MethodPost, "/v1/games", map[string]any{"ruleset": "azul-mini",
		"seats": []map[string]string{{"player": bob.id}, {}}}, http.StatusCreated, &g)
	bob.open("/games/" + g.ID)
	ann.open("/games/" + g.ID)
	ann.waitJS(`document.querySelector('#extra form.join button')`, "the join button on the table")
	if err := chromedp.Do(ann.ctx, chromedp.Click(chromedp.CSS("#extra form.join button"))); err != nil {
		t.Fatal(err)
	}
	ann.waitJS(`document.getElementById('app')?.dataset.status == 'active'`, "the table of the started game")
	// Bob's page sees the game start, live, and moves first.
	bob.waitJS(`document.getElementById('app').dataset.status == 'active' && document.getElementById('app').dataset.myTurn == 'yes'`, "the start, live, with Bob to move")
	if got := e.game(g.ID).Status; got != "active" {
		t.Fatalf("status %s after joining", got)
	}
}
