package browser

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// seatHoldings is a Pavilion seat's hand and kept tiles.
type seatHoldings struct {
	Hand map[string]int `json:"hand"`
	Kept map[string]int `json:"kept"`
}

func (e *env) holdings(id string, seat int) seatHoldings {
	e.t.Helper()
	var g struct {
		Players []seatHoldings `json:"players"`
	}
	e.rest("", http.MethodGet, "/v1/games/"+id, nil, http.StatusOK, &g)
	return g.Players[seat]
}

// pavilionMoves are a seat's legal moves, decoded.
type pavilionMove struct {
	Type  string   `json:"type"`
	Star  int      `json:"star"`
	Space int      `json:"space"`
	Keep  []string `json:"keep"`
}

func (e *env) legalMoves(p *player, id string) []pavilionMove {
	e.t.Helper()
	var lm struct {
		Moves []legalMove `json:"moves"`
	}
	e.rest(p.token, http.MethodGet, "/v1/games/"+id+"/legal-moves", nil, http.StatusOK, &lm)
	var out []pavilionMove
	for _, m := range lm.Moves {
		var pm pavilionMove
		if err := json.Unmarshal(m.Move, &pm); err != nil {
			e.t.Fatal(err)
		}
		out = append(out, pm)
	}
	return out
}

// inView is the JavaScript that says whether an element is wholly in the
// window.
func inView(selector string) string {
	return fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return false; const r = e.getBoundingClientRect();
		return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth; })()`, selector)
}

// TestPavilionChoosersBesideHand: in Summer Pavilion at 1280×900, a choice
// of how to place a tile and the choice of the tiles kept on passing open
// right under the player's hand, both in view at once; the tiles kept are
// toggled (at most four, the count shown) and one Pass button sends the
// legal pass that keeps them.
func TestPavilionChoosersBesideHand(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	players := []*player{ann, bob}
	id := e.newGame("summer-pavilion", nil, seedA, ann, bob)
	// Play on until Ann, to move, holds five tiles or more and has a space
	// with more than one way to place on it.
	var space string
	for i := 0; space == ""; i++ {
		if i > 300 {
			t.Fatal("Ann never holds five tiles with a choice of placement")
		}
		g := e.game(id)
		if g.Phase == "play" && g.ToAct[0] == 0 {
			hand := 0
			for _, n := range e.holdings(id, 0).Hand {
				hand += n
			}
			ways := map[string]int{}
			for _, m := range e.legalMoves(ann, id) {
				if m.Type == "place" {
					ways[fmt.Sprintf("%d,%d", m.Star, m.Space)]++
				}
			}
			for sp, n := range ways {
				if n > 1 && hand >= 5 {
					space = sp
				}
			}
			if space != "" {
				break
			}
		}
		e.moveREST(id, players)
	}
	ann.watchConsole()
	// The page as it opens, at the top; the space is clicked where it is.
	ann.open("/games/" + id)
	hand := `.player[data-seat="0"] .holdings`
	ann.waitJS(fmt.Sprintf(`document.querySelector('.player[data-seat="0"] [data-space="%s"].pick')`, space), "Ann's spaces to place on")
	xy := eval[[]float64](ann, fmt.Sprintf(`(() => { const e = document.querySelector('.player[data-seat="0"] [data-space="%s"] polygon');
		scrollTo(0, 0); e.scrollIntoView({block: 'nearest'}); const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`, space))
	ann.click(xy)
	ann.waitJS(`document.querySelector('.chooser .choice.pick')`, "the choice of how to place")
	if !eval[bool](ann, inView(".chooser")) || !eval[bool](ann, inView(hand)) {
		t.Fatal("the placement choice and the hand are not both in view at 1280×900")
	}
	ann.shot("pavilion-place-chooser")
	ann.key("\x1b") // Escape

	// The pass: the hand's tiles are toggles, at most four kept.
	ann.waitJS(`!document.querySelector('.chooser') && [...document.querySelectorAll('#actions button.pick')].some((b) => b.textContent == 'Pass…')`, "the pass button")
	ann.clickJS(`[...document.querySelectorAll('#actions button.pick')].find((b) => b.textContent == 'Pass…')`)
	ann.waitJS(`document.querySelector('.chooser .keep-tile')`, "the tiles to keep")
	if !eval[bool](ann, inView(".chooser")) || !eval[bool](ann, inView(hand)) {
		t.Fatal("the pass choice and the hand are not both in view at 1280×900")
	}
	tiles := eval[[]string](ann, `[...document.querySelectorAll('.chooser .keep-tile')].map((b) => b.getAttribute('aria-label').split(' ')[0])`)
	var want []string
	for c, n := range e.holdings(id, 0).Hand {
		for range n {
			want = append(want, c)
		}
	}
	slices.Sort(want)
	if got := slices.Sorted(slices.Values(tiles)); !slices.Equal(got, want) {
		t.Fatalf("the toggles are %v, the hand is %v", got, want)
	}
	if n := eval[int](ann, `document.querySelectorAll('.chooser button.choice').length`); n != 1 {
		t.Fatalf("the pass choice has %d move buttons, want the one Pass button", n)
	}
	// The keyboard starts on the first tile; Space toggles it.
	first := `document.querySelector('.chooser .keep-tile')`
	if !eval[bool](ann, first+` === document.activeElement`) {
		t.Fatal("the focus is not on the first tile to keep")
	}
	for _, want := range []string{"true", "false"} {
		ann.key(" ")
		ann.waitJS(first+`.getAttribute('aria-pressed') == '`+want+`'`, "the tile toggled by Space")
	}
	// Choose the first four, see the fifth refused, then swap the first
	// for the fifth.
	for i := range 4 {
		ann.clickJS(fmt.Sprintf(`document.querySelectorAll('.chooser .keep-tile')[%d]`, i))
	}
	count := eval[string](ann, `document.querySelector('.chooser .keep-count').textContent`)
	if !strings.HasPrefix(count, "Keeping 4 of at most 4;") || !eval[bool](ann, `document.querySelectorAll('.chooser .keep-tile')[4].disabled`) {
		t.Fatalf("with four kept the count says %q and a fifth can still be chosen", count)
	}
	ann.shot("pavilion-pass-chooser")
	ann.clickJS(`document.querySelectorAll('.chooser .keep-tile')[0]`)
	ann.clickJS(`document.querySelectorAll('.chooser .keep-tile')[4]`)
	kept := []string{tiles[1], tiles[2], tiles[3], tiles[4]}
	label := eval[string](ann, `document.querySelector('.chooser button.pass').textContent`)
	if label != "Pass, keeping "+strings.Join(kept, ", ") {
		t.Fatalf("the Pass button says %q, want it to name %v", label, kept)
	}
	v := e.game(id).Version
	ann.clickJS(`document.querySelector('.chooser button.pass')`)
	ann.waitJS(fmt.Sprintf(`document.getElementById('app').dataset.version != '%d'`, v), "the pass to be made")
	got := e.holdings(id, 0).Kept
	wantKept := map[string]int{}
	for _, c := range kept {
		wantKept[c]++
	}
	if fmt.Sprint(got) != fmt.Sprint(wantKept) {
		t.Fatalf("Ann kept %v, she chose %v", got, wantKept)
	}
	ann.noConsoleErrors("choosing and passing")
}
