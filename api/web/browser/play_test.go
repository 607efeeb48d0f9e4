package browser

import (
	"flag"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// gameState is the part of the state JSON the tests read.
type gameState struct {
	ID      string `json:"id"`
	Version int64  `json:"version"`
	Status  string `json:"status"`
	Round   int    `json:"round"`
	ToAct   []int  `json:"to_act"`
	Phase   string `json:"phase"`
	Final   *struct {
		Reason string `json:"reason"`
	} `json:"final"`
}

func (e *env) game(id string) gameState {
	e.t.Helper()
	var g gameState
	e.rest("", http.MethodGet, "/v1/games/"+id, nil, http.StatusOK, &g)
	return g
}

// newGame creates a game for the players (seat i is players[i]): public,
// so that the tests read it without a token; with a seed, unrated, with
// take-backs.
func (e *env) newGame(ruleset string, options map[string]any, seed string, players ...*player) string {
	e.t.Helper()
	seats := []map[string]string{}
	for _, p := range players {
		seats = append(seats, map[string]string{"player": p.id})
	}
	body := map[string]any{"ruleset": ruleset, "seats": seats, "seed": seed, "visibility": "public"}
	if options != nil {
		body["options"] = options
	}
	var g gameState
	e.rest(players[0].token, http.MethodPost, "/v1/games", body, http.StatusCreated, &g)
	e.acceptAll(g.ID, players...)
	return g.ID
}

// acceptAll has every player but the first (the game's creator) accept
// the invitation to the seat the game keeps for them.
func (e *env) acceptAll(id string, players ...*player) {
	e.t.Helper()
	joined := map[string]bool{players[0].id: true}
	for _, p := range players {
		if !joined[p.id] {
			e.rest(p.token, http.MethodPost, "/v1/games/"+id+"/join", nil, http.StatusOK, nil)
			joined[p.id] = true
		}
	}
}

// byKeys says how a move is made: with the mouse or with the keyboard.
type input int

const (
	mouse input = iota
	keyboard
)

// longGames makes playOut play every round in the pages.
var longGames = flag.Bool("long", false, "whole games in the browser: every round by clicks or keys, not rounds 2 to 4 through the API")

// Rounds playOut plays through the API unless -long: the middle of a
// game, whose choices the first round and the last ones make too. No
// game can end before its fifth round (a wall row needs five; Summer
// Pavilion has six), so the end is always played in the pages.
const firstRoundByAPI, lastRoundByAPI = 2, 4

// playOut plays the game to its end in the players' pages: at each step
// the acting player's page must show the current version (it arrived
// live, without a reload) and a highlighted choice, which is taken.
// Rounds 2 to 4 are played through the API unless -long, the players
// away from their pages meanwhile. onStep runs before each move made in a page
// (screenshots). It returns how many moves the pages made.
func playOut(e *env, id string, players []*player, how input, onStep func(step int, p *player)) int {
	e.t.Helper()
	for _, p := range players {
		p.open("/games/" + id)
	}
	steps, byAPI, away := 0, 0, false
	for {
		g := e.game(id)
		if g.Status == "finished" {
			break
		}
		if len(g.ToAct) == 0 {
			e.t.Fatalf("game %s at v%d: nobody to act", id, g.Version)
		}
		if !*longGames && g.Round >= firstRoundByAPI && g.Round <= lastRoundByAPI {
			if !away {
				// The pages leave meanwhile: following each move
				// live costs Chromium nearly what clicking it does.
				for _, p := range players {
					p.leave()
				}
				away = true
			}
			e.moveREST(id, players)
			byAPI++
			continue
		}
		if away {
			// Back at the table, which shows the game as it now is.
			for _, p := range players {
				p.open("/games/" + id)
			}
			away = false
		}
		p := players[g.ToAct[0]]
		v := g.Version
		p.waitJS(fmt.Sprintf(`document.getElementById('app').dataset.version == '%d' && document.getElementById('app').dataset.myTurn == 'yes' && !document.getElementById('app').dataset.sending && %s`, v, firstPick),
			fmt.Sprintf("its turn at version %d", v))
		if onStep != nil {
			onStep(steps, p)
		}
		for clicks := 0; ; clicks++ {
			if clicks > 8 {
				e.t.Fatalf("%s: 8 choices at version %d and no move", p.name, v)
			}
			if how == keyboard {
				p.pressEnter(steps%3 == 1)
			} else {
				p.clickFirstPick()
			}
			p.waitJS(fmt.Sprintf(`document.getElementById('app').dataset.version != '%d' || (!document.getElementById('app').dataset.sending && %s)`, v, firstPick), "the move to be made or a next choice")
			if eval[string](p, `document.getElementById('app').dataset.version`) != fmt.Sprint(v) {
				break
			}
			if n := eval[string](p, `document.getElementById('notice')?.hidden ? '' : document.getElementById('notice')?.textContent || ''`); strings.Contains(n, "refused") {
				e.t.Fatalf("%s: %s", p.name, n)
			}
		}
		steps++
		if steps+byAPI > 1000 {
			e.t.Fatalf("game %s: no end after %d moves", id, steps+byAPI)
		}
	}
	if byAPI > 0 {
		e.t.Logf("%d moves through the API in rounds %d to %d (-long plays them in the pages)", byAPI, firstRoundByAPI, lastRoundByAPI)
	}
	// Every page shows the end, live.
	for _, p := range players {
		p.waitJS(`document.getElementById('app').dataset.status == 'finished' && document.querySelector('table.final')`, "the final result")
	}
	return steps
}

const seedA = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"

func TestPlayAzulByClicks(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	id := e.newGame("azul-mini", nil, seedA, ann, bob)
	n := playOut(e, id, []*player{ann, bob}, mouse, func(step int, p *player) {
		if step == 6 {
			p.shot("azul-table")
		}
	})
	t.Logf("azul-mini: %d moves", n)
	ann.shot("azul-final")
}

// Both rule sets of the family, on the coloured side (the monochrome
// side has its own test).
func TestPlayPavilionByClicks(t *testing.T) {
	parallel(t)
	playPavilionByClicks(t, "summer-pavilion")
}

func TestPlayPavilionMiniByClicks(t *testing.T) {
	parallel(t)
	playPavilionByClicks(t, "summer-pavilion-mini")
}

// playPavilionByClicks plays a whole game of the rule set by clicks, on
// the coloured side.
func playPavilionByClicks(t *testing.T, ruleset string) {
	e := newEnv(t)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	id := e.newGame(ruleset, nil, seedA, ann, bob)
	n := playOut(e, id, []*player{ann, bob}, mouse, func(step int, p *player) {
		if step == 30 {
			p.shot(ruleset + "-table")
		}
	})
	t.Logf("%s: %d moves", ruleset, n)
}

func TestPlayGreyWallByClicks(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	id := e.newGame("azul-mini", map[string]any{"wall": "grey"}, seedA, ann, bob)
	tiled := false
	n := playOut(e, id, []*player{ann, bob}, mouse, func(step int, p *player) {
		if !tiled && eval[bool](p, `!!document.querySelector('#app svg .cell.pick')`) {
			tiled = true
			p.shot("azul-grey-wall-tiling")
		}
	})
	if !tiled {
		t.Error("no grey-wall space was ever chosen in the page")
	}
	t.Logf("azul-mini grey wall: %d moves", n)
}

func TestPlayMonochromeByClicks(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	id := e.newGame("summer-pavilion-mini", map[string]any{"board": "monochrome"}, seedA, ann, bob)
	n := playOut(e, id, []*player{ann, bob}, mouse, func(step int, p *player) {
		if step == 40 {
			p.shot("pavilion-monochrome")
		}
	})
	t.Logf("summer-pavilion-mini monochrome: %d moves", n)
}

func TestPlayByKeyboard(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	id := e.newGame("azul-mini", nil, seedA, ann, bob)
	n := playOut(e, id, []*player{ann, bob}, keyboard, nil)
	t.Logf("azul-mini by keyboard: %d moves", n)
}
