package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// legalMove is one entry of GET legal-moves.
type legalMove struct {
	Seat     int             `json:"seat"`
	Move     json.RawMessage `json:"move"`
	Notation string          `json:"notation"`
}

// moveREST makes the first legal move of the seat to act, through the
// API with the player's token (the other side of the tests: a player on
// another client).
func (e *env) moveREST(id string, players []*player) {
	e.t.Helper()
	g := e.game(id)
	p := players[g.ToAct[0]]
	var lm struct {
		Moves []legalMove `json:"moves"`
	}
	e.rest(p.token, http.MethodGet, "/v1/games/"+id+"/legal-moves", nil, http.StatusOK, &lm)
	if len(lm.Moves) == 0 {
		e.t.Fatalf("%s has no legal move at v%d", p.name, g.Version)
	}
	e.rest(p.token, http.MethodPost, "/v1/games/"+id+"/moves", lm.Moves[0].Move, http.StatusCreated, nil)
}

// flatten lists the leaves of a state JSON by the paths the server's
// diff uses (players[0].board.wall[1][3]); a list of strings is also
// given joined by commas (the floor).
func flatten(prefix string, v any, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			flatten(p, c, out)
		}
	case []any:
		var parts []string
		scalars := true
		for i, c := range x {
			flatten(fmt.Sprintf("%s[%d]", prefix, i), c, out)
			s, ok := c.(string)
			scalars = scalars && ok
			parts = append(parts, s)
		}
		if scalars {
			out[prefix] = strings.Join(parts, ",")
		}
	case nil:
		out[prefix] = ""
	case float64:
		out[prefix] = strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		out[prefix] = strconv.FormatBool(x)
	case string:
		out[prefix] = x
	}
}

// mustDraw are the leaves every drawing of a started game shows.
var mustDraw = regexp.MustCompile(`^(players\[\d\]\.(score|board\.(wall|stars)\[\d\]\[\d\])|factories\[\d+\]\.[a-z]+|center\.tiles\.[a-z]+)$`)

// checkDrawn compares the pieces drawn on the page (data-path, data-val)
// with the state JSON of the same version.
func checkDrawn(t *testing.T, p *player, id string, v int64) {
	t.Helper()
	var state map[string]any
	p.e.rest("", http.MethodGet, fmt.Sprintf("/v1/games/%s/state?version=%d", id, v), nil, http.StatusOK, &state)
	leaves := map[string]string{}
	flatten("", state, leaves)
	drawn := eval[[][]string](p, `[...document.querySelectorAll('#stage [data-path][data-val]')].map(e => [e.dataset.path, e.dataset.val])`)
	seen := map[string]bool{}
	for _, d := range drawn {
		want, ok := leaves[d[0]]
		if !ok || want != d[1] {
			t.Fatalf("version %d: the page draws %s = %q, the state has %q (present %v)", v, d[0], d[1], want, ok)
		}
		seen[d[0]] = true
	}
	if _, started := state["players"].([]any); !started || state["factories"] == nil {
		return
	}
	for path, val := range leaves {
		if mustDraw.MatchString(path) && val != "" && val != "0" && !seen[path] {
			t.Fatalf("version %d: %s = %q is not drawn", v, path, val)
		}
	}
}

func TestReplaySliderMatchesState(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	players := []*player{ann, bob}
	id := e.newGame("azul-mini", nil, seedA, ann, bob)
	for e.game(id).Status != "finished" {
		e.moveREST(id, players)
	}
	last := e.game(id).Version
	ann.open(fmt.Sprintf("/games/%s/replay?version=1", id))
	ann.waitJS(`document.getElementById('app').dataset.shownVersion == '1'`, "version 1")
	if err := chromedp.Do(ann.ctx, chromedp.Focus(chromedp.CSS("#slider"))); err != nil {
		t.Fatal(err)
	}
	for v := int64(1); ; v++ {
		ann.waitJS(fmt.Sprintf(`document.getElementById('app').dataset.shownVersion == '%d'`, v), fmt.Sprintf("version %d", v))
		checkDrawn(t, ann, id, v)
		if !strings.Contains(eval[string](ann, `location.search`), fmt.Sprintf("version=%d", v)) {
			t.Fatalf("version %d: the address does not name it: %s", v, eval[string](ann, `location.href`))
		}
		if v == 40 {
			ann.shot("replay")
		}
		if v == last {
			break
		}
		if err := chromedp.Do(ann.ctx, chromedp.KeyEvent(kb.ArrowRight)); err != nil {
			t.Fatal(err)
		}
	}
	if got := eval[string](ann, `document.getElementById('verify-result')?.textContent || ''`); !strings.HasPrefix(got, "pass") {
		t.Errorf("fairness panel says %q", got)
	}
	t.Logf("replay: %d versions checked", last)
}

