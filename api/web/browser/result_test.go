package browser

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// TestStartTileAndResultFirst: in Dutch, the player who took the start
// player tile from the centre has it drawn beside their name as the
// tile, named by the game's term (not a "1e" that reads as first
// place). When the game ends, the result (who won, the ranks and scores)
// comes first on the table, above the table talk, and the status line
// names no seed.
func TestStartTileAndResultFirst(t *testing.T) {
	parallel(t)
	e := newEnv(t)
	ann, bob := e.newPlayer("Ann"), e.newPlayer("Bob")
	ann.speak("nl", "Europe/Amsterdam")
	id := e.newGame("azul-mini", nil, seedA, ann, bob)
	ann.watchConsole()

	// Through the API: moves until a seat takes from the centre and so
	// holds the start player tile.
	holder := -1
	for step := 0; holder < 0; step++ {
		if step > 20 {
			t.Fatal("nobody took the start player tile in 20 moves")
		}
		var g struct {
			ToAct   []int `json:"to_act"`
			Players []struct {
				Marker bool `json:"marker"`
			} `json:"players"`
		}
		e.rest("", http.MethodGet, "/v1/games/"+id, nil, http.StatusOK, &g)
		for seat, p := range g.Players {
			if p.Marker {
				holder = seat
			}
		}
		if holder >= 0 {
			break
		}
		p := []*player{ann, bob}[g.ToAct[0]]
		var mine struct {
			LegalMoves []struct {
				Move json.RawMessage `json:"move"`
			} `json:"legal_moves"`
		}
		e.rest(p.token, http.MethodGet, "/v1/games/"+id, nil, http.StatusOK, &mine)
		move := mine.LegalMoves[0].Move
		for _, m := range mine.LegalMoves {
			if strings.Contains(string(m.Move), `"center"`) {
				move = m.Move
				break
			}
		}
		e.rest(p.token, http.MethodPost, "/v1/games/"+id+"/moves", move, http.StatusCreated, nil)
	}

	ann.open("/games/" + id)
	card := `document.querySelector('.player[data-seat="` + strconv.Itoa(holder) + `"] header')`
	ann.waitJS(card+`?.querySelector('svg.start-tile')`, "the start player tile beside its holder")
	if got := eval[string](ann, card+`.querySelector('svg.start-tile').getAttribute('aria-label')`); got != "startspelertegel" {
		t.Fatalf("the tile is named %q", got)
	}
	if got := eval[string](ann, card+`.querySelector('svg.start-tile .tile text').textContent`); got != "1" {
		t.Fatalf("the drawn tile shows %q", got)
	}
	if chips := eval[string](ann, `[...document.querySelectorAll('.player header .chip')].map((c) => c.textContent).join('|')`); strings.Contains(chips, "1e") {
		t.Fatalf("a player's header still has the chip %q", chips)
	}
	ann.shot("start-tile-nl")

	// Bob resigns: Ann's page follows to the end.
	e.rest(bob.token, http.MethodPost, "/v1/games/"+id+"/moves", map[string]string{"type": "resign"}, http.StatusCreated, nil)
	ann.waitJS(`document.getElementById('app').dataset.status == 'finished' && !document.getElementById('result').hidden && document.querySelector('#result table.final')`, "the result on Ann's page")
	// The changes of the last moves are marked once their descriptions
	// are in: the status line is as it stays.
	ann.waitJS(`'changed' in document.getElementById('app').dataset`, "the last moves described")
	if got := eval[string](ann, `document.querySelector('#result .winners').textContent`); !strings.HasPrefix(got, "Gewonnen door Ann") {
		t.Fatalf("the result says %q", got)
	}
	// First: before the offer, the boards and the table talk.
	if !eval[bool](ann, `(() => { const r = document.getElementById('result'); return ['offer', 'boards', 'talk'].every((id) => r.compareDocumentPosition(document.getElementById(id)) & Node.DOCUMENT_POSITION_FOLLOWING); })()`) {
		t.Fatal("the result is not above the table and its talk")
	}
	if !eval[bool](ann, `document.getElementById('result').getBoundingClientRect().top < innerHeight`) {
		t.Fatal("the result is out of view on opening")
	}
	status := eval[string](ann, `document.getElementById('status').textContent`)
	if strings.Contains(status, seedA[:7]) || strings.Contains(strings.ToLower(status), "seed") {
		t.Fatalf("the status line names the seed: %q", status)
	}
	ann.shot("table-finished-nl")
	ann.noConsoleErrors("around the start tile and the result")
}
