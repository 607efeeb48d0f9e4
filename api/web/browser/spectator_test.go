package browser

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// visitor is a browser context that never signed in.
func (e *env) visitor(name string) *player {
	e.t.Helper()
	return &player{e: e, name: name, ctx: e.newTab()}
}

// newRatedGame creates a rated game (public, no take-backs, a secret
// seed) between players.
func (e *env) newRatedGame(ruleset string, players ...*player) string {
	e.t.Helper()
	seats := []map[string]string{}
	for _, p := range players {
		seats = append(seats, map[string]string{"player": p.id})
	}
	var g gameState
	e.rest(players[0].token, http.MethodPost, "/v1/games", map[string]any{"ruleset": ruleset, "seats": seats}, http.StatusCreated, &g)
	e.acceptAll(g.ID, players...)
	return g.ID
}

// noControls fails if a spectator's table offers anything to do.
func noControls(t *testing.T, v *player, when string) {
	t.Helper()
	got := eval[string](v, `[
		document.querySelectorAll('#app .pick, #app .sel').length ? 'highlighted choices' : '',
		document.querySelector('#app .movelist') ? 'the list of moves' : '',
		document.getElementById('resign') ? 'a resign button' : '',
		document.querySelector('#app .takebacks, #takeback-request') ? 'take-back buttons' : '',
		document.querySelector('#app form.join') ? 'a join button' : '',
		document.getElementById('app').dataset.myTurn == 'yes' ? 'its turn' : '',
	].filter(Boolean).join(', ')`)
	if got != "" {
		t.Errorf("%s: the spectator's page offers %s", when, got)
	}
}

// TestSpectatorWatchesLive: a visitor without an account opens a public
// game under way and sees a player's move appear without reloading, with
// nothing to click and the bag's order as secret as ever; the signed-in
// lobby lists the game to watch.
func TestSpectatorWatchesLive(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	ann, bob, cy := e.newPlayer("Ann"), e.newPlayer("Bob"), e.newPlayer("Cy")
	players := []*player{ann, bob}
	id := e.newRatedGame("summer-pavilion", ann, bob)
	e.moveREST(id, players)

	v := e.visitor("a spectator")
	v.watchConsole()
	v.open("/games/" + id)
	v.waitJS(`document.getElementById('watching')`, "the spectator's mark")
	before := e.game(id).Version
	v.waitJS(fmt.Sprintf(`document.getElementById('app').dataset.version == '%d' && document.getElementById('app').dataset.live == 'on'`, before), "the live table")
	noControls(t, v, "before the move")
	if text := eval[string](v, `document.getElementById('settings')?.textContent || ''`); text != "rated · public · no take-backs · table talk for the players" {
		t.Errorf("the settings line says %q", text)
	}
	v.shot("spectator")

	// A player moves; the spectator's page follows, without a reload.
	marker := eval[bool](v, `window.__notReloaded = true`)
	e.moveREST(id, players)
	after := e.game(id).Version
	if after == before || !marker {
		t.Fatalf("no move was made (v%d)", after)
	}
	v.waitJS(fmt.Sprintf(`document.getElementById('app').dataset.version == '%d'`, after), "the move to appear live")
	if !eval[bool](v, `window.__notReloaded === true`) {
		t.Fatal("the page was reloaded")
	}
	noControls(t, v, "after the move")
	v.shot("spectator-after-move")

	// The bag's order stays secret: what the page read holds no seed,
	// only the count of tiles in the bag.
	state := eval[string](v, `fetch('/v1/games/`+id+`').then(r => r.text())`)
	if strings.Contains(state, `"seed":`) || !strings.Contains(state, `"bag":`) || !strings.Contains(state, `"your_seats":[]`) {
		t.Errorf("the spectator reads %.300s", state)
	}
	v.noConsoleErrors("watching")

	// Another player's lobby lists the game to watch, with a link to it.
	cy.open("/")
	cy.waitJS(`document.querySelector('section.lobby-watch a.watch-link[href="/games/`+id+`"]')`, "the game in the lobby's watch list")
	png, err := chromedp.Run(cy.ctx, chromedp.Screenshot(chromedp.CSS("section.lobby-watch")))
	if err != nil {
		t.Fatal(err)
	}
	writeShot(t, e, "lobby-watch", png)
	cy.shot("lobby-with-watch")
}

// TestStrangerGetsNotFoundPage: a private game with every seat taken is
// the 404 page to a visitor and to a player without a seat, the same as
// a game that does not exist; its players see the table.
func TestStrangerGetsNotFoundPage(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	ann, bob, cy := e.newPlayer("Ann"), e.newPlayer("Bob"), e.newPlayer("Cy")
	var g gameState
	e.rest(ann.token, http.MethodPost, "/v1/games", map[string]any{"ruleset": "azul-mini", "visibility": "private",
		"seats": []map[string]string{{"player": ann.id}, {"player": bob.id}}}, http.StatusCreated, &g)
	e.acceptAll(g.ID, ann, bob)
	v := e.visitor("a visitor")
	page := func(p *player, path string) (string, string) {
		t.Helper()
		if err := chromedp.Do(p.ctx, chromedp.Navigate(e.url+path)); err != nil {
			t.Fatal(err)
		}
		p.waitJS(`document.readyState == 'complete'`, "the page")
		return eval[string](p, `document.title`), eval[string](p, `document.querySelector('main')?.textContent.trim() || ''`)
	}
	unknownTitle, unknownText := page(v, "/games/0192f5e4-8a4b-7c3d-9e2f-1a2b3c4d5e6f")
	if !strings.Contains(unknownTitle, "404") {
		t.Fatalf("an unknown game's page: %q", unknownTitle)
	}
	for _, p := range []*player{v, cy} {
		for _, path := range []string{"/games/" + g.ID, "/games/" + g.ID + "/replay"} {
			title, text := page(p, path)
			if title != unknownTitle || text != unknownText {
				t.Errorf("%s opens %s: %q %q, an unknown game is %q %q", p.name, path, title, text, unknownTitle, unknownText)
			}
		}
	}
	v.shot("private-404")
	ann.open("/games/" + g.ID)
	ann.waitJS(`document.getElementById('app').dataset.status == 'active' && !document.getElementById('watching')`, "Ann's table")
}

// writeShot writes a screenshot taken otherwise than by shot.
func writeShot(t *testing.T, e *env, name string, png []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(e.shots, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