func TestTakebackBranchInBrowsers(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	players := []*player{ann, bob}
	id := e.newGame("azul-mini", nil, seedA, ann, bob)
	ann.open("/games/" + id)
	bob.open("/games/" + id)
	v0 := e.game(id).Version
	// Ann moves by clicks, then asks to take it back.
	for i := 0; eval[string](ann, `document.getElementById('app').dataset.version`) == fmt.Sprint(v0); i++ {
		if i > 3 {
			t.Fatal("Ann's move was not made")
		}
		ann.clickFirstPick()
		ann.waitJS(fmt.Sprintf(`document.getElementById('app').dataset.version != '%d' || document.querySelector('#app .pick')`, v0), "Ann's move")
	}
	moved := e.game(id).Version
	ann.waitJS(`document.getElementById('takeback-request')`, "the take-back button")
	if err := chromedp.Do(ann.ctx, chromedp.Click(chromedp.CSS("#takeback-request"))); err != nil {
		t.Fatal(err)
	}
	bob.waitJS(`document.getElementById('takeback-accept')`, "Bob's accept button, live")
	bob.shot("takeback-request")
	if err := chromedp.Do(bob.ctx, chromedp.Click(chromedp.CSS("#takeback-accept"))); err != nil {
		t.Fatal(err)
	}
	// Ann's page is back at her turn, live.
	ann.waitJS(`document.getElementById('app').dataset.myTurn == 'yes' && !document.getElementById('takeback-accept')`, "Ann's turn again after the take-back")
	final := e.game(id).Version
	if final <= moved {
		t.Fatalf("the game did not move on: v%d after the move at v%d", final, moved)
	}
	_ = players

	// The replay shows the undone move as a branch that can be stepped.
	bob.open(fmt.Sprintf("/games/%s/replay", id))
	bob.clickUntil("ul.branches button[data-branch]",
		`document.getElementById('app').dataset.branch === '0' && document.querySelector('#step .event.undone')`, "the branch's first undone step")
	undone := eval[string](bob, `document.getElementById('app').dataset.shownVersion`)
	n, _ := strconv.ParseInt(undone, 10, 64)
	checkDrawn(t, bob, id, n)
	bob.shot("replay-branch")
	if err := chromedp.Do(bob.ctx, chromedp.Click(chromedp.CSS("#main-line"))); err != nil {
		t.Fatal(err)
	}
	bob.waitJS(`document.getElementById('app').dataset.branch === '' && !document.querySelector('#step .event.undone')`, "the main line again")
}

func TestStalePageIsRefusedAndRedraws(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	players := []*player{ann, bob}
	id := e.newGame("azul-mini", nil, seedA, ann, bob)
	// Ann's page loses its live stream, as on a train.
	err := chromedp.Do(ann.ctx, chromedp.Action[chromedp.Void](func(ctx context.Context, _ *chromedp.Target) (chromedp.Void, error) {
		if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
			return chromedp.Void{}, err
		}
		_, err := chromedp.Call(ctx, network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: []*network.BlockPattern{{URLPattern: "*://*:*/v1/games/*/stream*", Block: true}}})
		return chromedp.Void{}, err
	}))
	if err != nil {
		t.Fatal(err)
	}
	ann.open("/games/" + id)
	ann.waitJS(`document.getElementById('app').dataset.live == 'off'`, "the stream to fail")
	v0 := e.game(id).Version
	// Meanwhile Ann moves from another client.
	e.moveREST(id, players)
	v1 := e.game(id).Version
	// The stale page still offers the old choices; the move is refused.
	ann.clickFirstPick()
	ann.clickFirstPick()
	ann.waitJS(fmt.Sprintf(`document.getElementById('app').dataset.version == '%d'`, v1), "the redraw at the new version")
	if msg := eval[string](ann, `document.getElementById('notice').textContent`); !strings.Contains(msg, "moved on") {
		t.Fatalf("the page says %q, want that the game moved on", msg)
	}
	if v := e.game(id).Version; v != v1 {
		t.Fatalf("the stale move changed the game: v%d, want v%d (from v%d)", v, v1, v0)
	}
	if eval[string](ann, `document.getElementById('app').dataset.myTurn`) != "no" {
		t.Fatal("after the redraw the page still offers Ann a move at Bob's turn")
	}
	ann.shot("stale-refused")
}

func TestReplayPavilionStepsAndChapters(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	players := []*player{ann, bob}
	id := e.newGame("summer-pavilion", nil, seedA, ann, bob)
	for e.game(id).Status != "finished" {
		e.moveREST(id, players)
	}
	last := e.game(id).Version
	ann.open(fmt.Sprintf("/games/%s/replay?version=1", id))
	// The step button, with the mouse, over the first versions.
	for v := int64(1); v <= 60 && v <= last; v++ {
		ann.waitJS(fmt.Sprintf(`document.getElementById('app').dataset.shownVersion == '%d'`, v), fmt.Sprintf("version %d", v))
		checkDrawn(t, ann, id, v)
		if err := chromedp.Do(ann.ctx, chromedp.Click(chromedp.CSS("#next"))); err != nil {
			t.Fatal(err)
		}
	}
	// End jumps to the last version, with the final result.
	if err := chromedp.Do(ann.ctx, chromedp.KeyEvent(kb.End)); err != nil {
		t.Fatal(err)
	}
	ann.waitJS(fmt.Sprintf(`document.getElementById('app').dataset.shownVersion == '%d' && document.querySelector('#stage table.final')`, last), "the last version")
	checkDrawn(t, ann, id, last)
	// A round's chapter opens its first version.
	var rounds struct {
		Rounds []struct {
			Round       int   `json:"round"`
			FromVersion int64 `json:"from_version"`
		} `json:"rounds"`
	}
	e.rest("", http.MethodGet, "/v1/games/"+id+"/rounds", nil, http.StatusOK, &rounds)
	if len(rounds.Rounds) != 6 {
		t.Fatalf("%d rounds, want 6", len(rounds.Rounds))
	}
	r3 := rounds.Rounds[2]
	if err := chromedp.Do(ann.ctx, chromedp.Click(chromedp.CSS(`button[data-round="3"]`))); err != nil {
		t.Fatal(err)
	}
	ann.waitJS(fmt.Sprintf(`Number(document.getElementById('app').dataset.shownVersion) >= %d && document.querySelector('.roundline')?.textContent.startsWith('Round 3')`, r3.FromVersion), "round 3's first version")
	v, _ := strconv.ParseInt(eval[string](ann, `document.getElementById('app').dataset.shownVersion`), 10, 64)
	checkDrawn(t, ann, id, v)
	ann.shot("replay-pavilion")
}
